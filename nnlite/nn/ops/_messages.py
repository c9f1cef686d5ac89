"""Argument normalising and pieces of PyTorch's error messages that several nn ops share."""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..._typing import Array

_TYPE_NAMES = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


class LayerInputError(RuntimeError):
    """A shape or type error in a layer's input; layers re-raise it with their own repr in front."""


def type_name(array: Array) -> str:
    """PyTorch's name of an array's element type (``Float``, ``Long`` ...)."""
    name: str = _TYPE_NAMES.get(array.dtype.name, array.dtype.name)
    return name


def dims(shape: Iterable[object]) -> str:
    """A shape as PyTorch prints it in messages: ``[2, 3]``."""
    return "[" + ", ".join(str(s) for s in shape) + "]"


def pair(value: Any, name: str = "value", fn: str = "conv2d") -> tuple[int, int]:
    """An int or a pair of ints as an (h, w) tuple of ints.

    ``value`` is an int (Python's or numpy's) or a sequence of one or two of them."""
    if type(value) is tuple and len(value) == 2 and type(value[0]) is int and type(value[1]) is int:
        return value
    if type(value) is int or isinstance(value, numbers.Integral):
        return (int(value), int(value))
    value = tuple(value)
    if len(value) == 1:
        return (int(value[0]), int(value[0]))
    if len(value) != 2:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 2 values to match the "
            f"convolution dimensions, but got {name}={list(value)}"
            if fn == "conv2d"
            else f"{fn}: {name} must either be a single int, or a tuple of two ints"
        )
    return (int(value[0]), int(value[1]))
