"""Nested structures of tensors or arrays: tuples, lists, dicts and namedtuples of leaves.

Used wherever a batch or a call's arguments cross a process boundary: a data-loader batch leaving
a worker, DataParallel's inputs and outputs.
"""

import collections.abc


class Slot:
    """Stands for the ``index``-th array of a message inside a structure sent between processes."""

    __slots__ = ("index",)

    def __init__(self, index):
        self.index = index

    def __reduce__(self):
        return (Slot, (self.index,))

    def __repr__(self):
        return f"Slot({self.index})"


def map_leaves(obj, is_leaf, fn):
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
            return type(obj)(items)
        except TypeError:
            return items
    return obj


def leaves(obj, is_leaf):
    """The leaves of ``obj`` (as ``map_leaves`` would visit them), in order."""
    found = []
    map_leaves(obj, is_leaf, found.append)
    return found


def to_slots(obj, is_leaf):
    """``(structure, leaves)``: ``obj`` with its leaves replaced by ``Slot(i)``, and the leaves."""
    found = []

    def take(x):
        found.append(x)
        return Slot(len(found) - 1)

    return map_leaves(obj, is_leaf, take), found


def from_slots(structure, values):
    """Inverse of ``to_slots``: put ``values[i]`` where ``Slot(i)`` stands."""
    return map_leaves(structure, _is_slot, lambda s: values[s.index])


def _is_slot(x):
    return type(x) is Slot
