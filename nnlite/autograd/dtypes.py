"""nnlite's dtypes: thin named wrappers over numpy dtypes, printed as ``nnlite.float32``."""

from __future__ import annotations

import builtins as _builtins
from typing import Any

import numpy as np

# float/int/bool are rebound below to dtypes, as in torch; keep the Python types at hand.
_py_float, _py_int, _py_bool = _builtins.float, _builtins.int, _builtins.bool


class dtype:
    """A tensor element type (``nl.float32``, ``nl.int64``, ...).

    Instances are made once per type by nnlite; compare them with ``==`` (a numpy dtype of the
    same kind compares equal).

    Args:
        name (str): the name printed after ``nnlite.``.
        np_dtype: the numpy dtype that stores the elements.
        tensor_type (str): the legacy tensor class name (``"FloatTensor"``, ...).

    Examples:
        >>> nl.float32, nl.float32.is_floating_point, nl.float32.itemsize
        (nnlite.float32, True, 4)
        >>> nl.zeros(2, dtype=nl.int64).dtype == nl.long
        True
    """

    __slots__ = ("name", "np", "is_floating_point", "itemsize", "_tensor_type")

    def __init__(self, name: str, np_dtype: Any, tensor_type: str) -> None:
        self.name = name
        self.np: np.dtype[Any] = np.dtype(np_dtype)
        self.is_floating_point: _builtins.bool = self.np.kind == "f"
        self.itemsize = self.np.itemsize
        self._tensor_type = tensor_type

    def __repr__(self) -> str:
        return f"nnlite.{self.name}"

    def __eq__(self, other: Any) -> _builtins.bool:
        if isinstance(other, dtype):
            return self.np == other.np
        try:
            equal: _builtins.bool = self.np == np.dtype(other)
        except TypeError:
            return NotImplemented
        return equal

    def __hash__(self) -> _builtins.int:
        return hash(self.np)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return (_by_name, (self.name,))


float16 = half = dtype("float16", np.float16, "HalfTensor")
float32 = float = dtype("float32", np.float32, "FloatTensor")
float64 = double = dtype("float64", np.float64, "DoubleTensor")
int8 = dtype("int8", np.int8, "CharTensor")
uint8 = dtype("uint8", np.uint8, "ByteTensor")
int16 = short = dtype("int16", np.int16, "ShortTensor")
int32 = int = dtype("int32", np.int32, "IntTensor")
int64 = long = dtype("int64", np.int64, "LongTensor")
uint16 = dtype("uint16", np.uint16, "UInt16Tensor")
uint32 = dtype("uint32", np.uint32, "UInt32Tensor")
uint64 = dtype("uint64", np.uint64, "UInt64Tensor")
bool = dtype("bool", np.bool_, "BoolTensor")

_ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, uint16, uint32, uint64, bool)
_FROM_NP = {d.np: d for d in _ALL}
_NAMES = {d.name: d for d in _ALL}


_TENSOR_TYPES = {d._tensor_type: d for d in _ALL}


def from_tensor_type_name(name: str) -> dtype:
    """The dtype of a legacy type name, ``"torch.LongTensor"`` or ``"nnlite.LongTensor"``."""
    package, _, type_name = name.rpartition(".")
    if package in ("torch", "nnlite") and type_name in _TENSOR_TYPES:
        return _TENSOR_TYPES[type_name]
    raise ValueError(f"invalid type: '{name}'")


def _by_name(name: str) -> dtype:
    return _NAMES[name]


def from_numpy_dtype(np_dtype: np.dtype[Any]) -> dtype:
    """The nnlite dtype of a numpy dtype; a clear error for dtypes nnlite has no name for."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type {np_dtype}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def to_numpy_dtype(d: Any) -> np.dtype[Any]:
    """Accept an nnlite dtype, a numpy dtype, a Python type or a dtype name; return a numpy dtype."""
    if isinstance(d, dtype):
        return d.np
    if d is _py_float:
        return float32.np
    if d is _py_int:
        return int64.np
    if d is _py_bool:
        return bool.np
    if isinstance(d, str) and d in _NAMES:
        return _NAMES[d].np
    converted: np.dtype[Any] = np.dtype(d)
    return converted
