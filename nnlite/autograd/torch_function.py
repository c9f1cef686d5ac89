"""The ``__torch_function__`` helpers that ``nn.functional`` exports (``has_torch_function``,
``has_torch_function_unary``, ``has_torch_function_variadic``, ``handle_torch_function``).

nnlite's own functions never dispatch through ``__torch_function__``: an nnlite ``Tensor`` has no
such method, so for nnlite tensors, numbers and arrays these report False. Code written against
PyTorch's protocol (a function that starts ``if has_torch_function(args): return
handle_torch_function(...)``) still runs unchanged, and an object of the caller's own type that
defines a ``__torch_function__`` classmethod is dispatched to as PyTorch dispatches to it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

__all__ = [
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "handle_torch_function",
]


def _overrides(value: Any) -> bool:
    return getattr(type(value), "__torch_function__", None) is not None


def _overloaded_args(relevant_args: Iterable[Any]) -> list[Any]:
    """One argument per type defining ``__torch_function__``, subclasses before their parents."""
    found: list[Any] = []
    for arg in relevant_args:
        kind = type(arg)
        if not _overrides(arg) or any(type(seen) is kind for seen in found):
            continue
        position = len(found)
        for i, seen in enumerate(found):
            if issubclass(kind, type(seen)):
                position = i
                break
        found.insert(position, arg)
    return found


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether an element of ``relevant_args`` has a type defining ``__torch_function__``.

    Args:
        relevant_args (iterable): the arguments to look at.

    Returns:
        bool: False for nnlite tensors, numbers and arrays (nnlite's own types define none).

    Examples:
        >>> F.has_torch_function((nl.ones(2), 3.0))
        False
    """
    return any(_overrides(arg) for arg in relevant_args)


def has_torch_function_unary(arg: Any) -> bool:
    """``has_torch_function((arg,))`` for one argument.

    Args:
        arg: the argument to look at.

    Returns:
        bool: whether its type defines ``__torch_function__``.

    Examples:
        >>> F.has_torch_function_unary(nl.ones(2))
        False
    """
    return _overrides(arg)


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)`` with the arguments given one by one.

    Args:
        *args: the arguments to look at.

    Returns:
        bool: whether one of their types defines ``__torch_function__``.

    Examples:
        >>> F.has_torch_function_variadic(nl.ones(2), nl.zeros(2))
        False
    """
    return any(_overrides(arg) for arg in args)


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Call the ``__torch_function__`` of the overriding arguments, as PyTorch's protocol does.

    Each overriding type (subclasses first) gets ``__torch_function__(public_api, types, args,
    kwargs)``; the first result other than ``NotImplemented`` is returned.

    Args:
        public_api (callable): the function originally called.
        relevant_args (iterable): the arguments to look at for overrides.
        *args: the positional arguments ``public_api`` was called with.
        **kwargs: its keyword arguments.

    Returns:
        the result of the first override that does not return ``NotImplemented``.

    Raises:
        TypeError: when no override handles the call (PyTorch's message).

    Examples:
        >>> class Logged:
        ...     @classmethod
        ...     def __torch_function__(cls, func, types, args=(), kwargs=None):
        ...         return f"{func.__name__} on {cls.__name__}"
        >>> def double(x):
        ...     if F.has_torch_function_unary(x):
        ...         return F.handle_torch_function(double, (x,), x)
        ...     return x * 2
        >>> double(Logged()), double(nl.tensor(2.0))
        ('double on Logged', tensor(4.))
    """
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(arg) for arg in overloaded)
    for arg in overloaded:
        result = arg.__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = f"{public_api.__module__}.{public_api.__name__}"
    raise TypeError(
        f"no implementation found for '{name}' on types that implement __torch_function__: "
        f"{[type(arg) for arg in overloaded]}"
    )
