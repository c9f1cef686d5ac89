"""Stopping worker processes and describing how one ended."""

import signal
import time
from collections.abc import Sequence
from multiprocessing.process import BaseProcess


def signal_name(exit_code: int) -> str:
    """``"SIGKILL"`` for exit code -9; ``"signal N"`` for a signal without a name."""
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


def stop_processes(procs: Sequence[BaseProcess], grace: float) -> None:
    """Wait up to ``grace`` seconds for ``procs`` (``multiprocessing.Process``) to exit on their own,
    then terminate those still running, then kill those that ignore it. Returns when all are gone.

    Examples:
        >>> import multiprocessing, time
        >>> worker = multiprocessing.get_context("fork").Process(target=time.sleep, args=(60,))
        >>> worker.start()
        >>> stop_processes([worker], grace=0.1)  # the sleeper is terminated after 0.1 s
        >>> worker.is_alive(), signal_name(worker.exitcode)
        (False, 'SIGTERM')
    """
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
    stubborn = [p for p in procs if p.is_alive()]
    for p in stubborn:
        p.terminate()
    for p in stubborn:
        p.join(1.0)
        if p.is_alive():
            p.kill()
            p.join()
