"""Run folders for the report tests, made once per session: a finished run (train.py, two
short epochs on a generated Fashion-MNIST), a run stopped by a NaN loss and the page of a run
caught after its first epoch."""

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))

from test_train_run import NAN_MODEL
from train_helpers import (
    fashion_sections,
    make_config,
    run_dirs,
    run_train,
    write_cifar10,
    write_idx_dataset,
)


def _fashion_config(tmp, name, **extra):
    write_idx_dataset(tmp / "fm", n_train=48, n_test=30)
    sections = fashion_sections(tmp, batch_size=8)
    sections.update(extra)
    return make_config(tmp, name=name, epochs=2, log_every=2, **sections)


@pytest.fixture(scope="session")
def finished_run(tmp_path_factory):
    """A finished train.py run: 2 epochs of 6 mini-batches, TensorBoard files on."""
    tmp = tmp_path_factory.mktemp("finished")
    cfg = _fashion_config(tmp, "finished", logging={"tensorboard": True})
    proc = run_train(cfg, cwd=tmp, check=0)
    (run,) = run_dirs(tmp / "runs")
    return run, proc


@pytest.fixture(scope="session")
def nan_run(tmp_path_factory):
    """A train.py run (CIFAR-10 files, 10 mini-batches an epoch) whose loss becomes NaN at epoch 2,
    batch 3 (exit code 3)."""
    tmp = tmp_path_factory.mktemp("nan")
    (tmp / "exploding.py").write_text(NAN_MODEL)
    write_cifar10(tmp / "data")
    cfg = make_config(
        tmp, name="nan", epochs=2, model={"name": "exploding:Exploding", "args": {"bad_call": 13}}
    )
    proc = run_train(cfg, cwd=tmp)
    (run,) = run_dirs(tmp / "runs")
    return run, proc


@pytest.fixture(scope="session")
def running_page(tmp_path_factory):
    """The page as it stood after epoch 1 of 2, kept by an observer running after the report's."""
    from nnlite.report import TrainingObserver
    from nnlite.train import Trainer, load_config

    tmp = tmp_path_factory.mktemp("running")
    cfg = load_config(_fashion_config(tmp, "running"))
    kept = tmp / "running.html"

    report = TrainingObserver()

    def keep_running_page(run_dir, state, message=None):
        if state == "running" and not kept.exists():
            report.wait()  # the page is written in the background
            shutil.copy(Path(run_dir) / "report.html", kept)

    Trainer(cfg, progress=False, observers=[report, keep_running_page]).fit()
    return kept
