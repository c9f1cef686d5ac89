"""The test-set evaluation a page shows: the run's last checkpoint applied to its test set.

The predictions (label, predicted class, confidence of every test image) are kept in
``RUN_DIR/evaluation.npz`` with the checkpoint's epoch (``nnlite.train.predictions``). The trainer
writes that file from its own evaluation after each epoch, so a page evaluates the test set only
for a run folder without it (one trained by several processes, or by an older nnlite). From them come the confusion matrix, the per-class
accuracy and the most confidently misclassified images.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..train.predictions import (
    FILE_NAME,
    predictions_from_logits,
    read_predictions,
    write_predictions,
)

if TYPE_CHECKING:
    from ..nn.modules.module import Module
    from ..train.config import TrainConfig
    from .run_folder import RunFolder

__all__ = [
    "Evaluation",
    "EvaluationUnavailable",
    "build_model_for",
    "evaluate_run",
    "train_config_of",
]

CACHE = FILE_NAME


class EvaluationUnavailable(RuntimeError):
    """The run cannot be evaluated here (no checkpoint yet, dataset or model code missing)."""


class Evaluation:
    """Predictions on the test set after ``epoch`` epochs.

    Attributes:
        labels, predicted: int64 arrays (one entry per test image); confidence: the softmax
            probability of the predicted class.
        classes: class names; epoch: the checkpoint's epoch.
    """

    def __init__(
        self,
        labels: ArrayLike,
        predicted: ArrayLike,
        confidence: ArrayLike,
        classes: Iterable[object],
        epoch: int,
    ) -> None:
        self.labels = np.asarray(labels, dtype=np.int64)
        self.predicted = np.asarray(predicted, dtype=np.int64)
        self.confidence = np.asarray(confidence, dtype=np.float32)
        self.classes = [str(c) for c in classes]
        self.epoch = int(epoch)

    @property
    def accuracy(self) -> float:
        return float((self.labels == self.predicted).mean()) if len(self.labels) else 0.0

    def confusion_matrix(self) -> np.ndarray:
        """``C x C`` counts: row = true class, column = predicted class."""
        c = len(self.classes)
        return np.bincount(self.labels * c + self.predicted, minlength=c * c).reshape(c, c)

    def per_class_accuracy(self) -> np.ndarray:
        """Fraction right per class (NaN for a class without test images)."""
        m = self.confusion_matrix()
        totals = m.sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals > 0, np.diag(m) / np.maximum(totals, 1), np.nan)

    def worst_mistakes(self, k: int) -> np.ndarray:
        """Indices of the ``k`` misclassified images predicted with the highest confidence."""
        wrong = np.flatnonzero(self.labels != self.predicted)
        order = np.argsort(-self.confidence[wrong], kind="stable")
        return wrong[order[:k]]


def train_config_of(run: RunFolder, raw: Mapping[str, Any] | None = None) -> TrainConfig:
    """The trainer's typed config of ``run`` (from ``raw``, e.g. a checkpoint's copy, or the
    run's ``config.yaml``); ``EvaluationUnavailable`` when it is not a valid config."""
    from ..train.config import ConfigError, validate

    try:
        return validate(run.config if raw is None else raw, run.name)
    except ConfigError as e:
        raise EvaluationUnavailable(f"the run's config is not valid here: {e}") from None


def build_model_for(config: TrainConfig, num_classes: int) -> Module:
    """The run's model as the trainer built it (finetuning's new head and frozen layers included),
    with freshly initialised weights."""
    from ..train.builders import apply_finetune, build_model

    model = build_model(config.model)
    if config.finetune is not None:
        apply_finetune(model, config.finetune, num_classes, load_weights=False, log=lambda *a: None)
    return model


#: the test sets read last, by (dataset, root, transforms): a page writer reads its run's test
#: set once, not on every page (decompressing and checking it took longer than drawing a page)
_test_sets: dict[str, object] = {}
_TEST_SETS_KEPT = 4


def _files_signature(root: str, depth: int = 3, limit: int = 1000) -> list[list[Any]]:
    """The files under ``root`` (a few levels down, the first ``limit`` entries) with their sizes
    and modification times: a test set rewritten in place is read again."""
    found: list[list[Any]] = []
    folders = [(root, depth)]
    while folders and len(found) < limit:
        folder, levels = folders.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    if entry.is_dir() and levels > 1:
                        folders.append((entry.path, levels - 1))
                    elif entry.is_file():
                        stat = entry.stat()
                        found.append([os.path.abspath(entry.path), stat.st_size, stat.st_mtime_ns])
        except OSError:
            found.append([os.path.abspath(folder), None, None])
    return sorted(found)


def load_test_set(config: TrainConfig, transform: bool = True) -> Any:
    """The run's test set (without downloading), with its test transforms or raw images."""
    from ..data import datasets
    from ..train.builders import build_transforms
    from ..train.config import DATASETS

    data = config.data
    root = os.path.expanduser(data.root)
    key = json.dumps(
        [
            data.dataset,
            _files_signature(root),
            data.test_transforms if transform else None,
        ],
        sort_keys=True,
        default=str,
    )
    if key in _test_sets:
        return _test_sets[key]
    cls = getattr(datasets, DATASETS[data.dataset][0])
    try:
        test_set = cls(
            root,
            train=False,
            download=False,
            transform=build_transforms(data.test_transforms) if transform else None,
        )
    except (RuntimeError, OSError, ValueError) as e:
        raise EvaluationUnavailable(
            f"the test set ({data.dataset} in {root}) cannot be read: {e}"
        ) from None
    if len(_test_sets) >= _TEST_SETS_KEPT:
        del _test_sets[next(iter(_test_sets))]
    _test_sets[key] = test_set
    return test_set


def _read_cache(path: str, epoch: int) -> Evaluation | None:
    found = read_predictions(path, epoch)
    if found is None:
        return None
    return Evaluation(
        found["labels"], found["predicted"], found["confidence"], found["classes"], epoch
    )


def _write_cache(ev: Evaluation, path: str) -> None:
    write_predictions(path, ev.labels, ev.predicted, ev.confidence, ev.classes, ev.epoch)


def evaluate_run(run: RunFolder) -> Evaluation:
    """The ``Evaluation`` of ``run``'s last checkpoint (cached in ``evaluation.npz``).

    Raises ``EvaluationUnavailable`` with the reason when it cannot be made here."""
    from ..autograd.grad_mode import no_grad
    from ..data import DataLoader
    from ..train.checkpoint import CheckpointFileError, load_checkpoint

    if run.checkpoint is None:
        raise EvaluationUnavailable("no checkpoint yet (the first epoch has not finished)")
    try:
        state = load_checkpoint(run.checkpoint)
    except CheckpointFileError as e:
        raise EvaluationUnavailable(str(e)) from None
    epoch = int(state["epoch"])
    cache = run.file(CACHE)
    ev = _read_cache(cache, epoch)
    if ev is not None:
        return ev
    config = train_config_of(run, state.get("config") or None)
    test_set = load_test_set(config)
    classes = [str(c) for c in (state.get("classes") or getattr(test_set, "classes", []))]
    try:
        model = build_model_for(config, len(classes))
        model.load_state_dict(state["model"])
    except Exception as e:  # noqa: BLE001 user model code missing here, or a mismatch: the page says why
        raise EvaluationUnavailable(
            f"the model cannot be rebuilt here: {type(e).__name__}: {e}"
        ) from None
    model.eval()
    labels, predicted, confidence = [], [], []
    loader = DataLoader(test_set, batch_size=config.data.test_batch_size, shuffle=False)
    with no_grad():
        for images, targets in loader:
            classes_seen, probability = predictions_from_logits(model(images).numpy())
            labels.append(targets.numpy())
            predicted.append(classes_seen)
            confidence.append(probability)
    ev = Evaluation(
        np.concatenate(labels),
        np.concatenate(predicted),
        np.concatenate(confidence),
        classes,
        epoch,
    )
    _write_cache(ev, cache)
    return ev


def mistake_images(run: RunFolder, indices: Iterable[int]) -> list[np.ndarray]:
    """The raw test images (H x W x C uint8) at ``indices``."""
    raw = load_test_set(train_config_of(run), transform=False)
    return [raw[int(i)][0] for i in indices]
