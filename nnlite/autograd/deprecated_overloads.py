"""PyTorch's deprecated ``add``/``sub`` overloads with ``alpha`` first: ``p.data.add_(-lr, grad)``.

PyTorch still accepts ``add(Number alpha, Tensor other)`` (method, in-place method and function)
with a deprecation warning; older tutorials update weights this way.
"""

from __future__ import annotations

import functools
import numbers
import warnings
from collections.abc import Callable
from typing import Any


def _message(name: str, method: bool) -> str:
    if method:
        old, new = (
            f"{name}(Number alpha, Tensor other)",
            f"{name}(Tensor other, *, Number alpha = 1)",
        )
    else:
        old = f"{name}(Tensor input, Number alpha, Tensor other, *, Tensor out = None)"
        new = f"{name}(Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)"
    return (
        f"This overload of {name} is deprecated:\n\t{old}\n"
        f"Consider using one of the following signatures instead:\n\t{new}"
    )


def _alpha_first(
    fn: Callable[..., Any], name: str, method: bool, tensor_class: type
) -> Callable[..., Any]:
    message = _message(name, method)

    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        # (self|input, alpha, other): a number then a tensor where the other and alpha belong
        if (
            len(args) == 3
            and isinstance(args[1], numbers.Number)
            and not isinstance(args[1], bool)
            and isinstance(args[2], tensor_class)
            and "alpha" not in kwargs
        ):
            warnings.warn(message, UserWarning, stacklevel=2)
            return fn(args[0], args[2], alpha=args[1], **kwargs)
        return fn(*args, **kwargs)

    return call


def install(namespace: dict[str, Any], tensor_class: type) -> None:
    """Accept the alpha-first overloads in ``add``/``sub`` of ``namespace`` and ``add``, ``add_``,
    ``sub``, ``sub_`` of ``tensor_class``."""
    for name in ("add", "sub"):
        if name in namespace:
            namespace[name] = _alpha_first(namespace[name], name, False, tensor_class)
    for name in ("add", "add_", "sub", "sub_"):
        fn = getattr(tensor_class, name)
        setattr(tensor_class, name, _alpha_first(fn, name, True, tensor_class))
