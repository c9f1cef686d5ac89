"""The test-set predictions of one epoch's evaluation, kept in ``RUN_DIR/evaluation.npz``.

The trainer already has every test image's output when it evaluates; it writes the label, the
predicted class and its softmax probability of each image next to the checkpoint of the same
epoch, so the run page draws its per-class figures and lists the worst mistakes from them instead
of evaluating the test set a second time. The page's own evaluation (for a run folder without the
file, or evaluated elsewhere) writes the same file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from .._runtime.atomic_file import replace_atomically

__all__ = ["FILE_NAME", "predictions_from_logits", "read_predictions", "write_predictions"]

FILE_NAME = "evaluation.npz"


def predictions_from_logits(logits: npt.ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """``(predicted class, its softmax probability)`` of each row of ``logits`` (N, C)."""
    logits = np.asarray(logits)
    predicted = logits.argmax(axis=1)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    confidence = 1.0 / shifted.sum(axis=1)  # the largest probability: exp(0) / sum
    return predicted, confidence.astype(np.float32)


def write_predictions(
    path: str,
    labels: npt.ArrayLike,
    predicted: npt.ArrayLike,
    confidence: npt.ArrayLike,
    classes: Sequence[object],
    epoch: int,
) -> None:
    """Write one epoch's predictions to ``path`` atomically (the one fsync'd writer)."""
    with replace_atomically(path) as f:
        np.savez(
            f,
            labels=np.asarray(labels, dtype=np.int64),
            predicted=np.asarray(predicted, dtype=np.int64),
            confidence=np.asarray(confidence, dtype=np.float32),
            classes=np.array([str(c) for c in classes]),
            epoch=np.int64(epoch),
        )


def read_predictions(path: str, epoch: int) -> dict[str, Any] | None:
    """``{labels, predicted, confidence, classes}`` written for ``epoch``, or None (no file, a
    file of another epoch or an unreadable one)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            if int(z["epoch"]) != epoch:
                return None
            return {
                "labels": z["labels"],
                "predicted": z["predicted"],
                "confidence": z["confidence"],
                "classes": [str(c) for c in z["classes"]],
            }
    except (OSError, KeyError, ValueError):
        return None
