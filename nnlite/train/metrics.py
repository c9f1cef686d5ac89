"""Evaluation counts, the per-epoch metrics log and the final report."""

import json
import os
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .._runtime.atomic_file import replace_atomically, write_atomically
from .predictions import predictions_from_logits

__all__ = ["ClassificationMeter", "MetricsLog", "write_json_atomic", "accuracy_lines"]


class ClassificationMeter:
    """Sums of loss, per-class correct predictions and per-class counts over an evaluation;
    with ``keep_predictions``, also every image's label, predicted class and its probability
    (``predictions()``), for the run page."""

    def __init__(self, num_classes: int, keep_predictions: bool = False) -> None:
        self.num_classes = num_classes
        self.loss_sum = 0.0
        self.correct = np.zeros(num_classes, dtype=np.int64)
        self.total = np.zeros(num_classes, dtype=np.int64)
        self._kept: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]] | None = (
            ([], [], []) if keep_predictions else None
        )

    def update(self, logits: np.ndarray, labels: np.ndarray, mean_loss: float) -> None:
        """One batch: ``logits`` (N, C) and ``labels`` (N,) as numpy arrays, ``mean_loss`` the
        batch's mean loss."""
        n = labels.shape[0]
        if self._kept is None:
            predicted = logits.argmax(axis=1)
        else:
            predicted, confidence = predictions_from_logits(logits)
            for kept, values in zip(self._kept, (labels, predicted, confidence)):
                kept.append(values)
        self.loss_sum += float(mean_loss) * n
        c = self.num_classes
        self.total += np.bincount(labels, minlength=c)[:c]
        self.correct += np.bincount(labels[predicted == labels], minlength=c)[:c]

    def predictions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """``(labels, predicted, confidence)`` arrays over every image seen, or None when the
        meter keeps no predictions."""
        if self._kept is None:
            return None
        labels, predicted, confidence = (
            np.concatenate(kept) if kept else np.zeros(0) for kept in self._kept
        )
        return labels, predicted, confidence

    def allreduce(self, comm: Any) -> None:
        """Sum the counts of every MPI rank (``comm`` an mpi4py communicator)."""
        buf = np.concatenate(
            [[self.loss_sum], self.correct.astype(np.float64), self.total.astype(np.float64)]
        )
        buf = comm.allreduce(buf)
        c = self.num_classes
        self.loss_sum = float(buf[0])
        self.correct = np.rint(buf[1 : 1 + c]).astype(np.int64)
        self.total = np.rint(buf[1 + c :]).astype(np.int64)

    @property
    def count(self) -> int:
        return int(self.total.sum())

    @property
    def accuracy(self) -> float:
        return float(self.correct.sum() / max(self.count, 1))

    @property
    def loss(self) -> float:
        return self.loss_sum / max(self.count, 1)

    def per_class(self, classes: Iterable[object]) -> dict[str, float]:
        """``{class name: accuracy}`` (fractions; classes without test images are left out)."""
        return {
            str(name): float(self.correct[i] / self.total[i])
            for i, name in enumerate(classes)
            if self.total[i] > 0
        }


def accuracy_lines(meter: ClassificationMeter, classes: Sequence[object]) -> list[str]:
    """The tutorial's printed lines: overall accuracy (whole percent) and one per class."""
    lines = [
        f"Accuracy of the network on the {meter.count} test images: "
        f"{100 * int(meter.correct.sum()) // max(meter.count, 1)} %"
    ]
    for name, acc in meter.per_class(classes).items():
        lines.append(f"Accuracy for class: {name:5s} is {100 * acc:.1f} %")
    return lines


class MetricsLog:
    """``metrics.jsonl``: one JSON object per line, one line per epoch."""

    def __init__(self, path: str) -> None:
        self.path = path

    def truncate_after(self, epoch: int) -> None:
        """Drop lines of epochs after ``epoch`` (written before a crash, not covered by the
        checkpoint the run resumes from)."""
        if not os.path.exists(self.path):
            return
        keep = []
        with open(self.path, encoding="utf-8") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if isinstance(record, dict) and record.get("epoch", 0) <= epoch:
                    keep.append(json.dumps(record) + "\n")
        with replace_atomically(self.path) as f:
            f.write("".join(keep).encode("utf-8"))

    def append(self, record: dict[str, Any]) -> None:
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()
            os.fsync(f.fileno())

    def read(self) -> list[dict[str, Any]]:
        if not os.path.exists(self.path):
            return []
        with open(self.path, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]


def write_json_atomic(obj: Any, path: str) -> None:
    """Write ``obj`` as indented JSON to ``path`` through a temporary file and a rename."""
    write_atomically(path, json.dumps(obj, indent=2) + "\n")
