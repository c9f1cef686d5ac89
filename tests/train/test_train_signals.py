"""Ctrl-C and SIGTERM during training, sent by the test at chosen moments: the run stops between
batches, keeps its last checkpoint, writes ``status.json`` naming the signal and exits with
128 + the signal's number (130, 143), never with a crash and never carrying on; a second signal
while stopping ends the process at once."""

import json
import os
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest
from train_helpers import ROOT, TRAIN_PY, make_config, run_dirs

import nnlite as nl
from nnlite.train import Trainer, load_config
from nnlite.train.signals import Stopped, check_stop, requested_signal, stop_on_signals

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
            time.sleep(0.03)
        return self.fc(x.flatten(1))
"""

# train.py's main with an observer that takes its time once the run is stopping, so that a
# second signal arrives while the first is being handled.
SLOW_STOP_SCRIPT = """
import sys
import time

from nnlite.train.cli import main


def slow_when_stopping(run_dir, state, message=None):
    if state == "interrupted":
        print("stopping", flush=True)
        time.sleep(30)


sys.exit(main(observers=[slow_when_stopping]))
"""


def _default_sigint():
    # pytest may run with SIGINT ignored (a background job): the child gets the normal Ctrl-C
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(tmp_path, *args, script=TRAIN_PY):
    (tmp_path / "slow_model.py").write_text(SLOW_MODEL)
    cfg = make_config(tmp_path, epochs=50, model={"name": "slow_model:Slow"})
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, str(script), str(cfg), *args],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_default_sigint,
    )


def _wait_for(proc, found, timeout=120):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        if found():
            return
        time.sleep(0.01)
    raise AssertionError(f"the run ended or timed out first (exit {proc.poll()})")


def _stop(proc, signum, timeout=60):
    proc.send_signal(signum)
    try:
        return proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _checkpoints(tmp_path):
    runs = tmp_path / "runs"
    found = [run / "checkpoints" / "last.npz" for run in run_dirs(runs)] if runs.exists() else []
    return [path for path in found if path.exists()]


def _status(run):
    return json.loads((run / "status.json").read_text())


EXPECTED = {
    signal.SIGTERM: (143, "Stopped by SIGTERM.", "terminated"),
    signal.SIGINT: (130, "Stopped by Ctrl-C (SIGINT).", "interrupted"),
}


@pytest.mark.parametrize(
    "signum, delay",
    [
        pytest.param(signal.SIGTERM, 0.0, id="SIGTERM-at-first-checkpoint"),
        pytest.param(signal.SIGINT, 0.4, id="SIGINT-after-it"),
    ],
)
def test_a_signal_after_the_first_checkpoint_stops_the_run_with_its_exit_code(
    tmp_path, cifar_root, signum, delay
):
    # the moment right after the first checkpoint is when the report page is written
    proc = _start(tmp_path)
    _wait_for(proc, lambda: _checkpoints(tmp_path))
    time.sleep(delay)
    out, err = _stop(proc, signum)
    code, message, word = EXPECTED[signum]
    assert proc.returncode == code, err
    (run,) = run_dirs(tmp_path / "runs")
    assert f"train.py: {word}; continue with: python train.py --resume {run}" in err
    assert "Traceback" not in err and "Exception ignored" not in err
    name = signal.Signals(signum).name
    assert f"{name}: stopping after the current batch ({name} again: at once)" in err
    status = _status(run)
    assert status["state"] == "interrupted" and status["message"] == message
    state = nl.load(run / "checkpoints" / "last.npz")
    assert state["epoch"] >= 1
    assert not [p for p in (run / "checkpoints").iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "signum, code",
    [(signal.SIGINT, 130), (signal.SIGTERM, -signal.SIGTERM)],
    ids=["SIGINT-raises-KeyboardInterrupt", "SIGTERM-kills"],
)
def test_a_second_signal_while_stopping_ends_the_process_at_once(
    tmp_path, cifar_root, signum, code
):
    script = tmp_path / "train_slow_stop.py"
    script.write_text(SLOW_STOP_SCRIPT)
    proc = _start(tmp_path, script=script)
    _wait_for(proc, lambda: _checkpoints(tmp_path))
    proc.send_signal(signum)
    line = proc.stdout.readline()
    while line and line.strip() != "stopping":
        line = proc.stdout.readline()
    assert line.strip() == "stopping"
    t0 = time.monotonic()
    _, err = _stop(proc, signum, timeout=20)
    assert time.monotonic() - t0 < 10  # not after the observer's 30 s
    assert proc.returncode == code, err
    assert f"{signal.Signals(signum).name} again: stopping at once" in err
    (last,) = _checkpoints(tmp_path)
    assert nl.load(last)["epoch"] >= 1


# ----------------------------------------------------------------------------------- MPI

# train.py's main writing only status.json (the page is not the point here), and a slow model
# that leaves each rank's pid in a file
STATUS_ONLY_SCRIPT = """
import sys

from nnlite.report.status import write_status
from nnlite.train.cli import main

sys.exit(main(observers=[write_status]))
"""

SLOW_RANK_MODEL = SLOW_MODEL.replace(
    "super().__init__()",
    """super().__init__()
        import os
        from mpi4py import MPI

        with open(f"rank{MPI.COMM_WORLD.Get_rank()}.pid", "w") as f:
            f.write(str(os.getpid()))""",
)


def test_sigterm_to_one_mpi_rank_stops_every_rank_at_the_same_batch(tmp_path, cifar_root):
    sys.path.insert(0, str(ROOT / "tests" / "nn" / "parallel"))
    from test_distributed import mpi_env, require_mpi

    prefix = require_mpi()
    (tmp_path / "slow_rank.py").write_text(SLOW_RANK_MODEL)
    (tmp_path / "train_status.py").write_text(STATUS_ONLY_SCRIPT)
    cfg = make_config(
        tmp_path, epochs=50, model={"name": "slow_rank:Slow"}, parallel={"backend": "mpi"}
    )
    env = dict(mpi_env(), PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        prefix + ["-n", "2", sys.executable, str(tmp_path / "train_status.py"), str(cfg)],
        cwd=tmp_path,
        env=env,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        _wait_for(proc, lambda: _checkpoints(tmp_path) and (tmp_path / "rank1.pid").exists())
        time.sleep(0.3)
        os.kill(int((tmp_path / "rank1.pid").read_text()), signal.SIGTERM)  # rank 1 only
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    # rank 0, which got no signal, stopped with rank 1 instead of waiting for it in a collective
    assert proc.returncode == 143, err
    (run,) = run_dirs(tmp_path / "runs")
    assert _status(run) == {
        **_status(run),
        "state": "interrupted",
        "message": "Stopped by SIGTERM.",
    }
    assert nl.load(run / "checkpoints" / "last.npz")["epoch"] >= 1


# ----------------------------------------------------------------------------------- in-process


def _fashion_config(tmp_path, **extra):
    from train_helpers import fashion_sections, write_idx_dataset

    write_idx_dataset(tmp_path / "fm", n_train=32, n_test=8)
    return load_config(make_config(tmp_path, epochs=2, log_every=100, **fashion_sections(tmp_path)))


class _SignalFromGarbageCollection:
    """Sends ``signum`` to this process from a weakref callback after ``n`` forward calls: the
    handler runs inside the callback, where an exception would only be printed and dropped."""

    def __init__(self, signum, n):
        self.signum, self.n, self.calls = signum, n, 0

    def __call__(self, module, args):
        self.calls += 1
        if self.calls == self.n:

            class Garbage:
                pass

            g = Garbage()
            weakref.finalize(g, os.kill, os.getpid(), self.signum)
            del g


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_sigterm_inside_a_weakref_callback_still_stops_the_run(tmp_path):
    cfg = _fashion_config(tmp_path)
    states = []
    trainer = Trainer(cfg, progress=False, observers=[lambda d, s, m=None: states.append((s, m))])
    original = Trainer._setup

    def setup(self):
        original(self)
        self.model.register_forward_pre_hook(_SignalFromGarbageCollection(signal.SIGTERM, 2))

    Trainer._setup = setup
    try:
        with pytest.raises(Stopped) as info:
            trainer.fit()
    finally:
        Trainer._setup = original
    assert info.value.signum == signal.SIGTERM and info.value.exit_code == 143
    assert states == [("interrupted", "Stopped by SIGTERM.")]
    assert not Path(trainer.run_dir, "checkpoints", "last.npz").exists()
    assert requested_signal() is None  # the handlers are gone with the run


def test_ctrl_c_while_the_run_is_set_up_stops_it_before_the_first_batch(tmp_path, monkeypatch):
    from nnlite.train import trainer as trainer_module

    real = trainer_module.build_datasets

    def build_datasets_then_ctrl_c(data):
        sets = real(data)
        os.kill(os.getpid(), signal.SIGINT)  # while the datasets load: recorded, nothing raised
        return sets

    monkeypatch.setattr(trainer_module, "build_datasets", build_datasets_then_ctrl_c)
    states = []
    trainer = Trainer(
        _fashion_config(tmp_path), progress=False, observers=[lambda d, s, m=None: states.append(m)]
    )
    # Python's own Ctrl-C handling, even when the tests run with SIGINT ignored (a background job)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(Stopped) as info:
            trainer.fit()
    finally:
        signal.signal(signal.SIGINT, before)
    assert info.value.exit_code == 130 and states == ["Stopped by Ctrl-C (SIGINT)."]
    assert trainer.global_step == 0


def test_the_handlers_are_restored_and_an_ignored_sigint_stays_ignored():
    before_int, before_term = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with stop_on_signals():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not before_term
            check_stop()
        assert signal.getsignal(signal.SIGTERM) is before_term
    finally:
        signal.signal(signal.SIGINT, before_int)
