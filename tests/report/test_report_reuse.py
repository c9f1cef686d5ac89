"""The page reuses what the run already computed: the trainer's test-set predictions (no second
evaluation), the test set read once per writer, and plots of unchanged data drawn once."""

import json
import shutil

import numpy as np
import pytest

from nnlite.report import evaluation, write_report
from nnlite.report.run_folder import read_run
from nnlite.train.predictions import read_predictions


def test_trainer_writes_the_predictions_the_page_would_compute(finished_run, tmp_path):
    run, _ = finished_run
    kept = read_predictions(str(run / "evaluation.npz"), 2)
    assert kept is not None, "the trainer wrote the last epoch's predictions"
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "evaluation.npz").unlink()
    fresh = evaluation.evaluate_run(read_run(copy))  # the checkpoint evaluated from scratch
    np.testing.assert_array_equal(kept["labels"], fresh.labels)
    np.testing.assert_array_equal(kept["predicted"], fresh.predicted)
    np.testing.assert_allclose(kept["confidence"], fresh.confidence, rtol=1e-5)
    assert kept["classes"] == fresh.classes
    last = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()][-1]
    assert fresh.accuracy == pytest.approx(last["test_accuracy"])


def test_page_of_a_trained_run_evaluates_nothing(finished_run, tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="the page's plots need matplotlib (nnlite[report])")
    run, _ = finished_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)

    def no_model(*args, **kwargs):
        raise AssertionError("the page built the model to evaluate the test set again")

    monkeypatch.setattr(evaluation, "build_model_for", no_model)
    write_report(str(copy), summary_text="summary")
    page = (copy / "report.html").read_text()
    assert "Confusion matrix (test set)" in page and "cannot be rebuilt" not in page


def test_test_set_read_once_until_its_files_change(tmp_path, monkeypatch):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "train"))
    from train_helpers import write_idx_dataset

    write_idx_dataset(tmp_path / "fm", n_train=4, n_test=6)
    from nnlite.train.config import validate

    raw = {
        "model": {"name": "lenet"},
        "data": {"dataset": "fashion_mnist", "root": str(tmp_path / "fm"), "batch_size": 2},
        "optimizer": "sgd",
        "epochs": 1,
    }
    config = validate(raw, default_name="reuse")
    monkeypatch.setattr(evaluation, "_test_sets", {})
    first = evaluation.load_test_set(config, transform=False)
    assert evaluation.load_test_set(config, transform=False) is first
    write_idx_dataset(tmp_path / "fm", n_train=4, n_test=9, seed=1)  # rewritten in place
    again = evaluation.load_test_set(config, transform=False)
    assert again is not first and len(again) == 9


def test_a_plot_of_the_same_data_is_drawn_once(monkeypatch):
    pytest.importorskip("matplotlib", reason="the plots need matplotlib (nnlite[report])")
    from nnlite.report import plots

    drawn = []
    svg = plots._svg
    monkeypatch.setattr(plots, "_svg", lambda fig: drawn.append(1) or svg(fig))
    monkeypatch.setattr(plots, "_drawn_lately", {})
    first = plots.per_class_bars(["a", "b"], np.array([0.5, 0.25]))
    assert plots.per_class_bars(["a", "b"], np.array([0.5, 0.25])) == first
    assert len(drawn) == 1
    assert plots.per_class_bars(["a", "b"], np.array([0.5, 0.75])) != first
    assert len(drawn) == 2


def test_trainer_writes_the_model_summary_the_page_shows(finished_run):
    run, _ = finished_run
    text = (run / "summary.txt").read_text()
    (total,) = [line for line in text.splitlines() if line.startswith("Total params")]
    assert "LeNet" in text and total in (run / "report.html").read_text()
