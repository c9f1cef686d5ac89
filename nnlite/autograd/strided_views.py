"""Views with explicit sizes and strides, as PyTorch's: ``as_strided`` (and ``as_strided_``), and the
factories that give a layout (``empty_strided``, ``empty_permuted``).

A tensor's memory is the numpy array that owns it (its *storage*, in PyTorch's words); sizes and
strides are counted in elements and the offset from the storage's first element. ``as_strided`` is
a view of that memory, and its gradient maps through the storage positions (``StorageMap``), so
overlapping views accumulate as PyTorch's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .op import Op
from .ops import vjp
from .sizes import shape_arg
from .storage_positions import StorageMap, _positions, storage_of

if TYPE_CHECKING:
    from .._typing import Array, Gradient
    from .tensor import Tensor

__all__ = [
    "as_strided",
    "as_strided_",
    "empty_strided",
    "empty_permuted",
    "slice_inverse",
    "resize_as_",
]


def _check(size: list[int], stride: list[int], offset: int, storage: int, itemsize: int) -> None:
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(n < 0 for n in size):
        raise RuntimeError(
            f"Storage size calculation overflowed with sizes={size} and strides={stride}"
        )
    if any(s < 0 for s in stride):
        raise RuntimeError(
            f"as_strided: Negative strides are not supported at the moment, got strides: {stride}"
        )
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    if 0 in size:
        return
    needed = offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))
    if needed > storage:
        raise RuntimeError(
            f"setStorage: sizes {size}, strides {stride}, storage offset {offset}, and itemsize "
            f"{itemsize} requiring a storage size of {needed * itemsize} are out of bounds for "
            f"storage of size {storage * itemsize}"
        )


class AsStrided(Op):
    """The view of the storage ``storage`` at ``size``/``stride``/``offset`` (its forward reads
    the memory itself, not only the input's elements)."""

    def forward(self, a: Array) -> Array:
        itemsize = self.storage.itemsize
        return np.lib.stride_tricks.as_strided(
            self.storage[self.offset :],
            shape=tuple(self.size),
            strides=tuple(s * itemsize for s in self.stride),
        )

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        return (
            vjp.call(StorageMap, grad, source=self.target, target=self.source, length=self.length),
        )


def _view(input: Any, size: Any, stride: Any, storage_offset: int | None) -> Tensor:
    storage, own_offset = storage_of(input._data)
    size, stride = [int(n) for n in size], [int(s) for s in stride]
    offset = own_offset if storage_offset is None else int(storage_offset)
    _check(size, stride, offset, storage.size, storage.itemsize)
    target = _positions(size, stride, offset)
    source = _positions(input._data.shape, input.stride(), own_offset)
    return AsStrided.apply(
        input,
        storage=storage,
        size=size,
        stride=stride,
        offset=offset,
        source=source,
        target=target,
        length=storage.size,
    )


def as_strided(input: Any, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s memory with the given sizes and strides (in elements), starting
    ``storage_offset`` elements into the memory (default: where ``input`` starts).

    Args:
        input (Tensor): the tensor whose memory is viewed.
        size (tuple of ints): the view's shape.
        stride (tuple of ints): the view's strides, non-negative.
        storage_offset (int, optional): the first element's position in the memory.

    Returns:
        Tensor: the view (writes to it show in ``input``).

    Raises:
        RuntimeError: when the view reaches past the memory, as PyTorch's.

    Examples:
        >>> nl.as_strided(nl.arange(6.), (2, 2), (1, 2))
        tensor([[0., 2.],
                [1., 3.]])
    """
    from .view_inplace import mark_view  # (it builds on this module's ops)

    view: Tensor = mark_view(input, _view(input, size, stride, storage_offset))
    return view


def as_strided_(input: Any, size: Any, stride: Any, storage_offset: int | None = None) -> Tensor:
    """In-place ``as_strided``: ``input`` becomes the view.

    Args:
        input (Tensor): the tensor, changed in place.
        size (tuple of ints): the new shape.
        stride (tuple of ints): the new strides.
        storage_offset (int, optional): the first element's position in the memory.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> x = nl.arange(4.)
        >>> nl.as_strided_(x, (2,), (2,))
        tensor([0., 2.])
    """
    changed: Tensor = input._take_view(_view(input, size, stride, storage_offset))
    return changed


def _factory(size: Any, stride: Any, dtype: Any, device: Any, requires_grad: bool) -> Tensor:
    from ..device import check_device
    from .providers import implementation

    zeros = implementation("creation.zeros")

    check_device(device)
    size, stride = list(shape_arg(size)), [int(s) for s in stride]
    needed = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if 0 not in size else 0
    _check(size, stride, 0, needed, 1)
    storage = zeros(max(needed, 0), dtype=dtype)
    out = as_strided(storage, size, stride)
    return out.requires_grad_() if requires_grad else out


def empty_strided(
    size: Any,
    stride: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """An uninitialised tensor with the given sizes and strides (nnlite fills it with zeros).

    Args:
        size (tuple of ints): the shape.
        stride (tuple of ints): the strides, in elements.
        dtype (nl.dtype, optional): the dtype. Default: the default dtype.
        layout: accepted for PyTorch's signature (strided only).
        device (str or nl.device, optional): the CPU only.
        pin_memory (bool): accepted. Default: False.
        requires_grad (bool): record operations on it. Default: False.

    Returns:
        Tensor: the tensor.

    Examples:
        >>> nl.empty_strided((2, 3), (1, 2)).stride()
        (1, 2)
    """
    return _factory(size, stride, dtype, device, requires_grad)


def empty_permuted(
    size: Any,
    physical_layout: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    pin_memory: bool = False,
    requires_grad: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` laid out in memory in the dimension order
    ``physical_layout`` (outermost first); nnlite fills it with zeros.

    Args:
        size (tuple of ints): the logical shape.
        physical_layout (tuple of ints): a permutation of the dimensions, outermost first.
        dtype (nl.dtype, optional): the dtype. Default: the default dtype.
        layout: accepted for PyTorch's signature.
        device (str or nl.device, optional): the CPU only.
        pin_memory (bool): accepted. Default: False.
        requires_grad (bool): record operations on it. Default: False.

    Returns:
        Tensor: the tensor.

    Examples:
        >>> nl.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
        (12, 1, 3)
    """
    size = list(shape_arg(size))
    order = [int(d) for d in physical_layout]
    if len(order) != len(size):
        raise RuntimeError(
            f"Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(order)}"
        )
    if sorted(order) != list(range(len(size))):
        raise RuntimeError("Duplicate dim not allowed")
    stride = [0] * len(size)
    step = 1
    for dim in reversed(order):
        stride[dim] = step
        step *= max(size[dim], 1)
    return _factory(size, stride, dtype, device, requires_grad)


def slice_inverse(
    input: Any, src: Any, dim: int = 0, start: Any = None, end: Any = None, step: int = 1
) -> Tensor:
    """The inverse of slicing: a view of ``input``'s memory with ``src``'s sizes, strides and
    offset, as if ``input`` were the slice ``src[start:end:step]`` along ``dim`` of ``src``
    (``dim``, ``start``, ``end`` and ``step`` describe that slice; the view is read from ``src``'s
    geometry).

    Args:
        input (Tensor): the slice.
        src (Tensor): the tensor the slice is taken from (its geometry is used).
        dim (int): the sliced dimension. Default: 0.
        start (int, optional): the slice's start.
        end (int, optional): the slice's end.
        step (int): the slice's step. Default: 1.

    Returns:
        Tensor: a view of ``input``'s memory shaped as ``src``.

    Examples:
        >>> x = nl.arange(6.).reshape(2, 3)
        >>> nl.slice_inverse(x, nl.zeros(1, 3), 0, 1, 2)
        tensor([[0., 1., 2.]])
    """
    storage, offset = storage_of(input._data)
    size, stride = list(src.shape), list(src.stride())
    offset = storage_of(src._data)[1]
    _check(size, stride, offset, storage.size, storage.itemsize)
    region = [slice(None)] * src.ndim
    if src.ndim:
        region[dim % src.ndim] = slice(start, end, step)
    mask = np.ones(src.shape, dtype=src._data.dtype)
    mask[tuple(region)] = 0
    return SliceInverse.apply(
        input, src, storage=storage, size=size, stride=stride, offset=offset,
        region=tuple(region), mask=mask,
    )  # fmt: skip


class SliceInverse(AsStrided):
    """``slice_inverse``: the view of the memory with ``src``'s geometry; as a function, ``src``
    with its slice ``region`` replaced by the input, which is how gradients flow."""

    # (src, the second input, is only read by the backward)
    def forward(self, a: Array, src: Array) -> Array:  # type: ignore[override]
        return super().forward(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        return (
            grad[self.region] if needs[0] else None,
            grad * vjp.const(self.mask, grad) if needs[1] else None,
        )


def resize_as_(input: Any, the_template: Any, *, memory_format: Any = None) -> Tensor:
    """Resize ``input`` in place to ``the_template``'s shape (``Tensor.resize_``).

    Args:
        input (Tensor): the tensor, resized in place.
        the_template (Tensor): the tensor whose shape is taken.
        memory_format: accepted for PyTorch's signature (contiguous only).

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.resize_as_(nl.zeros(3), nl.zeros(2, 2)).shape
        nnlite.Size([2, 2])
    """
    resized: Tensor = input.resize_(the_template.shape)
    return resized


def resize_(input: Any, size: Sequence[int]) -> Tensor:
    """``input`` reshaped in place to ``size``, its memory reused from the start (grown when too
    small, the old elements kept first), as ``Tensor.resize_``."""
    if input._requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    size = [int(n) for n in size]
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {size}")
    count = int(np.prod(size, dtype=np.int64))
    storage, offset = storage_of(input._data)
    if offset + count > storage.size:
        grown = np.zeros(offset + count, dtype=storage.dtype)
        grown[: storage.size] = storage
        storage = grown
    input._data = storage[offset : offset + count].reshape(size)
    input._bump_version()
    resized: Tensor = input
    return resized
