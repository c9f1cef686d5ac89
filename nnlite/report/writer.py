"""Writing the pages: gather what a run folder holds, evaluate its last checkpoint, draw, write
atomically."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .comparison_page import comparison_page
from .evaluation import (
    EvaluationUnavailable,
    build_model_for,
    evaluate_run,
    load_test_set,
    mistake_images,
    train_config_of,
)
from .machine import machine_info
from .run_folder import RunFolder, read_run, write_text_atomic
from .run_page import MISTAKES_SHOWN, run_page

if TYPE_CHECKING:
    from ..train.config import TrainConfig

__all__ = ["model_summary_text", "write_comparison", "write_report"]


def _input_size(config: TrainConfig) -> tuple[int, ...]:
    """(1, C, H, W) of one test image after the test transforms."""
    from ..train.config import DATASETS

    try:
        image = load_test_set(config)[0][0]
        return (1, *image.shape)
    except (EvaluationUnavailable, IndexError):
        channels = DATASETS[config.data.dataset][1]
        side = 32 if config.data.dataset == "cifar10" else 28
        return (1, channels, side, side)


def model_summary_text(run: RunFolder, num_classes: int) -> str:
    """``nl.summary`` of the run's model as trained: built as for training (frozen layers
    marked) with the last checkpoint's weights when there is one."""
    from ..nn.utils.model_summary import summary
    from ..train.checkpoint import CheckpointFileError, load_checkpoint

    config = train_config_of(run)
    model = build_model_for(config, num_classes)
    if run.checkpoint is not None:
        try:
            model.load_state_dict(load_checkpoint(run.checkpoint)["model"])
        except (CheckpointFileError, KeyError, RuntimeError, ValueError):
            pass  # the shapes and counts are the same with fresh weights
    return str(summary(model, input_size=_input_size(config)))


def write_report(run_dir: str | os.PathLike[str], summary_text: str | None = None) -> str:
    """Write ``run_dir/report.html`` from what the run folder holds; returns its path.

    Args:
        run_dir: a run folder written by ``train.py``.
        summary_text: the model summary, when the caller already has it (else it is made here).

    Returns:
        str: the page's path.

    Examples:
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
        >>> from nnlite.report import write_report
        >>> write_report("runs/demo-latest")
        'runs/demo-latest/report.html'
    """
    run = read_run(run_dir)
    ev = images = problem = None
    try:
        ev = evaluate_run(run)
        worst = ev.worst_mistakes(MISTAKES_SHOWN)
        images = mistake_images(run, worst) if len(worst) else []
    except EvaluationUnavailable as e:
        problem = str(e)
    summary_problem = None
    if summary_text is None:
        try:
            num_classes = len(ev.classes) if ev is not None else _num_classes(run)
            summary_text = model_summary_text(run, num_classes)
        except Exception as e:  # noqa: BLE001 a model that cannot be built here: the page says why
            summary_problem = f"{type(e).__name__}: {e}"
    page = run_page(
        run,
        evaluation=ev,
        evaluation_problem=problem,
        images=images,
        summary_text=summary_text,
        summary_problem=summary_problem,
        machine=machine_info(),
    )
    path = os.path.join(run_dir, "report.html")
    write_text_atomic(page, path)
    return path


def _num_classes(run: RunFolder) -> int:
    try:
        return len(load_test_set(train_config_of(run), transform=False).classes)
    except EvaluationUnavailable:
        return 10


def write_comparison(
    run_dirs: Iterable[str | os.PathLike[str]], output: str | os.PathLike[str]
) -> str:
    """Write one page comparing the runs in ``run_dirs`` to ``output``; returns its path.

    Args:
        run_dirs (list of str): the run folders.
        output (str): the page to write.

    Returns:
        str: ``output``.

    Examples:
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
        >>> from nnlite.report import write_comparison
        >>> write_comparison(["runs/demo-latest", "runs/demo-latest"], "compare.html")
        'compare.html'
    """
    runs = [read_run(d) for d in run_dirs]
    write_text_atomic(comparison_page(runs), os.fspath(output))
    return os.fspath(output)
