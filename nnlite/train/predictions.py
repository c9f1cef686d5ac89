"""The test-set predictions of one epoch's evaluation, kept in ``RUN_DIR/evaluation.npz``.

The trainer already has every test image's output when it evaluates; it writes the label, the
predicted class and its softmax probability of each image next to the checkpoint of the same
epoch, so the run page draws its per-class figures and lists the worst mistakes from them instead
of evaluating the test set a second time. The page's own evaluation (for a run folder without the
file, or evaluated elsewhere) writes the same file.
"""

import os

import numpy as np

__all__ = ["FILE_NAME", "predictions_from_logits", "read_predictions", "write_predictions"]

FILE_NAME = "evaluation.npz"


def predictions_from_logits(logits):
    """``(predicted class, its softmax probability)`` of each row of ``logits`` (N, C)."""
    logits = np.asarray(logits)
    predicted = logits.argmax(axis=1)
    shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
    confidence = 1.0 / shifted.sum(axis=1)  # the largest probability: exp(0) / sum
    return predicted, confidence.astype(np.float32)


def write_predictions(path, labels, predicted, confidence, classes, epoch):
    """Write one epoch's predictions to ``path`` atomically (a temporary file, then a rename)."""
    tmp = f"{path}.{os.getpid()}.tmp.npz"
    try:
        np.savez(
            tmp,
            labels=np.asarray(labels, dtype=np.int64),
            predicted=np.asarray(predicted, dtype=np.int64),
            confidence=np.asarray(confidence, dtype=np.float32),
            classes=np.array([str(c) for c in classes]),
            epoch=np.int64(epoch),
        )
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_predictions(path, epoch):
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
