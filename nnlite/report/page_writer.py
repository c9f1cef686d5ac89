"""Rewriting a run's page and TensorBoard files from its folder, as the observer asks: in the
training process or in the background writer process (``background``)."""

import sys
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .run_folder import RunFolder

from .tensorboard import TensorBoardExport, TensorBoardUnavailable
from .writer import model_summary_text, write_report

__all__ = ["PageWriter"]


class PageWriter:
    """``writer(run_dir, final)``: rewrite ``run_dir/report.html`` (and the TensorBoard files when
    the config asks for them; ``final`` closes them).

    A problem is printed as a warning: the page must never stop training. The model summary is
    read from the run folder (the trainer writes it) or made once; TensorBoardX is imported only here, never in a page-less process.
    """

    def __init__(self) -> None:
        self.summary_text: str | None = None
        # None: not started; False: tensorboardX is missing (said once)
        self.tensorboard: TensorBoardExport | Literal[False] | None = None

    def __call__(self, run_dir: str, final: bool) -> None:
        from .run_folder import read_run

        try:
            run = read_run(run_dir)
            self._tensorboard(run, final)
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
    def _summary(run: "RunFolder") -> str | None:
        from ..train.model_summary_file import FILE_NAME
        from .evaluation import load_test_set, train_config_of

        try:  # made by the training process
            with open(run.file(FILE_NAME), encoding="utf-8") as f:
                return f.read()
        except OSError:
            pass
        try:
            classes = load_test_set(train_config_of(run), transform=False).classes
            return model_summary_text(run, len(classes))
        except Exception:  # noqa: BLE001 the page explains the missing summary itself
            return None

    def _tensorboard(self, run: "RunFolder", final: bool) -> None:
        from .evaluation import train_config_of

        if not train_config_of(run).logging.tensorboard:
            return
        if self.tensorboard is False:  # unavailable, already said so
            return
        export = self.tensorboard = self.tensorboard or TensorBoardExport()
        try:
            export(run)
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
                export.close()
