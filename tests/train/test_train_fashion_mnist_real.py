"""The shipped Fashion-MNIST recipe on the real dataset (Debian's dataset-fashion-mnist package):
at least 86% test accuracy after 2 epochs. Skipped when the files are not installed."""

import json
import os

import pytest
from train_helpers import ROOT, run_dirs

from nnlite.train import Trainer, load_config

FASHION = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(
    not os.path.exists(os.path.join(FASHION, "train-images-idx3-ubyte.gz")),
    reason="apt-get install dataset-fashion-mnist",
)
def test_lenet_fashion_mnist_reaches_86_percent(tmp_path):
    cfg = load_config(
        ROOT / "configs" / "lenet_fashion_mnist.yaml",
        [f"data.root={FASHION}", f"output_dir={tmp_path}", "log_every=100000"],
    )
    report = Trainer(cfg, progress=False).fit()
    assert report["test_images"] == 10000
    assert report["accuracy"] >= 0.86, report
    (run,) = run_dirs(tmp_path)
    records = [
        r
        for r in (json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines())
        if "step" not in r
    ]  # the per-epoch lines
    print(
        "epoch seconds:",
        [round(r["epoch_seconds"], 2) for r in records],
        "accuracy:",
        report["accuracy"],
    )
