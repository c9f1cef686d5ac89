"""An exception raised in a worker process, carried to the parent with its formatted traceback."""

from __future__ import annotations

import pickle
import sys
import traceback
from typing import NoReturn


class ExceptionWrapper:
    """What a worker sends instead of a result when its code raised.

    Args:
        exc_type: the exception's class (``RuntimeError`` when the parent could not unpickle it).
        text (str): the worker's formatted traceback.
        where (str): the worker, as the message names it ("DataLoader worker process 0 (pid 12)").

    Examples:
        >>> try:
        ...     {}["missing"]
        ... except KeyError:
        ...     wrapped = ExceptionWrapper.from_current("worker 0")
        >>> wrapped.exc_type, wrapped.where
        (<class 'KeyError'>, 'worker 0')
    """

    def __init__(self, exc_type: type[BaseException], text: str, where: str) -> None:
        self.exc_type = exc_type
        self.text = text
        self.where = where

    @classmethod
    def from_current(cls, where: str) -> ExceptionWrapper:
        """The exception being handled now."""
        exc_type, exc, tb = sys.exc_info()
        text = "".join(traceback.format_exception(exc_type, exc, tb))
        try:
            pickle.loads(pickle.dumps(exc_type))
        except Exception:  # noqa: BLE001  (a class defined where the parent cannot find it)
            exc_type = RuntimeError
        return cls(exc_type or RuntimeError, text, where)  # None only outside an except block

    def exception(self) -> BaseException:
        """The exception to raise in the parent: the worker's type when it can carry the text."""
        msg = (
            f"Caught {self.exc_type.__name__} in {self.where}.\n"
            f"Original traceback from the worker:\n{self.text}"
        )
        if issubclass(self.exc_type, KeyError):
            return _KeyErrorMessage(msg)
        exc: BaseException | None
        try:
            exc = self.exc_type(msg)
        except Exception:  # noqa: BLE001
            exc = None
        if not isinstance(exc, BaseException) or str(exc) != msg:
            exc = RuntimeError(msg)
        return exc

    def reraise(self) -> NoReturn:
        """Raise ``exception()``.

        The exception's traceback holds the caller's frames; no frame may hold the exception in
        turn, or the cycle would keep the caller (a loader iterator and its workers) alive until
        the garbage collector runs.
        """
        exc = self.exception()
        try:
            raise exc
        finally:
            del exc


class _KeyErrorMessage(KeyError):
    """A KeyError whose str is its message as is (KeyError's own str quotes it)."""

    def __str__(self) -> str:
        return str(self.args[0])
