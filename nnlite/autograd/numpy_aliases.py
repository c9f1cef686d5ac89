"""numpy's argument names as aliases, as PyTorch accepts them: ``x.sum(1, keepdims=True)``,
``nl.mean(x, axis=0)``.

PyTorch's argument parser takes ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` in every
function and method that has those arguments; programs written by numpy users rely on it.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

# numpy's name -> PyTorch's name
_ALIASES = {"axis": "dim", "keepdims": "keepdim"}


def _aliased(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            for alias, real in _ALIASES.items():
                if alias in kwargs:
                    if real in kwargs:
                        raise TypeError(f"{name}() got multiple values for argument '{real}'")
                    kwargs[real] = kwargs.pop(alias)
        return fn(*args, **kwargs)

    call.__numpy_aliases__ = True  # type: ignore[attr-defined]
    return call


def _takes_aliases(fn: Any) -> bool:
    if not inspect.isfunction(fn) or getattr(fn, "__numpy_aliases__", False):
        return False
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return any(real in params for real in _ALIASES.values()) and not any(
        alias in params for alias in _ALIASES
    )


def install(namespace: dict[str, Any], tensor_class: type) -> None:
    """Accept ``axis``/``keepdims`` in the functions of ``namespace`` and the methods of
    ``tensor_class`` that take ``dim``/``keepdim``."""
    for name, fn in list(namespace.items()):
        if not name.startswith("_") and _takes_aliases(fn):
            namespace[name] = _aliased(fn, name)
    for name in dir(tensor_class):
        fn = inspect.getattr_static(tensor_class, name)
        if not name.startswith("_") and _takes_aliases(fn):
            setattr(tensor_class, name, _aliased(fn, name))
