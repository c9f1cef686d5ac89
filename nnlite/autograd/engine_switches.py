"""The engine's per-thread switches PyTorch exposes: multithreaded backward, view replay and the
gradient layout policy.

Each is real per-thread state with PyTorch's default, read back by its ``is_...`` function and set
by PyTorch's context managers (which switch on construction, so that calling one as a function
sets the flag for good, and restore the previous value on exit). None of them changes a result
on nnlite: backward always runs on the calling thread (what PyTorch does on the CPU too; its worker
threads serve accelerators), nnlite has neither of the two ways PyTorch rebuilds the gradient
function of a view modified in place (view replay or ``as_strided``) for the flag to choose from,
and gradients are dense row-major arrays, so the layout contract holds whatever the policy says.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "enforce_grad_layout_policy",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "set_multithreading_enabled",
]

F = TypeVar("F", bound=Callable[..., Any])

_DEFAULTS = {"multithreading": True, "view_replay": False, "grad_layout": True}


class _Flags(threading.local):
    """The switches of the current thread (a new thread starts from PyTorch's defaults)."""

    def __init__(self) -> None:
        self.values = dict(_DEFAULTS)


_flags = _Flags()


def is_multithreading_enabled() -> bool:
    """Whether multithreaded backward is enabled on this thread (default True).

    Returns:
        bool: the flag ``set_multithreading_enabled`` sets.

    Examples:
        >>> nl.autograd.is_multithreading_enabled()
        True
    """
    return _flags.values["multithreading"]


def is_view_replay_enabled() -> bool:
    """Whether autograd always replays views to rebuild a modified view's gradient function
    (default False; set by ``nl.autograd._force_original_view_tracking``).

    Returns:
        bool: the flag.

    Examples:
        >>> nl.autograd.is_view_replay_enabled()
        False
    """
    return _flags.values["view_replay"]


def _is_grad_layout_enforcement_enabled() -> bool:
    """Whether the gradient layout contract is enforced (``enforce_grad_layout_policy``)."""
    return _flags.values["grad_layout"]


class _Switch:
    """A flag switched when the object is made and restored on ``__exit__``; as a decorator it
    switches the flag around each call."""

    _flag = ""

    def __init__(self, mode: bool) -> None:
        self.prev = _flags.values[self._flag]
        self.mode = mode
        _flags.values[self._flag] = mode

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> None:
        _flags.values[self._flag] = self.prev

    def clone(self) -> Any:
        """A new switch to the same mode (it switches the flag again).

        Returns:
            the new switch.

        Examples:
            >>> switch = nl.autograd.set_multithreading_enabled(True)  # switched now, for good
            >>> with switch.clone():
            ...     nl.autograd.is_multithreading_enabled()
            True
        """
        return self.__class__(self.mode)

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def switched(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return fn(*args, **kwargs)

        return switched  # type: ignore[return-value]


class set_multithreading_enabled(_Switch):
    """Context manager (and function) that enables or disables multithreaded backward on this
    thread. nnlite's backward always runs on the calling thread, as PyTorch's does on the CPU,
    so the flag is kept and reported but changes no result.

    Args:
        mode (bool): enable (True, the default state) or disable (False).

    Examples:
        >>> with nl.autograd.set_multithreading_enabled(False):
        ...     nl.autograd.is_multithreading_enabled()
        False
        >>> nl.autograd.is_multithreading_enabled()
        True
    """

    _flag = "multithreading"

    def __init__(self, mode: bool) -> None:
        super().__init__(mode)


class enforce_grad_layout_policy(_Switch):
    """Context manager (and function) that enforces (True, the default) or relaxes (False) the
    rule that accumulated gradients have their parameter's layout. nnlite's gradients are dense
    row-major arrays, which obey the rule either way.

    Args:
        enable (bool): enforce the layout contract (default True).

    Examples:
        >>> with nl.autograd.enforce_grad_layout_policy(False):
        ...     pass
    """

    _flag = "grad_layout"

    def __init__(self, enable: bool = True) -> None:
        super().__init__(enable)

    def __call__(self, fn: F) -> F:
        _flags.values[self._flag] = self.prev  # used as a decorator: undo the eager switch
        return super().__call__(fn)


class _force_original_view_tracking(_Switch):
    """Context manager (and function) that makes autograd always replay views (``True``) to
    rebuild the gradient function of a view modified in place. The flag is kept and reported;
    nnlite has no second way for it to choose.

    Args:
        mode (bool): always replay views (True) or not (False).

    Examples:
        >>> with nl.autograd._force_original_view_tracking(True):
        ...     nl.autograd.is_view_replay_enabled()
        True
    """

    _flag = "view_replay"

    def __enter__(self) -> None:
        _flags.values[self._flag] = self.mode

    def __call__(self, fn: F) -> F:
        _flags.values[self._flag] = self.prev  # used as a decorator: undo the eager switch
        return super().__call__(fn)
