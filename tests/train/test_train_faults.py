"""``train.py`` under hostile configs and faults, each built by the test: an alias bomb, an
import path naming a function, too many threads, SIGTERM, a full disk, a read-only folder,
non-finite gradients, evaluations and weights, a damaged checkpoint. The promise: one clear
``train.py: error:`` line (or warning), the documented exit code, and no checkpoint lost or
overwritten by a worse one."""

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest
from train_helpers import ROOT, TRAIN_PY, make_config, run_dirs, run_train

import nnlite as nl
from nnlite import serialization
from nnlite._runtime import atomic_file as atomic_writes
from nnlite.train import Trainer, load_config
from nnlite.train import config as config_module
from nnlite.train.cli import main
from nnlite.train.config import ConfigError


def checkpoint(run, name="last.npz"):
    return nl.load(run / "checkpoints" / name)


def assert_finite_weights(state):
    for key, value in state["model"].items():
        assert np.isfinite(value.numpy()).all(), key


def one_error_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("train.py: error: ") and "Traceback" not in stderr
    return lines[0]


def run_main(args, capsys):
    code = main([str(a) for a in args])
    return code, capsys.readouterr()


# ----------------------------------------------------------------------------------- config files


def billion_laughs():
    """A ~1.3 KB YAML config whose aliases expand to 10^10 strings: the anchors sit in
    ``model.args`` (any mapping is valid there) and ``epochs`` names the largest."""
    lines = [
        "model:",
        "  name: lenet",
        "  args:",
        '    laughs0: &laughs0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]',
    ]
    lines += [
        f"    laughs{i}: &laughs{i} [" + ", ".join([f"*laughs{i - 1}"] * 10) + "]"
        for i in range(1, 10)
    ]
    lines += [
        "data: {dataset: cifar10, batch_size: 4}",
        "optimizer: {name: sgd, lr: 0.1}",
        "epochs: *laughs9",
    ]
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_before_it_expands(tmp_path, monkeypatch):
    text = billion_laughs()
    assert 1000 < len(text) < 1400
    path = tmp_path / "bomb.yaml"
    path.write_text(text)

    constructed = []
    real = config_module._Loader.construct_document
    monkeypatch.setattr(
        config_module._Loader,
        "construct_document",
        lambda self, node: constructed.append(node) or real(self, node),
    )
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert not constructed  # refused from the node graph, before building any Python object
    message = str(info.value)
    assert "aliases expand to more than" in message and str(path) in message and len(message) < 300


def test_alias_bomb_on_the_command_line_is_one_line(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(billion_laughs())
    proc = run_train(path, cwd=tmp_path, timeout=60)
    assert proc.returncode == 2
    assert "aliases expand" in one_error_line(proc.stderr)
    proc = run_train(
        make_config(tmp_path),
        "--set",
        "epochs=" + billion_laughs().replace("\n", "; "),
        cwd=tmp_path,
        timeout=60,
    )
    assert proc.returncode == 2 and len(one_error_line(proc.stderr)) < 700


def test_recursive_alias_is_refused(tmp_path):
    path = tmp_path / "loop.yaml"
    path.write_text("model: {name: lenet, args: &a {inner: *a}}\nepochs: 1\n")
    with pytest.raises(ConfigError, match="contains itself"):
        load_config(path)


def test_shared_aliases_within_bounds_still_work(tmp_path):
    path = tmp_path / "aliases.yaml"
    path.write_text(
        textwrap.dedent("""
        model: {name: lenet}
        data:
          dataset: cifar10
          batch_size: 4
          train_transforms: &same [{name: to_tensor}, {name: normalize, mean: [0.5], std: [0.5]}]
          test_transforms: *same
        optimizer: {name: sgd, lr: 0.1}
        epochs: 1
    """)
    )
    assert load_config(path).to_dict()["data"]["test_transforms"][1] == {
        "name": "normalize",
        "mean": [0.5],
        "std": [0.5],
    }


@pytest.mark.parametrize(
    "value", ["x" * 1_000_000, ["y" * 1000] * 2000, {"k" * 5000: list(range(10000))}]
)
def test_error_messages_quote_little_of_a_huge_value(value):
    raw = {
        "model": {"name": "lenet"},
        "data": {"dataset": "cifar10", "batch_size": 4},
        "optimizer": {"name": "sgd", "lr": 0.1},
        "epochs": value,
    }
    with pytest.raises(ConfigError) as info:
        load_config(raw=raw)
    assert str(info.value).startswith("epochs: expected an integer")
    assert len(str(info.value)) < 300


def test_huge_unknown_names_are_quoted_short():
    raw = {
        "model": {"name": "lenet"},
        "data": {"dataset": "cifar10", "batch_size": 4},
        "optimizer": {"name": "z" * 100_000, "lr": 0.1},
        "epochs": 1,
    }
    with pytest.raises(ConfigError) as info:
        load_config(raw=raw)
    assert "unknown optimizer" in str(info.value) and len(str(info.value)) < 400


# ----------------------------------------------------------------------------------- import paths


@pytest.mark.parametrize(
    "target", ["os:system", "subprocess:call", "builtins:exec", "os:sep", "collections:OrderedDict"]
)
def test_import_path_must_name_a_module_class_before_anything_runs(tmp_path, cifar_root, target):
    marker = tmp_path / "PWNED"
    cfg = make_config(tmp_path, model={"name": target, "args": {"command": f"touch {marker}"}})
    proc = run_train(cfg, cwd=tmp_path)
    assert proc.returncode == 2
    line = one_error_line(proc.stderr)
    assert "model.name" in line and "not an nnlite.nn.Module subclass" in line
    assert not marker.exists()


def test_import_path_naming_a_function_is_refused(tmp_path, cifar_root):
    (tmp_path / "factories_for_test.py").write_text(
        textwrap.dedent("""
        from nnlite.models import LeNet

        def make():
            return LeNet()
    """)
    )
    proc = run_train(make_config(tmp_path, model={"name": "factories_for_test:make"}), cwd=tmp_path)
    assert (
        proc.returncode == 2
        and "'make' is a function, not an nnlite.nn.Module subclass" in proc.stderr
    )


# ----------------------------------------------------------------------------------- threads


def test_more_threads_than_cpus_warns_once_naming_the_count(tmp_path, cifar_root):
    cpus = os.cpu_count()
    before = nl.get_num_threads()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Trainer(load_config(make_config(tmp_path, threads=cpus + 3)), progress=False).fit()
    finally:
        nl.set_num_threads(before)
    about_threads = [w for w in caught if "threads" in str(w.message)]
    assert len(about_threads) == 1
    assert f"threads: {cpus + 3} is more than the {cpus} CPUs" in str(about_threads[0].message)


def test_threads_within_the_cpu_count_do_not_warn(tmp_path, cifar_root):
    before = nl.get_num_threads()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Trainer(load_config(make_config(tmp_path, threads=1)), progress=False).fit()
    finally:
        nl.set_num_threads(before)
    assert not [w for w in caught if "threads" in str(w.message)]


# ----------------------------------------------------------------------------------- SIGTERM

SLOW_MODEL = """
import time

from nnlite import nn


class Slow(nn.Module):
    \"\"\"A linear model that takes a while per training batch, so a signal finds it busy.\"\"\"

    def __init__(self, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, num_classes)

    def forward(self, x):
        if self.training:
            time.sleep(0.05)
        return self.fc(x.flatten(1))
"""


def test_sigterm_keeps_the_last_checkpoint_and_prints_the_resume_command(tmp_path, cifar_root):
    (tmp_path / "slow_model.py").write_text(SLOW_MODEL)
    cfg = make_config(tmp_path, epochs=50, model={"name": "slow_model:Slow"})
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, str(TRAIN_PY), str(cfg)],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 120
        last = None
        while time.monotonic() < deadline and proc.poll() is None:
            found = (
                list((tmp_path / "runs").glob("*/checkpoints/last.npz"))
                if (tmp_path / "runs").exists()
                else []
            )
            if found:
                last = found[0]
                break
            time.sleep(0.05)
        assert last is not None, "no checkpoint appeared"
        time.sleep(0.2)  # into the next epoch
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143, err
    (run,) = run_dirs(tmp_path / "runs")
    assert f"continue with: python train.py --resume {run}" in err and "Traceback" not in err
    state = checkpoint(run)
    assert state["epoch"] >= 1
    assert_finite_weights(state)
    assert not [p for p in (run / "checkpoints").iterdir() if p.name.endswith(".tmp")]


# ----------------------------------------------------------------------------------- full disk, read-only


def fail_writes_from(monkeypatch, nth, error):
    """Make the ``nth`` and later checkpoint writes (``nl.save`` to a path) raise ``error``."""
    real = serialization.write_npz
    calls = []

    def write(obj, fileobj):
        calls.append(1)
        if len(calls) >= nth:
            fileobj.write(b"partial")  # some bytes reach the temporary file first
            raise error
        return real(obj, fileobj)

    monkeypatch.setattr(serialization, "write_npz", write)


@pytest.mark.parametrize(
    "error",
    [
        OSError(errno.ENOSPC, "No space left on device"),
        OSError(errno.EROFS, "Read-only file system"),
    ],
    ids=["ENOSPC", "EROFS"],
)
def test_failed_checkpoint_write_is_one_line_and_keeps_the_previous(
    tmp_path, cifar_root, capsys, monkeypatch, error
):
    monkeypatch.chdir(tmp_path)
    fail_writes_from(monkeypatch, 2, error)  # epoch 1 is saved, epoch 2's write fails
    code, captured = run_main([make_config(tmp_path, epochs=3)], capsys)
    assert code == 1
    line = one_error_line(captured.err)
    assert error.strerror in line and "last.npz" in line and "previous checkpoint is kept" in line
    (run,) = run_dirs(tmp_path / "runs")
    monkeypatch.undo()
    state = checkpoint(run)
    assert state["epoch"] == 1
    assert_finite_weights(state)
    assert sorted(p.name for p in (run / "checkpoints").iterdir()) == ["best.npz", "last.npz"]


def test_read_only_output_dir_is_one_line(tmp_path, cifar_root, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "readonly"
    out.mkdir()
    out.chmod(0o555)
    if os.access(
        out, os.W_OK
    ):  # the superuser writes anywhere: make the folder refuse as a read-only mount does
        real_mkdir = os.mkdir

        def mkdir(path, *args, **kwargs):
            if os.fspath(path).startswith(str(out)):
                raise OSError(errno.EROFS, "Read-only file system", os.fspath(path))
            return real_mkdir(path, *args, **kwargs)

        monkeypatch.setattr(os, "mkdir", mkdir)
    try:
        code, captured = run_main([make_config(tmp_path, output_dir=str(out))], capsys)
    finally:
        out.chmod(0o755)
    assert code == 1
    line = one_error_line(captured.err)
    assert "cannot write the run directory" in line and str(out) in line
    assert not list(out.iterdir())


def test_read_only_run_directory_mid_run_keeps_the_checkpoint(
    tmp_path, cifar_root, capsys, monkeypatch
):
    """The run folder becomes read-only after epoch 1 (as when a disk is remounted read-only)."""
    monkeypatch.chdir(tmp_path)
    real_mkstemp = atomic_writes.tempfile.mkstemp
    saves = []

    def mkstemp(*args, **kwargs):
        if ".npz" in kwargs.get("prefix", ""):
            saves.append(1)
        if len(saves) > 2:  # epoch 1 wrote last.npz and best.npz
            raise OSError(errno.EROFS, "Read-only file system")
        return real_mkstemp(*args, **kwargs)

    monkeypatch.setattr(atomic_writes.tempfile, "mkstemp", mkstemp)
    code, captured = run_main([make_config(tmp_path, epochs=2)], capsys)
    assert code == 1
    assert "Read-only file system" in one_error_line(captured.err)
    monkeypatch.undo()
    (run,) = run_dirs(tmp_path / "runs")
    assert checkpoint(run)["epoch"] == 1 and checkpoint(run, "best.npz")["epoch"] == 1


# ----------------------------------------------------------------------------------- non-finite values

FAULTY_MODELS = """
import nnlite as nl
from nnlite import nn


class _InfGrad(nl.autograd.Function):
    \"\"\"Identity forward; backward multiplies the gradient by inf.\"\"\"

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad * float("inf")


class InfGradient(nn.Module):
    \"\"\"Finite outputs and loss always; the gradients become infinite at the ``bad_call``-th
    training forward.\"\"\"

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
                out = _InfGrad.apply(out)
        return out


class NanInEvaluation(nn.Module):
    \"\"\"Trains normally; its ``bad_eval``-th evaluation pass outputs NaN.\"\"\"

    def __init__(self, bad_eval, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, num_classes)
        self.eval_calls = 0
        self.bad_eval = bad_eval
        self.was_training = True

    def forward(self, x):
        out = self.fc(x.flatten(1))
        if not self.training:
            if self.was_training:
                self.eval_calls += 1
            if self.eval_calls == self.bad_eval:
                out = out * float("nan")
        self.was_training = self.training
        return out


class NanWeight(nn.Module):
    \"\"\"A spare parameter (unused by forward, so no gradient or output shows it) becomes NaN at
    the ``bad_call``-th training forward.\"\"\"

    def __init__(self, bad_call, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(3 * 32 * 32, num_classes)
        self.spare = nn.Parameter(nl.zeros(3))
        self.calls = 0
        self.bad_call = bad_call

    def forward(self, x):
        if self.training:
            self.calls += 1
            if self.calls == self.bad_call:
                with nl.no_grad():
                    self.spare.fill_(float("nan"))
        return self.fc(x.flatten(1))
"""


@pytest.mark.parametrize(
    "model, args, words",
    [
        # 10 mini-batches per epoch: the 13th training forward is epoch 2, batch 3
        ("InfGradient", {"bad_call": 13}, ["the gradient of fc.", "at epoch 2, batch 3"]),
        # evaluations: the model check before training, after epoch 1, after epoch 2
        ("NanInEvaluation", {"bad_eval": 3}, ["the evaluation gives", "at epoch 2, test batch 1"]),
        (
            "NanWeight",
            {"bad_call": 13},
            ["the weights spare hold non-finite values", "at epoch 2, batch 10"],
        ),
    ],
    ids=["inf-gradient", "nan-evaluation", "nan-weight"],
)
def test_non_finite_values_stop_before_anything_is_saved(tmp_path, cifar_root, model, args, words):
    (tmp_path / "faulty_models.py").write_text(FAULTY_MODELS)
    cfg = make_config(tmp_path, epochs=3, model={"name": f"faulty_models:{model}", "args": args})
    proc = run_train(cfg, cwd=tmp_path)
    assert proc.returncode == 3, proc.stderr
    line = one_error_line(proc.stderr)
    for w in words:
        assert w in line, line
    assert "the last good checkpoint" in line
    (run,) = run_dirs(tmp_path / "runs")
    for name in ("last.npz", "best.npz"):
        state = checkpoint(run, name)
        assert state["epoch"] == 1
        assert_finite_weights(state)


def test_nan_gradient_from_a_finite_loss_never_reaches_the_weights(tmp_path, cifar_root):
    """In-process: the optimizer never steps with the bad gradient."""
    import importlib

    (tmp_path / "faulty_models_inproc.py").write_text(FAULTY_MODELS)
    sys.path.insert(0, str(tmp_path))
    try:
        importlib.invalidate_caches()
        cfg = load_config(
            make_config(
                tmp_path,
                epochs=1,
                model={"name": "faulty_models_inproc:InfGradient", "args": {"bad_call": 4}},
            )
        )
        trainer = Trainer(cfg, progress=False)
        from nnlite.train import NonFiniteLossError

        with pytest.raises(NonFiniteLossError, match="at epoch 1, batch 4"):
            trainer.fit()
        assert np.isfinite(trainer.model.fc.weight.detach().numpy()).all()
    finally:
        sys.path.remove(str(tmp_path))


# ----------------------------------------------------------------------------------- damaged checkpoint


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty"])
def test_damaged_checkpoint_on_resume_is_one_line(tmp_path, cifar_root, damage):
    cfg = make_config(tmp_path, epochs=2)
    run_train(cfg, "--set", "epochs=1", cwd=tmp_path, check=0)
    (run,) = run_dirs(tmp_path / "runs")
    last = run / "checkpoints" / "last.npz"
    data = last.read_bytes()
    last.write_bytes(
        {"truncate": data[: len(data) // 2], "garbage": os.urandom(len(data)), "empty": b""}[damage]
    )
    proc = run_train("--resume", run, cwd=tmp_path)
    assert proc.returncode == 1
    line = one_error_line(proc.stderr)
    assert "last.npz" in line
