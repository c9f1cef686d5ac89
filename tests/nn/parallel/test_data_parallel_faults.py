"""DataParallel faults: worker exceptions, killed workers, timeouts, and clean-up of processes and
shared memory after close(), ``with``, garbage collection, KeyboardInterrupt and interpreter exit."""

import gc
import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest
from interrupts import default_sigint

import nnlite as nl
from nnlite import nn
from nnlite.nn.parallel._pool import WorkerError

REPO = os.path.dirname(os.path.dirname(os.path.abspath(nl.__file__)))


def segments(pid=None):
    """Named shared segments of DataParallel in ``/dev/shm`` (its segments have no name, so none:
    a name that appeared could be left behind by a killed process)."""
    pid = os.getpid() if pid is None else pid
    return sorted(n for n in os.listdir("/dev/shm") if n.startswith(f"nldp_{pid}_"))


def mapped():
    """The anonymous shared memory files mapped in this process (DataParallel's segments)."""
    with open("/proc/self/maps") as f:
        return sorted({line.split()[-3] for line in f if "/memfd:nnlite_shared" in line})


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def assert_clean(pids=()):
    assert multiprocessing.active_children() == []
    assert segments() == []
    assert not [p for p in pids if alive(p)]


@pytest.fixture(autouse=True)
def clean_before_and_after():
    assert segments() == []
    yield
    gc.collect()
    assert_clean()


class Faulty(nn.Module):
    """Raises in forward (``bad`` rows present) or in backward (``mode == "backward"``); sleeps
    when asked to."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x, mode="ok", sleep=0.0):
        if sleep:
            time.sleep(sleep)
        if mode == "forward" and float(x.detach().numpy()[:, 0].max()) > 100:
            raise ValueError(f"bad input row in a chunk of {x.shape[0]}")
        out = self.fc(x)
        if mode == "backward":
            out = FailingBackward.apply(out)
        return out


class FailingBackward(nl.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 1

    @staticmethod
    def backward(ctx, grad):
        raise ArithmeticError("backward blew up in the replica")


class Unpicklable(Faulty):
    def __init__(self):
        super().__init__()
        self.hook = lambda: None  # a lambda cannot be pickled


def test_exception_in_worker_forward_is_reraised_with_traceback():
    with nn.DataParallel(Faulty(), workers=2) as dp:
        x = nl.zeros(6, 3)
        x[5, 0] = 1000.0  # only the second chunk fails
        with pytest.raises(ValueError) as info:
            dp(x, mode="forward")
        msg = str(info.value)
        assert "Caught ValueError in DataParallel worker 1 (forward)" in msg
        assert "Traceback (most recent call last)" in msg
        assert "bad input row in a chunk of 3" in msg and "in forward" in msg
        # the workers survive an exception in user code
        pids = dp.pids
        assert dp(nl.zeros(6, 3)).shape == (6, 2)
        assert dp.pids == pids


def test_exception_in_worker_backward_is_reraised():
    with nn.DataParallel(Faulty(), workers=2) as dp:
        out = dp(nl.randn(4, 3), mode="backward")
        with pytest.raises(ArithmeticError, match="backward blew up in the replica"):
            out.sum().backward()
        assert dp(nl.randn(4, 3)).shape == (4, 2)


def test_killed_worker_gives_a_clear_error_within_seconds():
    dp = nn.DataParallel(Faulty(), workers=2)
    dp(nl.randn(4, 3))
    pids = dp.pids
    os.kill(pids[1], signal.SIGKILL)
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match=r"worker 1 \(pid \d+\) was killed by signal SIGKILL"):
        dp(nl.randn(4, 3))
    assert time.monotonic() - t0 < 5
    assert_clean(pids)
    # the next call starts new workers
    assert dp(nl.randn(4, 3)).shape == (4, 2)
    assert dp.pids and dp.pids != pids
    dp.close()


def test_worker_killed_during_a_step():
    dp = nn.DataParallel(Faulty(), workers=2)
    dp(nl.randn(4, 3))
    pids = dp.pids
    killer = threading.Timer(0.3, os.kill, (pids[0], signal.SIGKILL))
    killer.start()
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match="worker 0 .* during forward"):
        dp(nl.randn(4, 3), sleep=30)
    assert time.monotonic() - t0 < 5
    killer.join()
    assert_clean(pids)


def test_timeout_shuts_down_the_workers():
    dp = nn.DataParallel(Faulty(), workers=2, timeout=0.5)
    dp(nl.randn(4, 3))
    pids = dp.pids
    t0 = time.monotonic()
    with pytest.raises(WorkerError, match="did not finish its forward within 0.5 seconds"):
        dp(nl.randn(4, 3), sleep=30)
    assert time.monotonic() - t0 < 6
    assert_clean(pids)


def test_backward_after_workers_restarted_raises():
    dp = nn.DataParallel(Faulty(), workers=2)
    out = dp(nl.randn(4, 3))
    dp.close()
    with pytest.raises(RuntimeError, match="were shut down"):
        out.sum().backward()


def test_close_with_and_garbage_collection_leave_nothing():
    dp = nn.DataParallel(Faulty(), workers=2)
    dp(nl.randn(4, 3))
    pids = dp.pids
    assert len(mapped()) > 0 and all(alive(p) for p in pids)
    dp.close()
    assert_clean(pids)
    dp.close()  # idempotent

    with nn.DataParallel(Faulty(), workers=2) as dp:
        dp(nl.randn(4, 3)).sum().backward()
        pids = dp.pids
    assert_clean(pids)

    model = Faulty()
    dp = nn.DataParallel(model, workers=2)
    out = dp(nl.randn(4, 3))
    pids = dp.pids
    del dp, out
    gc.collect()
    assert_clean(pids)
    # the module keeps working on private memory
    assert model(nl.randn(2, 3)).shape == (2, 2)


def test_keyboard_interrupt_during_a_step_leaves_nothing():
    dp = nn.DataParallel(Faulty(), workers=2)
    dp(nl.randn(4, 3))
    pids = dp.pids

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(KeyboardInterrupt):
            dp(nl.randn(4, 3), sleep=30)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert_clean(pids)
    assert dp(nl.randn(4, 3)).shape == (4, 2)  # usable again
    dp.close()


def test_spawned_workers_when_fork_is_unsafe():
    model = Faulty()
    x = nl.randn(5, 3)
    with nn.DataParallel(model, workers=2, start_method="forkserver") as dp:
        out = dp(x)
        out.sum().backward()
        assert dp._runtime.pool.start_method == "forkserver"
        np.testing.assert_allclose(
            out.detach().numpy(), model(x).detach().numpy(), rtol=1e-5, atol=1e-6
        )
    with pytest.raises(RuntimeError, match="picklable module"):
        nn.DataParallel(Unpicklable(), workers=2, start_method="forkserver")(x)


def run_script(body, folder, timeout=60, wait=True, new_session=False, preexec_fn=None):
    code = textwrap.dedent(f"""
        import os, sys, time
        sys.path.insert(0, {REPO!r})
        import nnlite as nl
        from nnlite import nn

        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = nn.Linear(3, 2)

            def forward(self, x, sleep=0.0):
                time.sleep(sleep)
                return self.fc(x)

        class ConvNet(nn.Module):  # runs numba's parallel kernels in the workers
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 2, 3)
                self.pool = nn.MaxPool2d(2)

            def forward(self, x):
                return self.pool(self.conv(x)).flatten(1)

        if __name__ == "__main__":
    """) + textwrap.indent(textwrap.dedent(body), "    ")
    script = folder / "script.py"  # a file, not -c: a fork server imports the main module
    script.write_text(code)
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=new_session,
        preexec_fn=preexec_fn,
    )
    if not wait:
        return proc
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err
    return proc, out, err


def _wait_gone(pid, pids, timeout=10):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not segments(pid) and not [p for p in pids if alive(p)]:
            return
        time.sleep(0.1)
    raise AssertionError(
        f"left behind: segments {segments(pid)}, processes {[p for p in pids if alive(p)]}"
    )


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_interpreter_exit_leaves_nothing(method, tmp_path):
    proc, out, err = run_script(
        f"""
        dp = nn.DataParallel(Net(), workers=2, start_method={method!r})
        dp(nl.randn(4, 3)).sum().backward()
        conv = nn.DataParallel(ConvNet(), workers=2, start_method={method!r})
        conv(nl.randn(4, 1, 8, 8)).sum().backward()
        print(" ".join(map(str, dp.pids + conv.pids)), flush=True)
        # no close(): the interpreter exits with the workers running
    """,
        tmp_path,
    )
    pids = [int(p) for p in out.split()]
    assert len(pids) == 4
    _wait_gone(proc.pid, pids, timeout=5)
    assert "leaked" not in err and "Error" not in err, err


def test_ctrl_c_in_the_parent_leaves_nothing(tmp_path):
    proc = run_script(
        """
        dp = nn.DataParallel(Net(), workers=2)
        dp(nl.randn(4, 3))
        print(" ".join(map(str, dp.pids)), flush=True)
        dp(nl.randn(4, 3), sleep=60)
    """,
        tmp_path,
        wait=False,
        preexec_fn=default_sigint,
    )
    pids = [int(p) for p in proc.stdout.readline().split()]
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    _wait_gone(proc.pid, pids, timeout=5)


def test_killed_parent_takes_its_workers_along(tmp_path):
    proc = run_script(
        """
        dp = nn.DataParallel(Net(), workers=2)
        dp(nl.randn(4, 3))
        print(" ".join(map(str, dp.pids)), flush=True)
        time.sleep(60)
    """,
        tmp_path,
        wait=False,
    )
    pids = [int(p) for p in proc.stdout.readline().split()]
    proc.kill()
    proc.wait(10)
    # workers notice within a second; the resource tracker then unlinks the segments
    _wait_gone(proc.pid, pids, timeout=15)


_GROWING_RUN = """
    from multiprocessing import resource_tracker
    dp = nn.DataParallel(Net(), workers=2)
    dp(nl.randn(4, 3)).sum().backward()
    dp(nl.randn(40000, 3)).sum().backward()  # inputs and outputs outgrow their segments: new ones
    dp(nl.randn(40000, 3)).sum().backward()
    print(" ".join(map(str, dp.pids)), resource_tracker._resource_tracker._pid, flush=True)
    time.sleep(60)
"""


def test_sigkill_of_the_parent_and_its_resource_tracker_leaves_no_segment(tmp_path):
    # The resource tracker is what unlinks a killed program's named segments, and it dies too when
    # the whole program is killed (a process group, a container). DataParallel's segments have no
    # name, so they need no tracker: none is started, and killing the parent leaves nothing.
    proc = run_script(_GROWING_RUN, tmp_path, wait=False)
    *pids, tracker = proc.stdout.readline().split()
    assert len(pids) == 2 and tracker == "None"
    pids = [int(p) for p in pids]
    proc.kill()
    proc.wait(10)
    _wait_gone(proc.pid, pids, timeout=15)  # the workers notice within a second and exit


def test_sigkill_of_the_whole_process_group_leaves_no_segment(tmp_path):
    proc = run_script(_GROWING_RUN, tmp_path, wait=False, new_session=True)
    pids = [int(p) for p in proc.stdout.readline().split()[:2]]
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(10)
    _wait_gone(proc.pid, pids, timeout=15)
