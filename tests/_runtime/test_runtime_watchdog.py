"""ParentWatchdog and pid_alive in this process (the forked-worker case is in
test_runtime_workers.py)."""

import os
import subprocess
import sys

from nnlite._runtime import watchdog as watchdog_module
from nnlite._runtime.watchdog import ParentWatchdog, pid_alive


def _dead_pid():
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_pid_alive():
    assert pid_alive(os.getpid())
    assert pid_alive(1)  # init: alive, whether or not it may be signalled
    assert not pid_alive(_dead_pid())


def test_parent_alive_while_the_parent_is_the_owner():
    assert ParentWatchdog(os.getppid()).parent_alive()


def test_parent_alive_checks_an_owner_that_is_not_the_parent():
    # a worker of a fork server: its parent is the server, its owner another live process
    assert ParentWatchdog(os.getpid()).parent_alive()
    assert not ParentWatchdog(_dead_pid()).parent_alive()


def test_reparented_worker_sees_its_parent_gone(monkeypatch):
    watchdog = ParentWatchdog(os.getppid())
    monkeypatch.setattr(watchdog_module.os, "getppid", lambda: 1)  # adopted by init
    assert not watchdog.parent_alive()
