"""The page writer process: rewrites a run's page while training goes on.

Drawing the plots and evaluating the last checkpoint took longer than a LeNet epoch, so the
training process only hands the run folder over and goes on. The writer is a separate process
(started fresh, not forked from a process running thread pools), on one thread, so it takes
neither the GIL nor the training's threads. It ignores Ctrl-C: the page written after the
interruption is its job, and the training process waits for it. When the training process dies
the pipe closes and the writer ends.
"""

import multiprocessing
import signal

__all__ = ["BackgroundPageWriter"]

_FINAL_DONE = "final page written"


class BackgroundPageWriter:
    """A writer process; ``write(run_dir, final)`` hands a page over.

    Returns False when the writer is gone (the caller then writes the page itself). A ``final``
    page is waited for. While a page is being written newer requests replace older ones: the next
    page shows the run folder as it is then, so it covers every epoch before it.
    """

    def __init__(self):
        ctx = multiprocessing.get_context("spawn")
        self._conn, child_end = ctx.Pipe()
        self._process = ctx.Process(
            target=_serve, args=(child_end,), name="nnlite-report-writer", daemon=True
        )
        self._process.start()
        child_end.close()

    def write(self, run_dir, final):
        try:
            self._conn.send((str(run_dir), bool(final)))
        except (OSError, ValueError):
            return False
        return self.wait() if final else True

    def wait(self):
        """Wait until the writer has written the final page it was given; False if it died."""
        while True:
            try:
                if self._conn.poll(0.2):
                    return self._conn.recv() == _FINAL_DONE
            except (EOFError, OSError):
                return False
            if not self._process.is_alive():
                return False

    def flush(self):
        """Wait until every page handed over so far is written (a final request with no page)."""
        try:
            self._conn.send(None)
        except (OSError, ValueError):
            return False
        return self.wait()

    def close(self):
        try:
            self._conn.close()  # the writer sees the end of the pipe and exits
        except OSError:
            pass
        self._process.join(10)
        if self._process.is_alive():
            self._process.terminate()
            self._process.join()


def _serve(conn):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from .._runtime.threads import limit_threads

    limit_threads(1)
    from .page_writer import PageWriter

    writer = PageWriter()
    try:
        while True:
            waiting = [conn.recv()]
            while conn.poll():
                waiting.append(conn.recv())
            # one page per run folder covers every request waiting for it
            newest = {}
            for request in waiting:
                if request is not None:
                    run_dir, final = request
                    newest[run_dir] = newest.get(run_dir, False) or final
            for run_dir, final in newest.items():
                writer(run_dir, final)
            for request in waiting:
                if request is None or request[1]:
                    conn.send(_FINAL_DONE)
    except (EOFError, OSError):
        return
