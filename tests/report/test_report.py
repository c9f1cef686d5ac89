"""The run report: what train.py writes into a run folder, the page, its rebuild and comparison."""

import json
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml
from train_helpers import ROOT

from nnlite.report import read_run, write_comparison, write_report
from nnlite.report.evaluation import evaluate_run

FASHION = [
    "T-shirt/top",
    "Trouser",
    "Pullover",
    "Dress",
    "Coat",
    "Sandal",
    "Shirt",
    "Sneaker",
    "Bag",
    "Ankle boot",
]


def metrics_lines(run):
    return [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]


def lenet_params(channels, side):
    conv_out = ((side - 4) // 2 - 4) // 2
    return (
        (6 * channels * 25 + 6)
        + (16 * 6 * 25 + 16)
        + (16 * conv_out**2 * 120 + 120)
        + (120 * 84 + 84)
        + (84 * 10 + 10)
    )


def test_metrics_gain_a_line_per_log_every_steps(finished_run):
    run, proc = finished_run
    lines = metrics_lines(run)
    steps = [r for r in lines if "step" in r]
    epochs = [r for r in lines if "step" not in r]
    # 48 images, batch 8: 6 steps per epoch, a line every 2 steps
    assert [(r["epoch"], r["step"]) for r in steps] == [
        (1, 2),
        (1, 4),
        (1, 6),
        (2, 8),
        (2, 10),
        (2, 12),
    ]
    assert [r["epoch"] for r in epochs] == [1, 2]
    printed = [
        float(x)
        for x in re.findall(r"^\[\d, +\d+\] loss: (\d+\.\d{3})$", proc.stdout, re.MULTILINE)
    ]
    assert [round(r["train_loss"], 3) for r in steps] == printed
    assert all(r["lr"] == 0.01 for r in steps)


def test_finished_run_page(finished_run):
    run, _ = finished_run
    assert (run / "status.json").exists() and json.loads((run / "status.json").read_text())[
        "state"
    ] == "finished"
    page = (run / "report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert 'data-state="finished"' in page and "2 of 2 epochs done" in page
    assert 'http-equiv="refresh"' not in page
    # self-contained: no file or network fetched by the page
    assert not re.search(r'(src|href)="(?!#|data:)', page)
    for name in FASHION:
        assert name.replace("/", "/") in page
    assert "Total params: " + f"{lenet_params(1, 28):,}" in page  # the model summary
    assert "optimizer:" in page and "lr: 0.01" in page  # the config
    assert "numpy" in page and "python" in page  # machine and versions
    assert json.loads((run / "machine.json").read_text())["cpus"] >= 1


@pytest.mark.needs("matplotlib")
def test_finished_run_page_plots(finished_run):
    run, _ = finished_run
    page = (run / "report.html").read_text()
    # loss, accuracy, learning rate, speed, per-class bars, confusion matrix, mistakes
    assert page.count('<figure class="plot"><svg') == 7
    for title in (
        "Loss",
        "Test accuracy",
        "Learning rate",
        "Speed",
        "Accuracy per class",
        "Confusion matrix (test set)",
        "true class",
        "predicted class",
    ):
        assert title in page, title


def test_page_figures_agree_with_the_trainer(finished_run):
    run, _ = finished_run
    folder = read_run(run)
    ev = evaluate_run(folder)
    final = json.loads((run / "report.json").read_text())
    # the report evaluates the last checkpoint itself: it must find the trainer's numbers
    assert len(ev.labels) == final["test_images"] == 30
    assert ev.accuracy == pytest.approx(final["accuracy"])
    assert ev.accuracy == pytest.approx(folder.epochs[-1]["test_accuracy"])
    per_class = ev.per_class_accuracy()
    for i, name in enumerate(ev.classes):
        if name in final["per_class_accuracy"]:
            assert per_class[i] == pytest.approx(final["per_class_accuracy"][name]), name
    matrix = ev.confusion_matrix()
    assert matrix.sum() == 30 and np.trace(matrix) == round(final["accuracy"] * 30)
    # the listed mistakes are mistakes, most confident first
    page = (run / "report.html").read_text()
    listed = [
        int(i)
        for i in re.findall(
            r"<tr><td class=l>(\d+)</td><td>[^<]+</td><td>[^<]+</td><td>\d+\.\d</td></tr>", page
        )
    ]
    assert listed and len(listed) == min(24, int((ev.labels != ev.predicted).sum()))
    assert all(ev.labels[i] != ev.predicted[i] for i in listed)
    conf = ev.confidence[listed]
    assert all(conf[:-1] >= conf[1:])


def read_tensorboard_scalars(folder):
    """``{tag: [(step, value), ...]}`` from event files (TFRecord frames of Event protos)."""
    from tensorboardX.proto import event_pb2

    scalars = {}
    for path in sorted(folder.glob("events.out.tfevents.*")):
        data = path.read_bytes()
        pos = 0
        while pos < len(data):
            (length,) = struct.unpack("<Q", data[pos : pos + 8])
            event = event_pb2.Event.FromString(data[pos + 12 : pos + 12 + length])
            pos += 12 + length + 4
            for v in event.summary.value:
                scalars.setdefault(v.tag, []).append((event.step, v.simple_value))
    return scalars


def test_tensorboard_files(finished_run):
    pytest.importorskip("tensorboardX")
    run, _ = finished_run
    scalars = read_tensorboard_scalars(run / "tensorboard")
    lines = metrics_lines(run)
    steps = [r for r in lines if "step" in r]
    epochs = [r for r in lines if "step" not in r]
    assert [s for s, _ in scalars["train/running_loss"]] == [r["step"] for r in steps]
    assert [v for _, v in scalars["train/running_loss"]] == pytest.approx(
        [r["train_loss"] for r in steps]
    )
    assert [s for s, _ in scalars["test/accuracy"]] == [r["global_step"] for r in epochs]
    assert [v for _, v in scalars["test/accuracy"]] == pytest.approx(
        [r["test_accuracy"] for r in epochs]
    )
    assert {
        "train/loss",
        "test/loss",
        "lr",
        "speed/images_per_second",
        "speed/epoch_seconds",
    } <= set(scalars)


def test_nan_stopped_run_has_a_page_saying_so(nan_run):
    run, proc = nan_run
    assert proc.returncode == 3
    assert len(proc.stderr.strip().splitlines()) == 1  # the report adds nothing to the error
    status = json.loads((run / "status.json").read_text())
    assert (
        status["state"] == "nonfinite"
        and "the loss is nan at epoch 2, batch 3" in status["message"]
    )
    page = (run / "report.html").read_text()
    assert 'data-state="nonfinite"' in page and "Stopped: the loss became NaN or infinite" in page
    assert "the loss is nan at epoch 2, batch 3" in page
    assert f"python train.py --resume {run}" in page
    assert "1 of 2 epochs done" in page
    assert "The checkpoint after epoch 1" in page  # the last good checkpoint is evaluated


def test_running_page(running_page):
    page = running_page.read_text()
    assert 'data-state="running"' in page and "1 of 2 epochs done" in page
    assert '<meta http-equiv="refresh" content="30">' in page
    assert "The checkpoint after epoch 1" in page


def test_interrupted_run(tmp_path):
    from train_helpers import fashion_sections, make_config, write_idx_dataset

    from nnlite.report import TrainingObserver
    from nnlite.train import Trainer, load_config

    write_idx_dataset(tmp_path / "fm", n_train=16, n_test=8)
    cfg = load_config(make_config(tmp_path, epochs=3, log_every=100, **fashion_sections(tmp_path)))
    report = TrainingObserver()

    def interrupt_after_first_epoch(run_dir, state, message=None):
        if state == "running":
            raise KeyboardInterrupt

    trainer = Trainer(cfg, progress=False, observers=[report, interrupt_after_first_epoch])
    with pytest.raises(KeyboardInterrupt):
        trainer.fit()
    page = (Path(trainer.run_dir) / "report.html").read_text()
    assert 'data-state="interrupted"' in page and "Stopped by Ctrl-C (SIGINT)." in page
    assert "python train.py --resume" in page


def test_rebuild_and_compare_from_the_command_line(finished_run, tmp_path):
    run, _ = finished_run
    copy = tmp_path / "other-run"
    shutil.copytree(run, copy)
    (copy / "report.html").unlink()
    cfg = yaml.safe_load((copy / "config.yaml").read_text())
    cfg["optimizer"]["lr"] = 0.05
    (copy / "config.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    env_cmd = [sys.executable, "-m", "nnlite.report"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        env_cmd + [str(copy)], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(copy / "report.html") and (copy / "report.html").exists()

    out = tmp_path / "cmp.html"
    done = subprocess.run(
        env_cmd + [str(run), str(copy), "-o", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert "Comparison of 2 runs" in page and run.name in page and "other-run" in page
    assert re.search(r"<td class=l>optimizer\.lr</td><td>0\.01</td><td>0\.05</td>", page)

    bad = subprocess.run(
        env_cmd + [str(tmp_path / "nothing")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2 and "no such run folder" in bad.stderr


def test_without_matplotlib_the_page_has_tables(finished_run, tmp_path, monkeypatch):
    run, _ = finished_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    write_report(copy)
    page = (copy / "report.html").read_text()
    assert "<svg" not in page
    assert "pip install &#x27;nnlite[report]&#x27;" in page
    assert "true \\ predicted" in page and "Running training loss" in page
    assert page.count("<table>") >= 4


@pytest.mark.needs("matplotlib")
def test_comparison_page_plots(finished_run, tmp_path):
    run, _ = finished_run
    page = Path(write_comparison([run, run], tmp_path / "cmp.html")).read_text()
    assert page.count('<figure class="plot"><svg') == 5


@pytest.mark.parametrize("browser_found", [True, False])
def test_open_says_when_no_browser_was_found(
    finished_run, tmp_path, monkeypatch, capsys, browser_found
):
    import webbrowser

    from nnlite.report.__main__ import main

    run, _ = finished_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda uri: opened.append(uri) or browser_found)
    assert main([str(copy), "--open"], prog="nnlite report") == 0
    page = (copy / "report.html").resolve().as_uri()
    out, err = capsys.readouterr()
    assert opened == [page] and out == f"{copy / 'report.html'}\n"
    if browser_found:
        assert err == ""
    else:
        assert err == f"nnlite report: no web browser found; open {page} in one\n"


def test_comparison_rejects_a_folder_that_is_not_a_run(tmp_path):
    from nnlite.report import RunFolderError

    (tmp_path / "empty").mkdir()
    with pytest.raises(RunFolderError, match="no config.yaml"):
        write_comparison([tmp_path / "empty"], tmp_path / "x.html")


def test_observer_leaves_the_random_generators_alone(finished_run, tmp_path):
    import nnlite as nl
    from nnlite.report import TrainingObserver

    run, _ = finished_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "evaluation.npz").unlink()  # the observer builds and evaluates the model again
    nl.manual_seed(123)
    np.random.seed(5)
    expected = (nl.rand(3).tolist(), np.random.rand(2).tolist())
    nl.manual_seed(123)
    np.random.seed(5)
    TrainingObserver()(str(copy), "finished")
    assert (nl.rand(3).tolist(), np.random.rand(2).tolist()) == expected
    assert (copy / "evaluation.npz").exists()


def test_tensorboard_without_tensorboardx_warns_once_and_writes_the_page(
    finished_run, tmp_path, monkeypatch, capsys
):
    from nnlite.report import TrainingObserver

    run, _ = finished_run
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    (copy / "report.html").unlink()
    shutil.rmtree(copy / "tensorboard", ignore_errors=True)  # written if tensorboardX is installed
    monkeypatch.setitem(sys.modules, "tensorboardX", None)
    observer = TrainingObserver(background=False)  # tensorboardX hidden in this process only
    observer(str(copy), "running")
    observer(str(copy), "finished")
    err = capsys.readouterr().err
    assert (
        err.count("logging.tensorboard needs tensorboardX: pip install 'nnlite[tensorboard]'") == 1
    )
    assert (copy / "report.html").exists() and not (copy / "tensorboard").exists()
