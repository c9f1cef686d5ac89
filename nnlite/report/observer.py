"""What the training command hands the trainer: called with the run folder at the end of every
epoch and when training stops, it records the state and rewrites the page (and the TensorBoard
files when the config asks for them)."""

import os
import sys

from .machine import machine_info
from .run_folder import read_run, write_json_atomic
from .status import write_status
from .tensorboard import TensorBoardExport, TensorBoardUnavailable
from .writer import model_summary_text, write_report

__all__ = ["TrainingObserver"]


class TrainingObserver:
    """``observer(run_dir, state, message=None)``: ``state`` is ``running`` (an epoch ended),
    ``finished``, ``interrupted``, ``nonfinite`` or ``failed``.

    A problem while writing the page is printed as a warning: the page must never stop training.
    The random generators are left as they were.

    Examples:
        >>> import os
        >>> write_fake_mnist("mnist", train=8, test=4)  # tiny MNIST files
        >>> config = {
        ...     "name": "demo",
        ...     "model": {"name": "mlp", "args": {"in_features": 784, "hidden": [16]}},
        ...     "data": {"dataset": "mnist", "root": "mnist", "batch_size": 4,
        ...              "train_transforms": [{"name": "to_tensor"}], "test_transforms": [{"name": "to_tensor"}]},
        ...     "optimizer": {"name": "sgd", "lr": 0.1},
        ...     "epochs": 1,
        ... }
        >>> from nnlite.train import Trainer, load_config
        >>> report = Trainer(load_config(raw=config), progress=False).fit()
        Run directory: runs/demo-...
        >>> from nnlite.report import TrainingObserver
        >>> TrainingObserver()("runs/demo-latest", "finished")
        >>> sorted(f for f in os.listdir("runs/demo-latest") if f.endswith(".html"))
        ['report.html']
    """

    def __init__(self):
        self.summary_text = None
        self.tensorboard = None

    def __call__(self, run_dir, state, message=None):
        from ..train.checkpoint import rng_state, set_rng_state

        # building and running models here must not move the generators training draws from
        # (a resumed run replays the same numbers as an uninterrupted one)
        generators = rng_state()
        try:
            self._write(run_dir, state, message)
        finally:
            set_rng_state(generators)

    def _write(self, run_dir, state, message):
        try:
            write_status(run_dir, state, message)
            machine = os.path.join(run_dir, "machine.json")
            if not os.path.exists(machine):
                write_json_atomic(machine_info(), machine)
            run = read_run(run_dir)
            self._tensorboard(run, final=state != "running")
            if self.summary_text is None:
                self.summary_text = self._summary(run)
            write_report(run_dir, summary_text=self.summary_text)
        except Exception as e:  # noqa: BLE001
            print(
                f"train.py: warning: {run_dir}/report.html not written: {type(e).__name__}: {e}",
                file=sys.stderr,
                flush=True,
            )

    @staticmethod
    def _summary(run):
        from .evaluation import load_test_set

        try:
            classes = load_test_set(run.config, transform=False).classes
            return model_summary_text(run, len(classes))
        except Exception:  # noqa: BLE001 the page explains the missing summary itself
            return None

    def _tensorboard(self, run, final):
        if not (run.config.get("logging") or {}).get("tensorboard"):
            return
        if self.tensorboard is False:  # unavailable, already said so
            return
        if self.tensorboard is None:
            self.tensorboard = TensorBoardExport()
        try:
            self.tensorboard(run)
        except TensorBoardUnavailable as e:
            print(
                f"train.py: warning: {e}; no TensorBoard files are written",
                file=sys.stderr,
                flush=True,
            )
            self.tensorboard = False
            return
        finally:
            if final and self.tensorboard:
                self.tensorboard.close()
