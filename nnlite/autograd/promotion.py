"""PyTorch's type promotion for nnlite's arrays, and the default floating dtype.

numpy and PyTorch agree on most results, but not all: an integer tensor divided by anything gives
PyTorch's default float (float32), where numpy gives float64; ``int64 + float32`` tensors give
float32 (numpy: float64); a 0-d tensor (or a numpy scalar) takes part only when its category
(bool < integer < floating) is higher than the other operands' (``float32 + 0-d float64`` stays
float32); numpy scalars count as Python numbers. Ops compute with numpy and call :func:`binary_result` on the result, which returns
numpy's array untouched in the common case (operands of one dtype) and casts it otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias, overload

import numpy as np

from . import dtypes as _dtypes

if TYPE_CHECKING:
    from .._typing import Array, DTypeLike
    from .dtypes import dtype
    from .tensor import Tensor

__all__ = [
    "get_default_dtype",
    "set_default_dtype",
    "default_float",
    "result_type",
    "promote_types",
    "tensor_result_type",
    "binary_result",
    "floating",
    "scalar_type_name",
]

_NpDType: TypeAlias = "np.dtype[Any]"

_ndarray = np.ndarray
_BOOL = np.dtype(np.bool_)
_INT64 = np.dtype(np.int64)
# the default floating dtype, as a one-element list read on the op path without a function call
_default = [np.dtype(np.float32)]


def get_default_dtype() -> dtype:
    """The floating dtype that Python floats and integer-to-float promotions give.

    Returns:
        nl.dtype: ``nl.float32`` unless :func:`set_default_dtype` changed it.

    Examples:
        >>> nl.get_default_dtype()
        nnlite.float32
    """
    return _dtypes.from_numpy_dtype(_default[0])


def set_default_dtype(d: DTypeLike) -> None:
    """Set the floating dtype that Python floats, float creation functions and integer-to-float
    promotions (``int_tensor / 2``, ``int_tensor.sqrt()``) give.

    Args:
        d (nl.dtype): ``nl.float32``, ``nl.float64`` or ``nl.float16``.

    Examples:
        >>> nl.set_default_dtype(nl.float64)
        >>> (nl.tensor([1, 3]) / 2).dtype
        nnlite.float64
        >>> nl.set_default_dtype(nl.float32)
    """
    np_dtype = _dtypes.to_numpy_dtype(d)
    if np_dtype.kind != "f":
        raise TypeError("only floating-point types are supported as the default type")
    _default[0] = np_dtype


def default_float() -> _NpDType:
    """The default floating dtype as a numpy dtype."""
    return _default[0]


def scalar_type_name(np_dtype: _NpDType) -> str:
    """PyTorch's name for a dtype in messages: ``Float``, ``Long``, ``Bool``, ``Byte``..."""
    return _dtypes.from_numpy_dtype(np_dtype)._tensor_type[: -len("Tensor")]


def _category(dt: _NpDType) -> int:
    kind = dt.kind
    return 0 if kind == "b" else 2 if kind == "f" else 3 if kind == "c" else 1


@overload
def _promote(x: _NpDType | None, y: _NpDType) -> _NpDType: ...
@overload
def _promote(x: _NpDType | None, y: _NpDType | None) -> _NpDType | None: ...
def _promote(x: _NpDType | None, y: _NpDType | None) -> _NpDType | None:
    """Promotion of two dtypes as PyTorch does it (None stands for "no operand")."""
    if x is None or x == y:
        return y if x is None else x
    if y is None:
        return x
    cx, cy = _category(x), _category(y)
    if cx != cy:  # the higher category's dtype wins, as is (int32 + float16 -> float16)
        return x if cx > cy else y
    return np.promote_types(x, y)


def _combine(higher: _NpDType | None, lower: _NpDType | None) -> _NpDType | None:
    """A lower-priority operand's dtype counts only when its category is higher."""
    if higher is None:
        return lower
    if lower is None or _category(lower) <= _category(higher):
        return higher
    if _category(higher) == 0 or _category(lower) >= 2:
        return _promote(higher, lower)
    return higher


def result_type(*operands: Any) -> _NpDType:
    """The dtype PyTorch gives an elementwise op on ``operands`` (arrays, numpy or Python scalars).

    Arrays with dimensions take precedence over 0-d arrays, which take precedence over Python
    numbers (and numpy scalars, which PyTorch takes as Python numbers); a lower-precedence operand counts only when it is of a higher
    category (bool < integer < floating). A Python float counts as the default dtype.
    """
    dims: _NpDType | None
    zero: _NpDType | None
    wrapped: _NpDType | None
    dims = zero = wrapped = None
    for x in operands:
        if isinstance(x, _ndarray):
            if x.ndim:
                dims = _promote(dims, x.dtype)
            else:
                zero = _promote(zero, x.dtype)
        elif isinstance(x, (bool, np.bool_)):  # numpy scalars count as Python numbers
            wrapped = _promote(wrapped, _BOOL)
        elif isinstance(x, (int, np.integer)):
            wrapped = _promote(wrapped, _INT64)
        elif isinstance(x, (float, np.floating)):
            wrapped = _promote(wrapped, _default[0])
        elif isinstance(x, (complex, np.complexfloating)):
            wrapped = _promote(wrapped, np.dtype(np.complex64))
    # None only when no operand is an array or a number, which no caller passes
    return _combine(dims, _combine(zero, wrapped))  # type: ignore[return-value]


def promote_types(type1: DTypeLike, type2: DTypeLike) -> dtype:
    """The dtype both types promote to, as ``torch.promote_types``.

    Args:
        type1 (nl.dtype): a dtype.
        type2 (nl.dtype): another dtype.

    Returns:
        nl.dtype: the smallest dtype of the higher category holding both.

    Examples:
        >>> nl.promote_types(nl.int32, nl.float16), nl.promote_types(nl.uint8, nl.int8)
        (nnlite.float16, nnlite.int16)
    """
    a, b = _dtypes.to_numpy_dtype(type1), _dtypes.to_numpy_dtype(type2)
    return _dtypes.from_numpy_dtype(_promote(a, b))


def tensor_result_type(tensor: Tensor | complex, other: Tensor | complex) -> dtype:
    """The dtype an arithmetic op on ``tensor`` and ``other`` gives, as ``torch.result_type``.

    Args:
        tensor (Tensor or number): an operand.
        other (Tensor or number): the other operand.

    Returns:
        nl.dtype: the result's dtype.

    Examples:
        >>> nl.result_type(nl.tensor([1, 2]), 2.5), nl.result_type(nl.tensor([1, 2]), nl.tensor(2.))
        (nnlite.float32, nnlite.float32)
    """
    operands = [getattr(x, "_data", x) for x in (tensor, other)]
    return _dtypes.from_numpy_dtype(result_type(*operands))


def binary_result(out: Array, a: Any, b: Any, to_float: bool = False) -> Array:
    """numpy's result ``out`` of an elementwise op on ``a`` and ``b``, in PyTorch's dtype.

    With ``to_float`` (true division) an integer or bool result type becomes the default float.
    Operands of one dtype (or a tensor with a Python number of its category) return ``out`` as is.
    """
    dt = out.dtype
    if a.__class__ is _ndarray:
        if dt is a.dtype and (b.__class__ is not _ndarray or dt is b.dtype):
            if not to_float or dt.kind == "f":
                return out
    elif b.__class__ is _ndarray and dt is b.dtype and not isinstance(a, np.generic):
        if not to_float or dt.kind == "f":
            return out
    want = result_type(a, b)
    if to_float and want.kind not in "fc":
        want = _default[0]
    return out if dt == want else out.astype(want)


def floating(a: Array) -> Array:
    """``a`` itself if floating, else converted to the default float (PyTorch's rule for
    ``sqrt``, ``exp``, ``sigmoid``... of integer and bool tensors)."""
    if a.dtype.kind in "fc":
        return a
    return np.asarray(a, dtype=_default[0])
