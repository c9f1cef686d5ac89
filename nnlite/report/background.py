"""The page writer process: rewrites a run's page while training goes on.

Drawing the plots and evaluating the last checkpoint took longer than a LeNet epoch, so the
training process only hands the run folder over and goes on. The writer is a fresh interpreter
(``python -m nnlite.report.background``: not forked from a process running thread pools, and not
re-running the user's script as ``multiprocessing``'s spawn would), on one thread, so it takes
neither the GIL nor the training's threads. It runs in its own session and ignores Ctrl-C: the
page written after an interruption is its job, and the training process waits for it. When the
training process ends, however it ends, the socket closes and the writer exits.
"""

import os
import signal
import socket
import subprocess
import sys
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["BackgroundPageWriter"]

_FINAL_DONE = "final page written"
_GRACE_SECONDS = 0.5


class BackgroundPageWriter:
    """A writer process; ``write(run_dir, final)`` hands a page over.

    Returns False when the writer is gone (the caller then writes the page itself). A ``final``
    page is waited for. While a page is being written newer requests replace older ones: the next
    page shows the run folder as it is then, so it covers every epoch before it.
    """

    def __init__(self) -> None:
        if os.name != "posix":
            raise OSError("the background page writer needs a POSIX system")
        ours, theirs = socket.socketpair()
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-m", "nnlite.report.background", str(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                env=dict(os.environ, PYTHONPATH=_nnlite_root()),
            )
        finally:
            theirs.close()
        self._conn = Connection(ours.detach())
        self._conn.send([os.path.abspath(p) for p in sys.path])  # the user's modules, as here

    def write(self, run_dir: str | os.PathLike[str], final: bool) -> bool:
        try:
            self._conn.send((os.fspath(run_dir), bool(final)))
        except (OSError, ValueError):
            return False
        return self._wait() if final else True

    def flush(self) -> bool:
        """Wait until every page handed over so far is written; False if the writer died."""
        try:
            self._conn.send(None)
        except (OSError, ValueError):
            return False
        return self._wait()

    def _wait(self) -> bool:
        while True:
            try:
                if self._conn.poll(0.2):
                    return bool(self._conn.recv() == _FINAL_DONE)
            except (EOFError, OSError):
                return False
            if self._process.poll() is not None:
                return False

    def close(self) -> None:
        try:
            self._conn.close()  # the writer sees the end of the socket and exits
        except OSError:
            pass
        try:
            self._process.wait(10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _nnlite_root() -> str:
    """PYTHONPATH for a child that must import this very nnlite."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    rest = os.environ.get("PYTHONPATH")
    return root + (os.pathsep + rest if rest else "")


def _serve(conn: Connection) -> None:
    sys.path[:] = conn.recv()
    from .._runtime.threads import limit_threads

    limit_threads(1)
    from .page_writer import PageWriter

    writer = PageWriter()
    while True:
        waiting = [conn.recv()]
        # nobody waits for the page of a running run: give the end of training, which follows
        # the last epoch's page within milliseconds, a moment to arrive, so one final page is
        # drawn instead of two in a row while the training process waits
        while not any(r is None or r[1] for r in waiting) and conn.poll(_GRACE_SECONDS):
            waiting.append(conn.recv())
        while conn.poll():
            waiting.append(conn.recv())
        # one page per run folder covers every request waiting for it
        newest: dict[str, Any] = {}
        for request in waiting:
            if request is not None:
                run_dir, final = request
                newest[run_dir] = newest.get(run_dir, False) or final
        for run_dir, final in newest.items():
            writer(run_dir, final)
        for request in waiting:
            if request is None or request[1]:
                conn.send(_FINAL_DONE)


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _serve(Connection(int(sys.argv[1])))
    except (EOFError, OSError):
        pass
    # every page is written and renamed into place: exit at once, without the interpreter's
    # teardown of matplotlib and numba (half a second the training process would wait for)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
