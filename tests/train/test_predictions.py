"""The test-set predictions the trainer keeps for the run page (``nnlite.train.predictions``)."""

import math

import numpy as np

from nnlite.train.metrics import ClassificationMeter
from nnlite.train.predictions import read_predictions, write_predictions


def test_meter_keeps_predicted_class_and_its_probability():
    meter = ClassificationMeter(2, keep_predictions=True)
    meter.update(np.array([[1.0, 2.0], [3.0, 0.0]], np.float32), np.array([1, 1]), 0.5)
    meter.update(np.array([[0.0, 0.0]], np.float32), np.array([0]), 0.25)
    labels, predicted, confidence = meter.predictions()
    np.testing.assert_array_equal(labels, [1, 1, 0])
    np.testing.assert_array_equal(predicted, [1, 0, 0])
    # softmax of (a, b) at its larger entry: 1 / (1 + exp(-|a - b|))
    expected = [1 / (1 + math.exp(-1)), 1 / (1 + math.exp(-3)), 0.5]
    np.testing.assert_allclose(confidence, expected, rtol=1e-6)
    assert meter.accuracy == 2 / 3  # the counts are unchanged by keeping predictions


def test_meter_without_predictions_keeps_none():
    meter = ClassificationMeter(2)
    meter.update(np.array([[1.0, 2.0]], np.float32), np.array([1]), 0.5)
    assert meter.predictions() is None


def test_file_round_trip_and_epoch_check(tmp_path):
    path = str(tmp_path / "evaluation.npz")
    write_predictions(path, [0, 2], [0, 1], [0.9, 0.6], ["a", "b", "c"], epoch=3)
    found = read_predictions(path, 3)
    np.testing.assert_array_equal(found["labels"], [0, 2])
    np.testing.assert_array_equal(found["predicted"], [0, 1])
    np.testing.assert_allclose(found["confidence"], [0.9, 0.6], rtol=1e-6)
    assert found["classes"] == ["a", "b", "c"]
    assert read_predictions(path, 2) is None  # another epoch's checkpoint
    assert read_predictions(str(tmp_path / "none.npz"), 3) is None
    assert [p.name for p in tmp_path.iterdir()] == ["evaluation.npz"]  # no temporary file left


def test_trainer_writes_each_epochs_predictions_without_a_page(tmp_path, fashion_root):
    from train_helpers import fashion_sections, make_config, run_dirs

    from nnlite.train import Trainer, load_config
    from nnlite.train.checkpoint import load_checkpoint

    cfg = load_config(make_config(tmp_path, epochs=2, **fashion_sections(tmp_path)))
    report = Trainer(cfg, progress=False).fit()  # no observers: no page, no page writer
    (run,) = run_dirs(tmp_path / "runs")
    epoch = int(load_checkpoint(str(run / "checkpoints" / "last.npz"))["epoch"])
    found = read_predictions(str(run / "evaluation.npz"), epoch)
    assert epoch == 2 and found is not None
    assert len(found["labels"]) == report["test_images"]
    assert float((found["labels"] == found["predicted"]).mean()) == report["accuracy"]
