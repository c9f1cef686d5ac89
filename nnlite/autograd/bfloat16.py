"""``nl.bfloat16`` and ``nl.BFloat16Tensor``: PyTorch's names, refused clearly.

numpy has no bfloat16 arithmetic, and nnlite computes in float16, float32 and float64 only. The
names exist so that a program naming them (``dtype=torch.bfloat16``, ``x.bfloat16()``) stops at
once with an error that says what to use instead, rather than with a missing attribute. (Reading
bfloat16 weights from a checkpoint works: they load as float32, exactly.)
"""

from __future__ import annotations

from typing import Any, NoReturn

from .dtypes import dtype

__all__ = ["bfloat16", "BFloat16Tensor"]

MESSAGE = (
    "nnlite has no bfloat16: numpy has no bfloat16 arithmetic, and nnlite computes in float16, "
    "float32 and float64. Use nl.float16 for half the memory, or nl.float32 (bfloat16 weights in "
    "checkpoints load as float32 exactly)"
)


def refuse() -> NoReturn:
    """Raise the error that explains why nnlite has no bfloat16."""
    raise TypeError(MESSAGE)


class _RefusedDtype(dtype):
    """A dtype nnlite names but cannot store: using it to make or convert a tensor raises."""

    __slots__ = ()

    def __init__(self, name: str, itemsize: int, tensor_type: str) -> None:
        self.name = name
        self.is_floating_point = True
        self.itemsize = itemsize
        self._tensor_type = tensor_type

    # read-only on purpose (a dtype's ``np`` is set once, in its __init__): reading it raises
    @property
    def np(self) -> Any:  # type: ignore[override]
        refuse()

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return hash(self.name)

    def __reduce__(self) -> Any:
        return (_named, (self.name,))


def _named(name: str) -> Any:
    return bfloat16


#: PyTorch's bfloat16 (``torch.bfloat16``): named, refused on use
bfloat16 = _RefusedDtype("bfloat16", 2, "BFloat16Tensor")


class _RefusedTensorType(type):
    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        refuse()

    def __instancecheck__(cls, obj: Any) -> bool:
        return False


class BFloat16Tensor(metaclass=_RefusedTensorType):
    """PyTorch's legacy bfloat16 tensor type: constructing one raises (nnlite has no bfloat16).

    Args:
        *args: as the other legacy types' (sizes or data).

    Examples:
        >>> nl.BFloat16Tensor(2)
        Traceback (most recent call last):
        ...
        TypeError: nnlite has no bfloat16: ...
    """
