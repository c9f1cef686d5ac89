"""A Python number as the first operand of the binary function forms, as PyTorch accepts it:
``nl.pow(10000, t)``, ``nl.sub(1, t)``, ``nl.div(2, t)`` (the reflected operator computes them)."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

# function -> the Tensor's reflected operator that computes ``number <op> tensor``
_REFLECTED = {
    "pow": "__rpow__",
    "add": "__radd__",
    "mul": "__rmul__",
    "multiply": "__rmul__",
    "sub": "__rsub__",
    "subtract": "__rsub__",
    "div": "__rtruediv__",
    "divide": "__rtruediv__",
    "true_divide": "__rtruediv__",
    "remainder": "__rmod__",
    "floor_divide": "__rfloordiv__",
}


def _number_first(fn: Callable[..., Any], reflected: str, tensor_class: type) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(*args: Any, **kwargs: Any) -> Any:
        if (
            len(args) == 2
            and isinstance(args[0], numbers.Number)
            and isinstance(args[1], tensor_class)
            and set(kwargs) <= {"alpha"}
        ):
            number, other = args
            if "alpha" in kwargs:  # add/sub: number <op> alpha * other
                other = other * kwargs["alpha"]
            return getattr(other, reflected)(number)
        return fn(*args, **kwargs)

    return call


def install(namespace: dict[str, Any], tensor_class: type) -> None:
    """Let the binary functions of ``namespace`` take a number as their first operand."""
    for name, reflected in _REFLECTED.items():
        if name in namespace:
            namespace[name] = _number_first(namespace[name], reflected, tensor_class)
