"""Nested structures of tensors or arrays: tuples, lists, dicts and namedtuples of leaves.

Used wherever a batch or a call's arguments cross a process boundary: a data-loader batch leaving
a worker, DataParallel's inputs and outputs.
"""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Sequence
from typing import Any


class Slot:
    """Stands for the ``index``-th array of a message inside a structure sent between processes."""

    __slots__ = ("index",)
    index: int

    def __init__(self, index: int) -> None:
        self.index = index

    def __reduce__(self) -> tuple[type[Slot], tuple[int]]:
        return (Slot, (self.index,))

    def __repr__(self) -> str:
        return f"Slot({self.index})"


# A structure's leaves have whatever types ``is_leaf`` picks, and the structure rebuilt around
# ``fn``'s results has the shape of the one given: their types are ``Any``, as JSON values are.
def map_leaves(obj: object, is_leaf: Callable[[object], bool], fn: Callable[[Any], object]) -> Any:
    """Rebuild ``obj`` with every leaf ``x`` for which ``is_leaf(x)`` holds replaced by ``fn(x)``.

    Recurses through tuples, namedtuples, lists and dicts (other mappings are rebuilt as their own
    type when possible); everything else is left as is.

    Examples:
        >>> a = np.zeros((2, 3))
        >>> map_leaves({"x": [a, 1]}, lambda v: isinstance(v, np.ndarray), np.shape)
        {'x': [(2, 3), 1]}
    """
    if is_leaf(obj):
        return fn(obj)
    if isinstance(obj, tuple):
        items = [map_leaves(x, is_leaf, fn) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else type(obj)(items)
    if isinstance(obj, list):
        return [map_leaves(x, is_leaf, fn) for x in obj]
    if isinstance(obj, collections.abc.Mapping):
        items = {k: map_leaves(v, is_leaf, fn) for k, v in obj.items()}
        if type(obj) is dict:
            return items
        try:
            # a Mapping subclass whose constructor takes the items (else TypeError, below)
            return type(obj)(items)  # type: ignore[call-arg]
        except TypeError:
            return items
    return obj


def leaves(obj: object, is_leaf: Callable[[object], bool]) -> list[Any]:
    """The leaves of ``obj`` (as ``map_leaves`` would visit them), in order."""
    found: list[Any] = []
    map_leaves(obj, is_leaf, found.append)
    return found


def to_slots(obj: object, is_leaf: Callable[[object], bool]) -> tuple[Any, list[Any]]:
    """``(structure, leaves)``: ``obj`` with its leaves replaced by ``Slot(i)``, and the leaves."""
    found: list[Any] = []

    def take(x: object) -> Slot:
        found.append(x)
        return Slot(len(found) - 1)

    return map_leaves(obj, is_leaf, take), found


def from_slots(structure: object, values: Sequence[object]) -> Any:
    """Inverse of ``to_slots``: put ``values[i]`` where ``Slot(i)`` stands."""
    return map_leaves(structure, _is_slot, lambda s: values[s.index])


def _is_slot(x: object) -> bool:
    return type(x) is Slot
