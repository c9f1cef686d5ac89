"""``train.py`` end to end on small datasets in the real file formats: run directory, printed
lines, metrics, checkpoints, report; custom models; a loss that becomes NaN; progress bars;
DataParallel and MPI."""

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import yaml
from train_helpers import ROOT, fashion_sections, make_config, run_dirs, run_train

import nnlite as nl
from nnlite.train import Trainer, load_config

METRIC_KEYS = {
    "epoch",
    "train_loss",
    "test_loss",
    "test_accuracy",
    "epoch_seconds",
    "images_per_second",
    "lr",
}


def read_metrics(run):
    """The per-epoch lines of metrics.jsonl (the per-step lines of the running loss have a "step" key)."""
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in lines if "step" not in r]


def model_arrays(path):
    state = nl.load(path)
    return {k: v.numpy() for k, v in state["model"].items()}


def test_cifar10_end_to_end(tmp_path, cifar_root):
    cfg_path = make_config(tmp_path)
    proc = run_train(cfg_path, cwd=tmp_path, check=0)
    out = proc.stdout
    # 5 batches of 8 images, batch size 4: 10 mini-batches, a running-loss line every 2
    assert re.findall(r"^\[1, +(\d+)\] loss: \d+\.\d{3}$", out, re.M) == ["2", "4", "6", "8", "10"]
    assert "[1,     2] loss: " in out
    assert re.search(r"^Accuracy of the network on the 10 test images: \d+ %$", out, re.M)
    per_class = re.findall(r"^Accuracy for class: (\S+) +is +(\d+\.\d) %$", out, re.M)
    assert per_class and all(
        name
        in (
            "airplane",
            "automobile",
            "bird",
            "cat",
            "deer",
            "dog",
            "frog",
            "horse",
            "ship",
            "truck",
        )
        for name, _ in per_class
    )
    assert "Finished Training" in out

    (run,) = run_dirs(tmp_path / "runs")
    assert re.fullmatch(r"t-\d{8}-\d{6}", run.name)
    assert out.count(f"Run directory: {run}") == 2  # printed at the start and at the end
    assert (tmp_path / "runs" / "t-latest").resolve() == run.resolve()

    saved = yaml.safe_load((run / "config.yaml").read_text())
    assert saved == load_config(cfg_path).to_dict()

    (record,) = read_metrics(run)
    assert METRIC_KEYS <= set(record)
    assert record["epoch"] == 1 and 0.0 <= record["test_accuracy"] <= 1.0
    assert record["lr"] == 0.01 and record["images_per_second"] > 0 and record["epoch_seconds"] > 0

    report = json.loads((run / "report.json").read_text())
    assert {"accuracy", "per_class_accuracy", "epochs", "test_loss", "seconds"} <= set(report)
    assert report["accuracy"] == record["test_accuracy"] and report["epochs"] == 1
    assert set(report["per_class_accuracy"]) == {name for name, _ in per_class}
    assert all(0.0 <= v <= 1.0 for v in report["per_class_accuracy"].values())
    assert re.search(rf"test images: {100 * round(report['accuracy'] * 10) // 10} %", out)

    for name in ("last.npz", "best.npz"):
        state = nl.load(run / "checkpoints" / name)
        assert state["epoch"] == 1 and state["global_step"] == 10
        assert set(state) >= {
            "model",
            "optimizer",
            "scheduler",
            "rng",
            "best_accuracy",
            "epoch",
            "global_step",
        }
        json.dumps(state["rng"])  # JSON-able generator states
        assert set(state["rng"]) == {"nnlite", "numpy", "python"}
        model = nl.models.get_model("lenet", in_channels=3, num_classes=10)
        model.load_state_dict(state["model"])  # a plain model, no "module." prefix
    assert not list((run / "checkpoints").glob("*.tmp"))


def test_fashion_mnist_idx_with_workers_and_scheduler(tmp_path, fashion_root):
    secs = fashion_sections(tmp_path, num_workers=2)
    cfg_path = make_config(
        tmp_path,
        epochs=2,
        log_every=4,
        scheduler={"name": "step", "step_size": 1, "gamma": 0.5},
        **secs,
    )
    proc = run_train(cfg_path, cwd=tmp_path, check=0)
    (run,) = run_dirs(tmp_path / "runs")
    records = read_metrics(run)
    assert [r["epoch"] for r in records] == [1, 2]
    assert [r["lr"] for r in records] == [0.01, 0.005]
    assert "Accuracy of the network on the 20 test images" in proc.stdout
    assert (
        "Accuracy for class: T-shirt/top" in proc.stdout
        or "Accuracy for class: Trouser" in proc.stdout
    )
    state = nl.load(run / "checkpoints" / "last.npz")
    assert state["epoch"] == 2 and state["scheduler"]["last_epoch"] == 2


def test_same_seed_same_weights_in_process(tmp_path, fashion_root):
    cfg = load_config(make_config(tmp_path, **fashion_sections(tmp_path)))
    Trainer(cfg, progress=False).fit()
    Trainer(cfg, progress=False).fit()
    a, b = run_dirs(tmp_path / "runs")
    wa, wb = (
        model_arrays(a / "checkpoints" / "last.npz"),
        model_arrays(b / "checkpoints" / "last.npz"),
    )
    assert all(np.array_equal(wa[k], wb[k]) for k in wa)


def test_progress_bars(tmp_path, fashion_root, capsys):
    cfg = load_config(make_config(tmp_path, log_every=3, **fashion_sections(tmp_path)))
    report = Trainer(cfg, progress=True).fit()
    captured = capsys.readouterr()
    assert "img/s" in captured.err and "loss" in captured.err and "epoch 1/1" in captured.err
    assert "[1,     3] loss:" in captured.out
    assert 0.0 <= report["accuracy"] <= 1.0


def test_custom_model_from_user_module(tmp_path, cifar_root):
    pkg = tmp_path / "my_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "models.py").write_text(
        textwrap.dedent("""
        import nnlite as nl
        from nnlite import nn


        class MyNet(nn.Module):
            def __init__(self, hidden, num_classes=10):
                super().__init__()
                self.fc1 = nn.Linear(3 * 32 * 32, hidden)
                self.fc2 = nn.Linear(hidden, num_classes)

            def forward(self, x):
                return self.fc2(nn.functional.relu(self.fc1(x.flatten(1))))
    """)
    )
    cfg_path = make_config(tmp_path, model={"name": "my_pkg.models:MyNet", "args": {"hidden": 12}})
    run_train(cfg_path, cwd=tmp_path, check=0)
    (run,) = run_dirs(tmp_path / "runs")
    weights = model_arrays(run / "checkpoints" / "last.npz")
    assert weights["fc1.weight"].shape == (12, 3072)

    bad = run_train(
        make_config(tmp_path, model={"name": "my_pkg.models:MyNet", "args": {"hiden": 12}}),
        cwd=tmp_path,
    )
    assert bad.returncode == 2
    assert "model.args.hiden" in bad.stderr and "did you mean 'hidden'" in bad.stderr
    missing = run_train(make_config(tmp_path, model={"name": "my_pkg.models:MyNet"}), cwd=tmp_path)
    assert (
        missing.returncode == 2
        and "model.args.hidden: missing required argument of MyNet" in missing.stderr
    )
    typo = run_train(make_config(tmp_path, model={"name": "my_pkg.models:MyNett"}), cwd=tmp_path)
    assert (
        typo.returncode == 2 and "has no attribute 'MyNett'; did you mean 'MyNet'?" in typo.stderr
    )


def test_model_output_must_match_classes(tmp_path, cifar_root):
    proc = run_train(
        make_config(
            tmp_path, model={"name": "lenet", "args": {"in_channels": 3, "num_classes": 7}}
        ),
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "10 classes" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_train(
        make_config(
            tmp_path, model={"name": "lenet", "args": {"in_channels": 1, "num_classes": 10}}
        ),
        cwd=tmp_path,
    )
    assert proc.returncode == 1 and "cannot take the dataset's images" in proc.stderr


def test_missing_dataset_is_a_clean_error(tmp_path):
    proc = run_train(make_config(tmp_path), cwd=tmp_path)
    assert proc.returncode == 1
    assert (
        proc.stderr.startswith("train.py: error: data (cifar10 in")
        and len(proc.stderr.strip().splitlines()) == 1
    )
    # offline, the way to a first run on data the machine may have
    assert (
        "To train now on Fashion-MNIST files instead: python train.py "
        "configs/lenet_fashion_mnist.yaml --set data.root=FOLDER" in proc.stderr
    )


NAN_MODEL = """
import nnlite as nl
from nnlite import nn


class Exploding(nn.Module):
    \"\"\"A linear model whose output becomes NaN at its ``bad_call``-th training forward.\"\"\"

    def __init__(self, bad_call, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, num_classes)
        self.calls = 0
        self.bad_call = bad_call

    def forward(self, x):
        out = self.fc(x.flatten(1))
        if self.training:
            self.calls += 1
            if self.calls == self.bad_call:
                out = out * float("nan")
        return out
"""


def test_nan_loss_stops_with_epoch_and_batch(tmp_path, cifar_root):
    (tmp_path / "exploding.py").write_text(NAN_MODEL)
    # 10 mini-batches per epoch: the 13th forward is epoch 2, batch 3
    cfg_path = make_config(
        tmp_path, epochs=3, model={"name": "exploding:Exploding", "args": {"bad_call": 13}}
    )
    proc = run_train(cfg_path, cwd=tmp_path)
    assert proc.returncode == 3
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and "Traceback" not in line
    assert "the loss is nan at epoch 2, batch 3" in line and "last good checkpoint" in line
    (run,) = run_dirs(tmp_path / "runs")
    assert nl.load(run / "checkpoints" / "last.npz")["epoch"] == 1
    assert [r["epoch"] for r in read_metrics(run)] == [1]
    assert not (run / "report.json").exists()


def test_data_parallel_workers(tmp_path, fashion_root):
    if not hasattr(nl.nn, "DataParallel"):
        pytest.skip("nl.nn.DataParallel is not available")
    secs = fashion_sections(tmp_path)
    cfg_path = make_config(tmp_path, parallel={"workers": 2}, **secs)
    run_train(cfg_path, cwd=tmp_path, check=0)
    plain_path = make_config(tmp_path, name="plain", output_dir=str(tmp_path / "plain"), **secs)
    run_train(plain_path, cwd=tmp_path, check=0)
    (run,) = run_dirs(tmp_path / "runs")
    (plain,) = run_dirs(tmp_path / "plain")
    par, ref = (
        model_arrays(run / "checkpoints" / "last.npz"),
        model_arrays(plain / "checkpoints" / "last.npz"),
    )
    assert set(par) == set(ref) and not any(k.startswith("module.") for k in par)
    for k in ref:  # same training within float32 rounding
        np.testing.assert_allclose(par[k], ref[k], rtol=1e-3, atol=1e-4)


def _have_mpi():
    if shutil.which("mpirun") is None:
        return False
    import importlib.util

    return importlib.util.find_spec("mpi4py") is not None


def _mpirun(args, cwd):
    import os

    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_rmaps_base_oversubscribe="1",
    )
    proc = subprocess.run(
        ["mpirun", "-n", "2", sys.executable, str(ROOT / "train.py"), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


@pytest.mark.skipif(not _have_mpi(), reason="needs mpirun and mpi4py")
def test_mpi_two_ranks_and_resume(tmp_path, fashion_root):
    secs = fashion_sections(
        tmp_path, train_transforms=[{"name": "random_horizontal_flip"}, {"name": "to_tensor"}]
    )
    cfg_path = make_config(tmp_path, parallel={"backend": "mpi"}, epochs=2, **secs)
    proc = _mpirun([cfg_path], tmp_path)
    (run,) = run_dirs(tmp_path / "runs")  # one run directory, written by rank 0
    assert proc.stdout.count("Finished Training") == 1
    assert (
        "Accuracy of the network on the 20 test images" in proc.stdout
    )  # counts summed over the ranks
    report = json.loads((run / "report.json").read_text())
    assert len(report["per_class_accuracy"]) > 0
    model = nl.models.get_model("lenet", in_channels=1, num_classes=10, input_size=28)
    model.load_state_dict(nl.load(run / "checkpoints" / "last.npz")["model"])  # plain keys
    # 64 images over 2 ranks, batch 8: 4 steps per epoch
    assert nl.load(run / "checkpoints" / "last.npz")["global_step"] == 8

    one = make_config(
        tmp_path,
        name="one",
        parallel={"backend": "mpi"},
        epochs=1,
        output_dir=str(tmp_path / "one"),
        **secs,
    )
    _mpirun([one], tmp_path)
    (part,) = run_dirs(tmp_path / "one")
    _mpirun([one, "--set", "epochs=2", "--resume", part], tmp_path)
    a, b = (
        nl.load(run / "checkpoints" / "last.npz")["model"],
        nl.load(part / "checkpoints" / "last.npz")["model"],
    )
    assert all(a[k].numpy().tobytes() == b[k].numpy().tobytes() for k in a)


def test_threads_key_sets_nnlite_threads(tmp_path, cifar_root):
    from nnlite.train import Trainer, load_config

    before = nl.get_num_threads()
    try:
        nl.set_num_threads(2)
        Trainer(load_config(make_config(tmp_path, threads=1)), progress=False).fit()
        assert nl.get_num_threads() == 1
    finally:
        nl.set_num_threads(before)


def test_run_files_follow_the_umask(tmp_path, fashion_root):
    # 0o027: neither the 0o600 of a temporary file nor a fixed 0o644 passes by chance
    cfg = make_config(tmp_path, epochs=2, **fashion_sections(tmp_path))
    old = os.umask(0o027)
    try:
        run_train(cfg, cwd=tmp_path, check=0)
    finally:
        os.umask(old)
    (run,) = run_dirs(tmp_path / "runs")
    modes = {
        str(path.relative_to(run)): oct(stat.S_IMODE(path.lstat().st_mode))
        for path in [run, *run.rglob("*")]
    }
    expected = {name: oct(0o750 if (run / name).is_dir() else 0o640) for name in modes}
    assert {"config.yaml", "report.json", "checkpoints/best.npz"} <= set(modes)
    assert modes == expected
