"""nnlite._runtime: the worker toolkit (error carrier, shutdown, watchdog, seeding, nested walkers)."""

import collections
import gc
import multiprocessing
import os
import pickle
import random
import signal
import subprocess
import sys
import time
import weakref

import numpy as np
import pytest

import nnlite as nl
from nnlite._runtime.errors import ExceptionWrapper
from nnlite._runtime.nested import from_slots, leaves, map_leaves, to_slots
from nnlite._runtime.processes import signal_name, stop_processes
from nnlite._runtime.seeding import seed_process
from nnlite._runtime.watchdog import pid_alive


class NeedsTwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


def _wrapped(exc):
    try:
        raise exc
    except BaseException:
        return pickle.loads(pickle.dumps(ExceptionWrapper.from_current("worker 3 (pid 9)")))


def test_error_keeps_type_and_traceback():
    w = _wrapped(ValueError("bad value"))
    with pytest.raises(ValueError) as info:
        w.reraise()
    text = str(info.value)
    assert text.startswith(
        "Caught ValueError in worker 3 (pid 9).\nOriginal traceback from the worker:\nTraceback"
    )
    assert "ValueError: bad value" in text


def test_error_key_error_is_readable_and_odd_types_become_runtime_errors():
    with pytest.raises(KeyError) as info:
        _wrapped(KeyError("k")).reraise()
    assert str(info.value).startswith(
        "Caught KeyError in worker 3"
    )  # not quoted like a KeyError's repr

    class Local(Exception):  # not importable by name: cannot cross a process boundary
        pass

    w = _wrapped(Local("x"))
    assert w.exc_type is RuntimeError
    with pytest.raises(RuntimeError, match="Caught NeedsTwoArgs"):
        _wrapped(NeedsTwoArgs(1, 2)).reraise()


def test_reraise_leaves_no_reference_cycle():
    class Owner:
        pass

    refs = []

    def caller(wrapper):
        owner = Owner()
        refs.append(weakref.ref(owner))
        wrapper.reraise()

    gc.collect()
    gc.disable()
    try:
        try:
            caller(_wrapped(ValueError("x")))
        except ValueError:
            pass
        assert refs[0]() is None  # freed by reference counting when the exception went
    finally:
        gc.enable()


def _sleep_ignoring_sigterm(ignoring):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    ignoring.set()
    time.sleep(60)


def _sleep():
    time.sleep(60)


def _exit_soon():
    time.sleep(0.2)


def test_stop_processes_joins_terminates_and_kills():
    ctx = multiprocessing.get_context("fork")
    ignoring = ctx.Event()
    procs = [ctx.Process(target=f) for f in (_exit_soon, _sleep)]
    procs.append(ctx.Process(target=_sleep_ignoring_sigterm, args=(ignoring,)))
    for p in procs:
        p.start()
    # the third must have installed its handler (a busy machine may take seconds to get there)
    assert ignoring.wait(60)
    start = time.monotonic()
    stop_processes(procs, grace=1.0)
    assert time.monotonic() - start < 10
    assert [p.exitcode for p in procs] == [0, -signal.SIGTERM, -signal.SIGKILL]
    assert signal_name(-9) == "SIGKILL" and signal_name(-200) == "signal 200"


_WATCHDOG_SCRIPT = r"""
import os, sys, time
from nnlite._runtime.watchdog import ParentWatchdog
verdict = sys.argv[1]
if os.fork() == 0:  # the worker: records whether it saw its parent die
    watchdog = ParentWatchdog(os.getppid())
    alive_before = watchdog.parent_alive()
    deadline = time.monotonic() + 10
    while watchdog.parent_alive() and time.monotonic() < deadline:
        time.sleep(0.05)
    with open(verdict + ".tmp", "w") as f:
        f.write(f"{alive_before} {watchdog.parent_alive()}")
    os.rename(verdict + ".tmp", verdict)
    os._exit(0)
time.sleep(0.3)
os.kill(os.getpid(), 9)  # the parent dies first, without any clean-up
"""


def test_watchdog_notices_a_dead_parent(tmp_path):
    verdict = tmp_path / "verdict"
    env = dict(
        os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(nl.__file__)))
    )
    proc = subprocess.run(
        [sys.executable, "-c", _WATCHDOG_SCRIPT, str(verdict)], env=env, timeout=60
    )
    assert proc.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 15
    while not verdict.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert verdict.read_text() == "True False"
    assert pid_alive(os.getpid()) and not pid_alive(2**22 + 12345)


def test_seed_process_seeds_all_three_generators():
    seed_process(1234)
    a = (random.random(), np.random.rand(), nl.rand(1).item())
    seed_process(1234)
    b = (random.random(), np.random.rand(), nl.rand(1).item())
    assert a == b
    seed_process(1, numpy_seed=2**40 + 7, python_seed=3)
    random.seed(3)
    np.random.seed(7)
    nl.manual_seed(1)
    c = (random.random(), np.random.rand(), nl.rand(1).item())
    seed_process(1, numpy_seed=2**40 + 7, python_seed=3)
    assert (random.random(), np.random.rand(), nl.rand(1).item()) == c


Point = collections.namedtuple("Point", "x y")


def test_nested_walkers():
    tree = {
        "a": [1, np.zeros(2)],
        "b": (np.ones(1), Point(np.ones(3), "s")),
        "c": collections.OrderedDict(k=np.zeros(4)),
    }
    is_array = lambda x: isinstance(x, np.ndarray)  # noqa: E731
    sizes = map_leaves(tree, is_array, lambda a: a.size)
    assert sizes == {"a": [1, 2], "b": (1, Point(3, "s")), "c": collections.OrderedDict(k=4)}
    assert type(sizes["b"][1]) is Point and type(sizes["c"]) is collections.OrderedDict
    assert [a.size for a in leaves(tree, is_array)] == [2, 1, 3, 4]
    structure, found = to_slots(tree, is_array)
    assert len(found) == 4 and all(f is g for f, g in zip(found, leaves(tree, is_array)))
    back = from_slots(pickle.loads(pickle.dumps(structure)), found)
    assert back["b"][1].x is found[2] and back["a"][0] == 1 and back["b"][1].y == "s"
