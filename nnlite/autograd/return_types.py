"""The named tuples that ``max(dim)``, ``min(dim)``, ``sort``, ``topk``... return, as PyTorch's
``torch.return_types``: a tuple (indexing, unpacking, ``len``) with named fields, printed as
``nnlite.return_types.max(\\nvalues=tensor(...),\\nindices=tensor(...))``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from .tensor import Tensor

_R = TypeVar("_R", bound="_ReturnType")

__all__ = [
    "max",
    "min",
    "sort",
    "topk",
    "kthvalue",
    "median",
    "mode",
    "cummax",
    "cummin",
    "aminmax",
]


class _ReturnType(tuple[Any, ...]):
    """Base of the result types; a subclass lists its ``_field_names``."""

    __slots__ = ()
    _field_names: tuple[str, ...] = ()

    def __new__(cls: type[_R], sequence: Iterable[Any]) -> _R:
        items = tuple(sequence)
        if len(items) != len(cls._field_names):
            raise TypeError(
                f"nnlite.return_types.{cls.__name__} takes a {len(cls._field_names)}-sequence "
                f"({len(items)}-sequence given)"
            )
        return super().__new__(cls, items)

    @property
    def n_fields(self) -> int:
        return len(self._field_names)

    n_sequence_fields = n_fields

    def __repr__(self) -> str:
        fields = ",\n".join(f"{name}={value!r}" for name, value in zip(self._field_names, self))
        return f"nnlite.return_types.{type(self).__name__}(\n{fields})"

    __str__ = __repr__

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (tuple(self),))


class _ValuesIndices(_ReturnType):
    """``(values, indices)``: the fields of every result type here."""

    __slots__ = ()
    _field_names = ("values", "indices")

    @property
    def values(self) -> Tensor:
        values: Tensor = self[0]
        return values

    @property
    def indices(self) -> Tensor:
        indices: Tensor = self[1]
        return indices


class max(_ValuesIndices):
    """What ``max`` returns: ``(values, indices)``."""

    __slots__ = ()


class min(_ValuesIndices):
    """What ``min`` returns: ``(values, indices)``."""

    __slots__ = ()


class sort(_ValuesIndices):
    """What ``sort`` returns: ``(values, indices)``."""

    __slots__ = ()


class topk(_ValuesIndices):
    """What ``topk`` returns: ``(values, indices)``."""

    __slots__ = ()


class kthvalue(_ValuesIndices):
    """What ``kthvalue`` returns: ``(values, indices)``."""

    __slots__ = ()


class median(_ValuesIndices):
    """What ``median`` returns: ``(values, indices)``."""

    __slots__ = ()


class mode(_ValuesIndices):
    """What ``mode`` returns: ``(values, indices)``."""

    __slots__ = ()


class cummax(_ValuesIndices):
    """What ``cummax`` returns: ``(values, indices)``."""

    __slots__ = ()


class cummin(_ValuesIndices):
    """What ``cummin`` returns: ``(values, indices)``."""

    __slots__ = ()


class aminmax(_ReturnType):
    """What ``aminmax`` returns: ``(min, max)``."""

    __slots__ = ()
    _field_names = ("min", "max")

    @property
    def min(self) -> Tensor:
        min: Tensor = self[0]
        return min

    @property
    def max(self) -> Tensor:
        max: Tensor = self[1]
        return max
