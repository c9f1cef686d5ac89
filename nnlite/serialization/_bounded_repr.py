"""Values from a file, shown in an error message at a cost bounded before they are formatted.

A file can hold a value whose full ``repr`` never finishes (a list holding the previous list
twice, 60 times over, has 2**60 elements) or costs quadratic time (an int of a million digits).
``short_repr`` walks only the first few items of the first few levels and never calls a
``__repr__`` it does not know; ``error_text`` does the same for an exception's arguments.
"""

from __future__ import annotations

import reprlib
from typing import Any

__all__ = ["short_repr", "error_text"]

_MAX_INT_BITS = 128  # ints beyond this are shown by their size


class _BoundedRepr(reprlib.Repr):
    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxdict = self.maxset = self.maxfrozenset = 6
        self.maxstring = self.maxother = 60

    def repr1(self, x: Any, level: int) -> str:
        if x is None or isinstance(x, (bool, float, complex)):
            return repr(x)
        if isinstance(x, int):
            if x.bit_length() > _MAX_INT_BITS:
                return f"<int of {x.bit_length()} bits>"
            return repr(int(x))
        if isinstance(x, str):
            return self.repr_str(str(x[: self.maxstring + 1]), level)
        if isinstance(x, (bytes, bytearray)):
            head = repr(bytes(x[: self.maxstring]))
            return head + ("..." if len(x) > self.maxstring else "")
        for kind in (dict, list, tuple, set, frozenset):
            if isinstance(x, kind):
                text = getattr(self, f"repr_{kind.__name__}")(x, level)
                return text if type(x) is kind else f"{type(x).__name__}({text})"
        return f"<{type(x).__name__} object>"  # never a foreign __repr__


_REPR = _BoundedRepr()


def short_repr(value: object) -> str:
    """``repr(value)`` cut to a few items per level, computed in bounded time.

    Args:
        value: anything, possibly hostile.

    Returns:
        str: at most a few hundred characters.

    Examples:
        >>> short_repr(list(range(100)))
        '[0, 1, 2, 3, 4, 5, ...]'
    """
    try:
        return _REPR.repr(value)
    except Exception:  # a hostile __len__ or __iter__ of an allowlisted class
        return f"<{type(value).__name__} object>"


def error_text(error: BaseException) -> str:
    """``"TypeName: message"`` for an exception raised while reading a file; arguments other
    than strings (a ``KeyError``'s key) go through :func:`short_repr`.

    Examples:
        >>> error_text(KeyError(list(range(100))))
        'KeyError: [0, 1, 2, 3, 4, 5, ...]'
    """
    parts = [a[:200] if isinstance(a, str) else short_repr(a) for a in error.args]
    text = ", ".join(parts)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
