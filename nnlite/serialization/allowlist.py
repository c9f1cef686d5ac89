"""The user's allow-list for ``nl.load(weights_only=True)``: classes and functions a checkpoint
may name besides tensors and plain containers, as ``torch.serialization.add_safe_globals``.

An entry is the object itself (found in a pickle under ``obj.__module__`` and
``obj.__qualname__``) or a pair ``(obj, "module.name")`` for an object pickled under another
name. Only what the user lists is allowed; nothing is imported on the file's behalf.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, TypeAlias

#: an allow-list entry: a class or function, or ``(obj, "module.name")``
_SafeGlobal: TypeAlias = Callable[..., Any] | tuple[Callable[..., Any], str]

__all__ = [
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "allowed_by_user",
    "global_name",
]

_user_globals: list[_SafeGlobal] = []


def global_name(obj: Any) -> str:  # a class or function
    """``module.qualname`` of a class or function, as a pickle names it."""
    return f"{obj.__module__}.{obj.__qualname__}"


def _entry_name(entry: object) -> str:
    if isinstance(entry, tuple):
        if len(entry) != 2 or not isinstance(entry[1], str):
            raise TypeError(
                f"Expected tuple of length 2 (global, str of callable full path), but got {entry!r}"
            )
        return entry[1]
    if not hasattr(entry, "__module__") or not hasattr(entry, "__qualname__"):
        raise TypeError(
            f"a safe global must be a class or function (or a (global, 'module.name') pair), "
            f"got {type(entry).__name__}"
        )
    return global_name(entry)


def add_safe_globals(safe_globals: list[_SafeGlobal] | tuple[_SafeGlobal, ...]) -> None:
    """Allow ``nl.load(weights_only=True)`` to rebuild the classes and call the functions in
    ``safe_globals``, as ``torch.serialization.add_safe_globals``.

    Args:
        safe_globals (list): classes or functions, or ``(obj, "module.name")`` pairs for an
            object a file names differently. Only list what you trust: loading runs their
            ``__new__``/``__setstate__`` or calls them with the file's arguments.

    Examples:
        >>> nl.save(nn.Linear(2, 1), "whole_model.pt")  # the module itself, pickled
        >>> nl.serialization.add_safe_globals([nn.Linear])
        >>> nl.load("whole_model.pt")
        Linear(in_features=2, out_features=1, bias=True)
        >>> nl.serialization.clear_safe_globals()
    """
    if not isinstance(safe_globals, (list, tuple)):
        raise TypeError(f"safe_globals must be a list, got {type(safe_globals).__name__}")
    for entry in safe_globals:
        _entry_name(entry)  # check every entry before adding any
    _user_globals.extend(safe_globals)


def get_safe_globals() -> list[_SafeGlobal]:
    """The user's allow-list as added.

    Returns:
        list: a new list of the entries given to :func:`add_safe_globals`.

    Examples:
        >>> nl.serialization.add_safe_globals([nn.Linear])
        >>> nl.serialization.get_safe_globals()
        [<class 'nnlite.nn.modules.linear.Linear'>]
        >>> nl.serialization.clear_safe_globals()
    """
    return list(_user_globals)


def clear_safe_globals() -> None:
    """Empty the user's allow-list.

    Examples:
        >>> nl.serialization.add_safe_globals([nn.Linear])
        >>> nl.serialization.clear_safe_globals()
        >>> nl.serialization.get_safe_globals()
        []
    """
    _user_globals.clear()


@contextlib.contextmanager
def safe_globals(safe_globals: list[_SafeGlobal] | tuple[_SafeGlobal, ...]) -> Iterator[None]:
    """A context manager that allows ``safe_globals`` (as :func:`add_safe_globals`) within its
    block and restores the previous allow-list after it.

    Args:
        safe_globals (list): classes or functions, as for :func:`add_safe_globals`.

    Returns:
        A context manager.

    Examples:
        >>> nl.save(nn.Linear(2, 1), "whole_model.pt")
        >>> with nl.serialization.safe_globals([nn.Linear]):
        ...     nl.load("whole_model.pt")
        Linear(in_features=2, out_features=1, bias=True)
        >>> nl.serialization.get_safe_globals()
        []
    """
    before = list(_user_globals)
    add_safe_globals(safe_globals)
    try:
        yield
    finally:
        _user_globals[:] = before


def allowed_by_user() -> dict[tuple[str, str], Any]:
    """The allow-list as a dict ``(module, name) -> object`` for the unpickler."""
    allowed: dict[tuple[str, str], Any] = {}
    for entry in _user_globals:
        if isinstance(entry, tuple):
            module, _, attr = entry[1].rpartition(".")
            allowed[(module, attr)] = entry[0]
        else:
            allowed[(entry.__module__, entry.__qualname__)] = entry
    return allowed
