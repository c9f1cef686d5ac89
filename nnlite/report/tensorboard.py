"""TensorBoard event files of a run (``logging: {tensorboard: true}``), written from its
metrics lines through tensorboardX (the optional extra ``tensorboard``)."""

import os
import shutil
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .run_folder import RunFolder

__all__ = ["INSTALL_HINT", "TensorBoardExport"]

INSTALL_HINT = "pip install 'nnlite[tensorboard]'  (tensorboardX)"


class TensorBoardUnavailable(RuntimeError):
    """tensorboardX is not installed."""


class TensorBoardExport:
    """Adds the metrics lines not yet exported to ``RUN_DIR/tensorboard``.

    The first export of a process starts the folder afresh from ``metrics.jsonl`` (which a resumed
    run has already cut back to its checkpoint), so no step is written twice.
    """

    def __init__(self) -> None:
        self.writer: Any = None
        self.done_steps = self.done_epochs = 0

    def __call__(self, run: "RunFolder") -> None:
        if self.writer is None:
            try:
                from tensorboardX import SummaryWriter
            except ImportError:
                raise TensorBoardUnavailable(
                    f"logging.tensorboard needs tensorboardX: {INSTALL_HINT}"
                ) from None
            folder = run.file("tensorboard")
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            self.writer = SummaryWriter(logdir=folder)
        w = self.writer
        for r in run.steps[self.done_steps :]:
            w.add_scalar("train/running_loss", r["train_loss"], r["step"])
        for r in run.epochs[self.done_epochs :]:
            step = r.get("global_step", r["epoch"])
            w.add_scalar("train/loss", r["train_loss"], step)
            w.add_scalar("test/loss", r["test_loss"], step)
            w.add_scalar("test/accuracy", r["test_accuracy"], step)
            w.add_scalar("lr", r["lr"], step)
            w.add_scalar("speed/images_per_second", r["images_per_second"], step)
            w.add_scalar("speed/epoch_seconds", r["epoch_seconds"], step)
        self.done_steps, self.done_epochs = len(run.steps), len(run.epochs)
        w.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None
