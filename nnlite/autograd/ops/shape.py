"""Shape ops (views where numpy gives views), joining, and indexing with its scatter backward."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..op import Op
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from .vjp import Operand


class Reshape(Op):
    node_name = "ViewBackward0"
    if TYPE_CHECKING:  # a parameter every caller gives
        shape: tuple[int, ...]
    else:
        shape = None

    def forward(self, a: Array) -> Array:
        self.input_shape = a.shape
        try:
            return a.reshape(self.shape)
        except ValueError:
            raise RuntimeError(
                f"shape '[{', '.join(map(str, self.shape))}]' is invalid for input of size {a.size}"
            ) from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return grad.reshape(self.input_shape)


class Permute(Op):
    if TYPE_CHECKING:  # a parameter every caller gives
        dims: tuple[int, ...]
    else:
        dims = None

    def forward(self, a: Array) -> Array:
        dims = self.dims
        if sorted(dims) != list(range(a.ndim)):
            raise RuntimeError(
                f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                f"is not equal to len(dims) = {len(dims)}"
                if len(dims) != a.ndim
                else f"permute(): duplicate or out-of-range dims in {tuple(dims)}"
            )
        permuted: Array = a.transpose(dims)
        return permuted

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return vjp.permute(grad, tuple(np.argsort(self.dims)))


class Expand(Op):
    if TYPE_CHECKING:  # a parameter every caller gives
        shape: tuple[int, ...]
    else:
        shape = None

    def forward(self, a: Array) -> Array:
        self.input_shape = a.shape
        shape = self.shape
        try:
            return np.broadcast_to(a, shape)
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                f"({a.shape[-1] if a.ndim else 1}) at non-singleton dimension {len(shape) - 1}.  "
                f"Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
                f"[{', '.join(map(str, a.shape))}]"
            ) from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return vjp.sum_to(grad, self.input_shape)


class Cat(Op):
    """``cat(tensors, dim)``: inputs are the positional arguments."""

    dim = 0

    def forward(self, *arrays: Array) -> Array:
        dim = self.dim
        self.sizes = [a.shape[dim] for a in arrays]
        try:
            return np.concatenate(arrays, axis=dim)
        except ValueError as e:
            raise RuntimeError(
                f"Sizes of tensors must match except in dimension {dim}: "
                f"{[tuple(a.shape) for a in arrays]}"
            ) from e

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient, ...]:
        lead = (slice(None),) * self.dim
        out, start = [], 0
        for size in self.sizes:
            out.append(grad[lead + (slice(start, start + size),)])
            start += size
        return tuple(out)


class Stack(Op):
    dim = 0

    def forward(self, *arrays: Array) -> Array:
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {[tuple(a.shape) for a in arrays]}"
            )
        return np.stack(arrays, axis=self.dim)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient, ...]:
        lead = (slice(None),) * self.dim
        return tuple(grad[lead + (i,)] for i in range(grad.shape[self.dim]))


class GetItem(Op):
    """``a[index]``; backward scatters into zeros, accumulating repeated advanced indices."""

    node_name = "IndexBackward0"
    index: Any = None  # an indexing expression

    def forward(self, a: Array) -> Array:
        self.shape = a.shape
        try:
            item: Array = a[self.index]
            return item
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return vjp.call(IndexAddZeros, grad, shape=self.shape, index=self.index)


class IndexAddZeros(Op):
    """Zeros of ``shape`` with ``grad`` added at ``index``; the adjoint of indexing.

    ``index`` is an indexing expression, or ``("along", dim, idx)`` for ``take_along_axis``'s.
    """

    if TYPE_CHECKING:  # a parameter every caller gives
        shape: tuple[int, ...]
    else:
        shape = None
    index: Any = None  # an indexing expression, or ("along", dim, idx)

    def forward(self, grad: Array) -> Array:
        index = self.index
        out = np.zeros(self.shape, dtype=grad.dtype)
        if _is_along(index):
            _, dim, idx = index
            np.add.at(out, _along_axis_index(idx, dim), grad)  # add: repeated indices accumulate
        elif _is_basic(index):
            out[index] = grad
        else:
            np.add.at(out, index, grad)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        index = self.index
        if _is_along(index):
            _, dim, idx = index
            return vjp.call(GatherAlong, grad, dim=dim, index=idx)
        return grad[index]


class GatherAlong(Op):
    if TYPE_CHECKING:  # parameters every caller gives
        dim: int
        index: Array
    else:
        dim = index = None

    def forward(self, a: Array) -> Array:
        self.shape = a.shape
        return np.take_along_axis(a, self.index, axis=self.dim)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return vjp.call(
            IndexAddZeros, grad, shape=self.shape, index=("along", self.dim, self.index)
        )


class IndexPut(Op):
    """``a[index] = value`` recorded in place: the result *is* ``a``'s array, updated."""

    index: Any = None  # an indexing expression

    def forward(self, a: Array, value: Operand) -> Array:
        self.value_shape = np.shape(value)
        assign(a, self.index, value)
        return a

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[Gradient | None, Gradient | None]:
        index = self.index
        ga = gv = None
        if needs[0]:
            keep = np.ones(grad.shape, dtype=bool)
            keep[index] = False
            ga = grad * vjp.mask(keep, grad)
        if needs[1]:
            gv = grad[index]
            gv = (
                gv.reshape(self.value_shape)
                if gv.ndim < len(self.value_shape)
                else vjp.sum_to(gv, self.value_shape)
            )
        return ga, gv


def assign(a: Array, index: Any, value: Operand) -> None:
    """``a[index] = value`` with PyTorch's leniency: leading size-1 dims of ``value`` may be dropped."""
    try:
        a[index] = value
    except ValueError:
        target = a[index].shape
        value = np.asarray(value)
        extra = value.ndim - len(target)
        if extra > 0 and all(s == 1 for s in value.shape[:extra]):
            a[index] = value.reshape(value.shape[extra:])
        else:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, value.shape))}] cannot "
                f"be broadcast to indexing result of shape [{', '.join(map(str, target))}]"
            ) from None


def _is_along(index: Any) -> bool:
    return (
        isinstance(index, tuple)
        and len(index) == 3
        and isinstance(index[0], str)
        and index[0] == "along"
    )


def _along_axis_index(idx: Array, dim: int) -> tuple[Array, ...]:
    """The fancy index that ``take_along_axis(a, idx, dim)`` reads, usable with ``np.add.at``."""
    grids = np.indices(idx.shape, sparse=True)
    return tuple(idx if d == dim else grids[d] for d in range(idx.ndim))


def _is_basic(index: Any) -> bool:
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) for i in items)
