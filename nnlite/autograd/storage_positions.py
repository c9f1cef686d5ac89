"""Storage positions: where each element of a strided view sits in the memory it views.

A tensor's memory is the flat numpy array that owns it (its *storage*); a view's elements are
positions in it. ``StorageMap`` moves values between two sets of positions, which is the gradient
of ``as_strided`` and of an in-place change made through a view (``view_inplace.py``); both
modules build on this one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .op import Op
from .ops import vjp

if TYPE_CHECKING:
    from .._typing import Array, Gradient

__all__ = ["StorageMap", "storage_of"]


def storage_of(a: np.ndarray) -> tuple[np.ndarray, int]:
    """The flat array owning ``a``'s memory and ``a``'s offset in it, in elements."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not root.flags.c_contiguous or root.dtype != a.dtype:
        root = a  # memory nnlite did not lay out itself: the tensor is its own storage
    flat = root.reshape(-1)
    start = a.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    return flat, start // a.itemsize if a.size else 0


def _positions(size: Sequence[int], stride: Sequence[int], offset: int) -> np.ndarray:
    """The storage position of each element of a view, in the view's order."""
    index = np.full(tuple(size), offset, dtype=np.int64)
    for dim, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[dim] = n
        index = index + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return index


class StorageMap(Op):
    """A linear map through storage positions: the input's elements are added into a zero storage
    of ``length`` elements at ``source`` (one position per element), and the result reads the
    positions ``target`` (of the result's shape). ``as_strided``'s gradient is one, and the
    adjoint of one is another with the two position arrays swapped."""

    def forward(self, a: Array) -> Array:
        storage = np.zeros(self.length, dtype=a.dtype)
        np.add.at(storage, self.source.reshape(-1), a.reshape(-1))
        out: Array = storage[self.target]
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient]:
        return (
            vjp.call(StorageMap, grad, source=self.target, target=self.source, length=self.length),
        )
