"""Named result tuples of the linear-algebra functions (``nnlite.return_types.lu_unpack(P=...,
L=..., U=...)``), made from a name and its fields."""

from __future__ import annotations

from typing import Any

from .autograd.return_types import _ReturnType


def _field(i: int) -> property:
    return property(lambda self: self[i])


def named(name: str, fields: tuple[str, ...]) -> type:
    """A result type printing as ``nnlite.return_types.<name>(...)`` with named fields."""
    attributes: dict[str, Any] = {"__slots__": (), "_field_names": fields}
    attributes.update({f: _field(i) for i, f in enumerate(fields)})
    return type(name, (_ReturnType,), attributes)
