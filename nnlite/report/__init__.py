"""Seeing a run: ``RUN_DIR/report.html`` (curves, per-class accuracy, confusion matrix, the most
confidently misclassified images, model summary, config, machine), pages comparing runs, and
TensorBoard files. It reads run folders only.

    python -m nnlite.report RUN_DIR               # rebuild RUN_DIR/report.html
    python -m nnlite.report RUN_A RUN_B [-o FILE] # one page comparing the runs

Plots need matplotlib (``pip install 'nnlite[report]'``); without it the pages hold tables.
"""

from .observer import TrainingObserver
from .run_folder import RunFolder, RunFolderError, read_run
from .writer import write_comparison, write_report

__all__ = [
    "RunFolder",
    "RunFolderError",
    "TrainingObserver",
    "read_run",
    "write_comparison",
    "write_report",
]
