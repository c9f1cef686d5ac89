"""What the training command hands the trainer: called with the run folder at the end of every
epoch and when training stops, it records the state and has the page rewritten (and the
TensorBoard files when the config asks for them).

The state and ``machine.json`` are written at once, in the training process; the page is written
by a background process (``background``) so that training goes on meanwhile. The page after the
last epoch, an interruption or an error is waited for.
"""

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .background import BackgroundPageWriter

from .machine import machine_info
from .page_writer import PageWriter
from .run_folder import write_json_atomic
from .status import write_status

__all__ = ["TrainingObserver"]


class TrainingObserver:
    """``observer(run_dir, state, message=None)``: ``state`` is ``running`` (an epoch ended),
    ``finished``, ``interrupted``, ``nonfinite`` or ``failed``.

    Args:
        background (bool): write the pages of a running run in a background process (default);
            False writes every page before returning.

    A ``running`` page is written in the background while the next epoch trains (when epochs end
    faster than pages are written, one page covers them all); any other state waits until its
    page is written. ``wait()`` waits for the pages handed over so far. A problem while writing
    is printed as a warning: the page must never stop training. The random generators are left
    as they were.

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

    def __init__(self, background: bool = True) -> None:
        self.background = background
        self._writer: BackgroundPageWriter | None = None
        self._page = PageWriter()

    def __call__(self, run_dir: str, state: str, message: str | None = None) -> None:
        try:
            write_status(run_dir, state, message)
            machine = os.path.join(run_dir, "machine.json")
            if not os.path.exists(machine):
                write_json_atomic(machine_info(), machine)
        except Exception as e:  # noqa: BLE001
            _warn(run_dir, e)
        final = state != "running"
        if self.background and self._writer is None and not final:
            self._writer = _start_writer(run_dir)
            self.background = self._writer is not None
        if self._writer is not None:
            handed_over = self._writer.write(run_dir, final)
            if handed_over and not final:
                return
            self._close_writer()
            if handed_over:
                return
        self._write_here(run_dir, final)

    def wait(self) -> None:
        """Wait until every page handed to the background writer so far is written.

        Example:
            >>> report = TrainingObserver()
            >>> report.wait()  # no page handed over yet: returns at once
        """
        if self._writer is not None and not self._writer.flush():
            self._close_writer()

    def _close_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()

    def _write_here(self, run_dir: str, final: bool) -> None:
        from ..train.checkpoint import rng_state, set_rng_state

        # building and running models here must not move the generators training draws from
        # (a resumed run replays the same numbers as an uninterrupted one)
        generators = rng_state()
        try:
            self._page(run_dir, final)
        finally:
            set_rng_state(generators)


def _start_writer(run_dir: str) -> "BackgroundPageWriter | None":
    from .background import BackgroundPageWriter

    try:
        return BackgroundPageWriter()
    except Exception as e:  # noqa: BLE001 (no processes here: pages are written in this one)
        _warn(run_dir, e)
        return None


def _warn(run_dir: str, e: BaseException) -> None:
    print(
        f"train.py: warning: {run_dir}/report.html not written: {type(e).__name__}: {e}",
        file=sys.stderr,
        flush=True,
    )
