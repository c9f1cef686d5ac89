"""PyTorch's ``out=`` argument (``nl.add(x, y, out=result)``), in one place.

The result is computed as usual and written into ``out``'s memory; ``out`` is resized (with
PyTorch's warning when it held elements) if its shape differs, and must be able to hold the
result's dtype. As in PyTorch, ``out=`` is refused when autograd would have to record the op.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

from . import grad_mode
from . import op as _op
from .dtypes import from_numpy_dtype

if TYPE_CHECKING:
    from .tensor import Tensor

_Results = TypeVar("_Results", bound=tuple[Any, ...])


def _scalar_type(np_dtype: np.dtype[Any]) -> str:
    """PyTorch's scalar type name (``Float``, ``Long``, ...) of a numpy dtype."""
    return from_numpy_dtype(np_dtype)._tensor_type[: -len("Tensor")]


def _shape_text(shape: Sequence[int]) -> str:
    return f"[{', '.join(map(str, shape))}]"


@overload
def write_out(name: str, result: Tensor, out: Tensor, inputs: Sequence[Any] = ()) -> Tensor: ...
@overload
def write_out(
    name: str, result: _Results, out: Sequence[Tensor], inputs: Sequence[Any] = ()
) -> _Results: ...
def write_out(name: str, result: Any, out: Any, inputs: Sequence[Any] = ()) -> Any:
    """Write ``result`` (a Tensor, or a tuple of Tensors for ``out=(a, b)``) into ``out`` and return
    ``out``."""
    Tensor = _op.Tensor
    if grad_mode._state[0] and any(
        isinstance(x, Tensor) and x._requires_grad for x in (*inputs, out)
    ):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic "
            f"differentiation, but one of the arguments requires grad."
        )
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): out must be a tuple of {len(result)} Tensors")
        written = tuple(write_out(name, r, o) for r, o in zip(result, out))
        if type(result) is tuple:
            return written
        # namedtuples take their fields as arguments, nnlite's return types one sequence
        return type(result)(*written) if hasattr(result, "_fields") else type(result)(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    src, dst = result._data, out._data
    if src.dtype != dst.dtype and not np.can_cast(src.dtype, dst.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {_scalar_type(src.dtype)} can't be cast to the desired output type "
            f"{_scalar_type(dst.dtype)}"
        )
    if dst.shape != src.shape:
        if dst.size:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{_shape_text(dst.shape)}, which does not match the required output shape "
                f"{_shape_text(src.shape)}. This behavior is deprecated, and in a future PyTorch "
                f"release outputs will not be resized unless they have zero elements. You can "
                f"explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                f"t.resize_(0).",
                UserWarning,
                stacklevel=3,
            )
        out._data = np.empty(src.shape, dst.dtype)
    np.copyto(out._data, src, casting="unsafe")
    out._bump_version()
    return out
