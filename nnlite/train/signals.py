"""Ctrl-C (SIGINT) and SIGTERM during training: the handler only records the signal; the
training loop asks between batches and stops there, so a signal never lands inside an import,
a garbage-collector callback or a half-done checkpoint.

A second signal while the run is already stopping gets the process's usual handling back at once:
a second Ctrl-C raises ``KeyboardInterrupt`` where the program is (as Python always does; a
notebook's kernel survives it), a second SIGTERM ends the process, killed by it. Checkpoints are
written atomically, so the last one on disk is whole; ``status.json`` may then still say
``running`` (the report shows the process as gone).
"""

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import Any

__all__ = ["Stopped", "check_stop", "requested_signal", "stop_message", "stop_on_signals"]

WATCHED = (signal.SIGINT, signal.SIGTERM)

_requested: int | None = None  # the signal number of the first stop request, or None
_installed = False
_previous: dict[int, Any] = {}  # signal number -> the handler stop_on_signals replaced


class Stopped(KeyboardInterrupt):
    """The run was asked to stop by a signal (``signum``); the process exits with ``128 + signum``.

    A ``KeyboardInterrupt``, so code that handles Ctrl-C handles SIGTERM the same way.

    Examples:
        >>> import signal
        >>> from nnlite.train.signals import Stopped
        >>> Stopped(signal.SIGTERM).exit_code
        143
    """

    def __init__(self, signum: int = signal.SIGINT) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


def stop_message(signum: int) -> str:
    """What ``status.json`` says about a run stopped by ``signum``.

    Examples:
        >>> import signal
        >>> from nnlite.train.signals import stop_message
        >>> stop_message(signal.SIGTERM), stop_message(signal.SIGINT)
        ('Stopped by SIGTERM.', 'Stopped by Ctrl-C (SIGINT).')
    """
    if signum == signal.SIGINT:
        return "Stopped by Ctrl-C (SIGINT)."
    return f"Stopped by {signal.Signals(signum).name}."


def _say(text: str) -> None:
    """One line on stderr, written straight to the descriptor: a handler must not re-enter a
    buffered stream the program may be writing, nor raise when stderr is closed."""
    try:
        os.write(2, f"\n{text}\n".encode())
    except OSError:
        pass


def _record(signum: int, frame: FrameType | None) -> None:
    global _requested
    name = signal.Signals(signum).name
    if _requested is None:
        _requested = signum
        _say(f"{name}: stopping after the current batch ({name} again: at once)")
        return
    # asked twice: the user wants out now, with the handling the process had before
    _say(f"{name} again: stopping at once")
    previous: Any = _previous.get(signum)
    if not callable(previous):
        previous = signal.SIG_DFL
    signal.signal(signum, previous)
    if previous is signal.SIG_DFL:
        os.kill(os.getpid(), signum)
    else:
        previous(signum, frame)  # Python's own SIGINT handler: KeyboardInterrupt, here


def requested_signal() -> int | None:
    """The signal that asked the run to stop (``signal.SIGINT`` or ``signal.SIGTERM``), or ``None``."""
    return _requested


def check_stop() -> None:
    """Raise ``Stopped`` if a watched signal arrived since ``stop_on_signals`` began."""
    if _requested is not None:
        raise Stopped(_requested)


@contextlib.contextmanager
def stop_on_signals() -> Iterator[None]:
    """While active, SIGINT and SIGTERM only record a stop request (see ``check_stop``).

    Installed from the main thread only (where Python runs signal handlers); nested uses and
    other threads leave the handlers alone. A signal ignored when the process started (a
    background job's SIGINT) stays ignored, as Python itself does.

    Examples:
        >>> from nnlite.train.signals import check_stop, stop_on_signals
        >>> with stop_on_signals():
        ...     check_stop()  # nothing asked: carries on
    """
    global _installed, _requested
    if _installed or threading.current_thread() is not threading.main_thread():
        yield
        return
    _previous.clear()
    for signum in WATCHED:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            _previous[signum] = signal.signal(signum, _record)
    _installed, _requested = True, None
    try:
        yield
    finally:
        for signum, handler in _previous.items():
            if handler is not None:  # None: set outside Python, cannot be put back from here
                signal.signal(signum, handler)
        _previous.clear()
        _installed, _requested = False, None
