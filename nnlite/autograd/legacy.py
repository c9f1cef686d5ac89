"""PyTorch's legacy spellings that old scripts still use: the typed constructors
(``nl.FloatTensor(2, 3)``, ``nl.LongTensor([1, 2])``) and ``nl.autograd.Variable``.

Both make ordinary Tensors; the classes exist for construction and for ``isinstance`` checks
(``isinstance(t, nl.FloatTensor)`` is True for a float32 tensor), as in PyTorch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..device import check_device
from . import dtypes as _dtypes
from .sizes import shape_arg as _shape_arg
from .tensor import Tensor, _as_array, _make

if TYPE_CHECKING:
    from .._typing import Device

__all__ = [
    "Variable",
    "FloatTensor",
    "DoubleTensor",
    "HalfTensor",
    "ByteTensor",
    "CharTensor",
    "ShortTensor",
    "IntTensor",
    "LongTensor",
    "BoolTensor",
]


class _TypedTensorMeta(type):
    _dtype: _dtypes.dtype  # set on each typed class by _typed

    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls._dtype.np

    def __call__(cls, *args: Any, device: Device = None) -> Tensor:
        """``T()`` empty, ``T(*sizes)`` uninitialised, ``T(sequence or array)`` a copy converted to
        the type, ``T(tensor)`` the same data (the tensor's dtype must be the type's)."""
        if device is not None and str(device).partition(":")[0] != "cpu":
            raise RuntimeError(
                f"legacy constructor expects device type: cpu but device type: "
                f"{str(device).partition(':')[0]} was passed"
            )
        check_device(device)
        np_dtype = cls._dtype.np
        if not args:
            return _make(np.empty((0,), np_dtype))
        first = args[0]
        if len(args) == 1 and isinstance(first, Tensor):
            if first._data.dtype != np_dtype:
                raise TypeError(f"expected {cls._dtype!r} (got {first.dtype!r})")
            return first.detach()
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or (
            len(args) == 1 and isinstance(first, tuple) and type(first) is not tuple
        ):
            return _make(np.empty(_shape_arg(args), np_dtype))  # sizes, or an nl.Size
        if len(args) == 1 and isinstance(first, (list, tuple, np.ndarray)):
            return _make(np.array(_as_array(first, np_dtype), dtype=np_dtype))
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")


def _typed(dtype: _dtypes.dtype) -> _TypedTensorMeta:
    cls = _TypedTensorMeta(
        dtype._tensor_type,
        (),
        {
            "_dtype": dtype,
            "__module__": "nnlite",
            "__doc__": f"""Legacy constructor of {dtype!r} tensors.

    Examples:
        >>> t = nl.{dtype._tensor_type}([1, 0])
        >>> t.dtype, isinstance(t, nl.{dtype._tensor_type}), nl.{dtype._tensor_type}(2, 3).shape
        ({dtype!r}, True, nnlite.Size([2, 3]))
    """,
        },
    )
    return cls


FloatTensor = _typed(_dtypes.float32)
DoubleTensor = _typed(_dtypes.float64)
HalfTensor = _typed(_dtypes.float16)
ByteTensor = _typed(_dtypes.uint8)
CharTensor = _typed(_dtypes.int8)
ShortTensor = _typed(_dtypes.int16)
IntTensor = _typed(_dtypes.int32)
LongTensor = _typed(_dtypes.int64)
BoolTensor = _typed(_dtypes.bool)


class _VariableMeta(type):
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=False)``: since PyTorch 0.4 a Variable is a Tensor. Returns
    a tensor sharing ``tensor``'s data, with ``requires_grad`` set.

    Examples:
        >>> x = nl.autograd.Variable(nl.ones(2), requires_grad=True)
        >>> x
        tensor([1., 1.], requires_grad=True)
    """

    # (a Tensor, not a Variable: mypy accepts that from __new__ only as Any)
    def __new__(cls, data: Tensor, requires_grad: bool = False, volatile: bool = False) -> Any:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
