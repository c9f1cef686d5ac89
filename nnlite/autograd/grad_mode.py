"""Gradient-recording switches: ``no_grad``, ``enable_grad``, ``set_grad_enabled``.

The state is one module-level list so that the hot path (``Op.apply``) reads it with a
single index instead of a function call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

# _state[0] is True when operations record a graph.
_state = [True]


def is_grad_enabled() -> bool:
    """Whether operations currently record the autograd graph.

    Returns:
        bool: False inside ``no_grad`` (or ``set_grad_enabled(False)``), else True.

    Examples:
        >>> nl.is_grad_enabled()
        True
        >>> with nl.no_grad():
        ...     nl.is_grad_enabled()
        False
    """
    return _state[0]


class _GradModeContext:
    """Base of the grad-mode context managers; instances also work as decorators."""

    _enable = True
    _prev: bool

    def __enter__(self) -> None:
        self._prev = _state[0]
        _state[0] = self._enable

    def __exit__(self, *exc: object) -> Literal[False]:
        _state[0] = self._prev
        return False

    def __call__(self, fn: _F) -> _F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # wraps() keeps fn's signature


class no_grad(_GradModeContext):
    """Context manager and decorator that turns graph recording off.

    Examples:
        >>> x = nl.ones(2, requires_grad=True)
        >>> with nl.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    _enable = False


class enable_grad(_GradModeContext):
    """Context manager and decorator that turns graph recording on (inside ``no_grad``).

    Examples:
        >>> x = nl.ones(2, requires_grad=True)
        >>> with nl.no_grad():
        ...     with nl.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    _enable = True


class inference_mode(_GradModeContext):
    """Context manager and decorator that turns graph recording off, as ``no_grad``.

    nnlite has no separate inference tensors, so tensors made inside can later enter autograd.

    Args:
        mode (bool): True turns recording off; False makes it a no-op. Default: True.

    Examples:
        >>> x = nl.ones(3, requires_grad=True)
        >>> with nl.inference_mode():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __new__(cls, mode: Any = True) -> Any:
        # ``@nl.inference_mode`` without parentheses: the function comes as ``mode``
        if callable(mode):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: Any = True) -> None:
        self._mode = bool(mode)

    def __enter__(self) -> None:
        self._prev = _state[0]
        if self._mode:
            _state[0] = False
            _inference_depth[0] += 1

    def __exit__(self, *exc: object) -> Literal[False]:
        if self._mode:
            _inference_depth[0] -= 1
        _state[0] = self._prev
        return False

    def __call__(self, fn: _F) -> _F:
        mode = self._mode

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with inference_mode(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # wraps() keeps fn's signature


_inference_depth = [0]


def is_inference_mode_enabled() -> bool:
    """Whether an ``inference_mode`` is active.

    Returns:
        bool: True inside ``inference_mode()``.

    Examples:
        >>> with nl.inference_mode():
        ...     nl.is_inference_mode_enabled()
        True
    """
    return _inference_depth[0] > 0


class set_grad_enabled(_GradModeContext):
    """Set graph recording on or off; as a function call, as a context manager or as a decorator.

    Args:
        mode (bool): True records operations, False does not.

    Examples:
        >>> x = nl.ones(3, requires_grad=True)
        >>> with nl.set_grad_enabled(False):
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __init__(self, mode: bool) -> None:
        self._enable = bool(mode)
        self._prev = _state[0]
        _state[0] = self._enable

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> Literal[False]:
        _state[0] = self._prev
        return False

    def __call__(self, fn: _F) -> _F:
        _state[0] = self._prev  # used as a decorator: undo the eager switch of __init__
        mode = self._enable

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with set_grad_enabled(mode):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # wraps() keeps fn's signature
