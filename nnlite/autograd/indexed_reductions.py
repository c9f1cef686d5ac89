"""Reductions into positions given by indices or segments, as PyTorch's: ``index_reduce``
(``Tensor.index_reduce``), ``segment_reduce``, and ``nonzero_static`` (``nonzero`` of a fixed size).

``index_reduce`` reduces each destination slice with the source slices sent to it, and
``segment_reduce`` reduces consecutive slices, one by one: both are made of differentiable ops, so their gradients
(of any order) come from those ops.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .creation_keywords import creation_keywords
from .providers import implementation

if TYPE_CHECKING:
    from .tensor import Tensor

__all__ = ["index_reduce", "segment_reduce", "nonzero_static"]

_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
_warned = [False]


@creation_keywords("out")
def index_reduce(
    input: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
) -> Tensor:
    """Reduce the slices of ``source`` into the slices of ``input`` that ``index`` names along
    ``dim`` (PyTorch marks it beta and warns once).

    Args:
        input (Tensor): the destination.
        dim (int): the dimension indexed.
        index (Tensor): int64 indices into ``input``'s ``dim``, one per slice of ``source``.
        source (Tensor): the slices reduced in.
        reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool): reduce ``input``'s own values too. Default: True.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.index_reduce(nl.ones(3), 0, nl.tensor([0, 0]), nl.tensor([2., 3.]), "prod")
        tensor([6., 1., 1.])
    """
    if not _warned[0]:
        _warned[0] = True
        warnings.warn(
            "index_reduce() is in beta and the API may change at any time.",
            UserWarning,
            stacklevel=2,
        )
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}."
        )
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    ndim = max(input.ndim, 1)
    dim = dim % ndim
    if input.ndim != source.ndim or any(
        a != b for d, (a, b) in enumerate(zip(input.shape, source.shape)) if d != dim
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified dimension. "
            f"Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}"
        )
    if source.ndim and index.numel() != source.shape[dim]:
        raise IndexError(
            f"index_reduce_(): Number of indices ({index.numel()}) should be equal to "
            f"source.size(dim) ({source.shape[dim]})"
        )
    cat = implementation("creation.cat")

    scalar = input.ndim == 0
    if scalar:
        input, source = input.reshape(1), source.reshape(1)
    targets = np.asarray(index._data).reshape(-1)
    pieces = []
    for j in range(input.shape[dim]):
        own = input.narrow(dim, j, 1)
        rows = np.nonzero(targets == j)[0]
        if not len(rows):
            pieces.append(own)
            continue
        picked = source.index_select(dim, index.new(rows.tolist()))
        block = cat([own, picked], dim) if include_self else picked
        if reduce == "prod":
            out = block.prod(dim, keepdim=True)
        elif reduce == "mean":
            total = block.sum(dim, keepdim=True)
            if block.is_floating_point():
                out = total / block.shape[dim]
            else:  # integers: floor division, as PyTorch
                out = total.div(block.shape[dim], rounding_mode="floor")
        elif reduce == "amax":
            out = block.amax(dim, keepdim=True)
        else:
            out = block.amin(dim, keepdim=True)
        pieces.append(out.to(input.dtype))
    result = cat(pieces, dim)
    reduced: Tensor = result.reshape(()) if scalar else result
    return reduced


_EMPTY = {"sum": 0.0, "prod": 1.0, "mean": float("nan"), "max": -np.inf, "min": np.inf}


def segment_reduce(
    data: Any,
    reduce: str,
    *,
    lengths: Any = None,
    indices: Any = None,
    offsets: Any = None,
    axis: int = 0,
    unsafe: bool = False,
    initial: float | None = None,
) -> Tensor:
    """Reduce consecutive segments of ``data`` along ``axis``, segments given by ``lengths`` or
    ``offsets`` (one-dimensional).

    An empty segment gives ``initial`` when given, else the reduction's identity (``nan`` for
    ``"mean"``); ``initial`` joins every segment's reduction (for ``"mean"``: added to the sum).

    Args:
        data (Tensor): the values.
        reduce (str): ``"sum"``, ``"mean"``, ``"max"``, ``"min"`` or ``"prod"``.
        lengths (Tensor, optional): the length of each segment.
        indices (Tensor, optional): not supported (as PyTorch).
        offsets (Tensor, optional): the segments' boundaries (one more than the segments).
        axis (int): the dimension segmented. Default: 0.
        unsafe (bool): skip the check that the lengths cover ``data``. Default: False.
        initial (float, optional): the starting value of each reduction.

    Returns:
        Tensor: ``data`` with ``axis`` replaced by one entry per segment.

    Examples:
        >>> nl.segment_reduce(nl.tensor([1., 2., 3., 4., 5.]), "sum", lengths=nl.tensor([2, 0, 3]))
        tensor([ 3.,  0., 12.])
    """
    full, stack = implementation("creation.full"), implementation("creation.stack")

    if reduce not in _EMPTY:
        raise RuntimeError(f"segment_reduce(): reduction {reduce} is not supported")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if lengths is None and offsets is None:
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    if lengths is not None:
        bounds = np.concatenate([[0], np.cumsum(np.asarray(lengths._data).reshape(-1))])
        given = lengths
    else:
        bounds = np.asarray(offsets._data).reshape(-1)
        given = offsets
    if given.ndim != 1:
        raise NotImplementedError("segment_reduce: nnlite takes one-dimensional lengths or offsets")
    axis = axis % data.ndim
    if axis != given.ndim - 1:
        raise RuntimeError(
            f"segment_reduce(): Expected axis to be the last dimension of lengths but got {axis}."
        )
    if not unsafe and bounds[-1] != data.shape[axis]:
        raise RuntimeError(
            "segment_reduce(): Expected all rows of lengths along axis to sum to "
            "data.size(lengths.dim()-1) when !unsafe."
        )
    shape = list(data.shape)
    del shape[axis]
    pieces = []
    for start, end in zip(bounds[:-1], bounds[1:]):
        count = int(end - start)
        if count == 0:
            value = _EMPTY[reduce] if initial is None else initial
            pieces.append(full(shape, value, dtype=data.dtype))
            continue
        part = data.narrow(axis, int(start), count)
        if reduce == "sum" or reduce == "mean":
            out = part.sum(axis)
            if initial is not None:
                out = out + initial
            if reduce == "mean":
                out = out / count
        elif reduce == "prod":
            out = part.prod(axis) * (1.0 if initial is None else initial)
        else:
            out = part.amax(axis) if reduce == "max" else part.amin(axis)
            if initial is not None:
                bound = full(shape, initial, dtype=data.dtype)
                out = out.maximum(bound) if reduce == "max" else out.minimum(bound)
        pieces.append(out)
    reduced: Tensor = stack(pieces, axis)
    return reduced


def nonzero_static(input: Any, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` with a fixed number of rows: the first ``size`` indices of non-zero elements,
    padded with ``fill_value`` rows when there are fewer.

    Args:
        input (Tensor): the tensor.
        size (int): the number of rows of the result.
        fill_value (int): the padding. Default: -1.

    Returns:
        Tensor: int64, ``(size, input.ndim)``.

    Examples:
        >>> nl.nonzero_static(nl.tensor([0, 1, 0, 2]), size=3)
        tensor([[ 1],
                [ 3],
                [-1]])
    """
    tensor = implementation("creation.tensor")

    if size < 0:
        raise RuntimeError(
            f"nonzero_static: 'size' must be an non-negative integer, but got {size}"
        )
    found = np.argwhere(np.asarray(input._data)).astype(np.int64)[:size]
    pad = np.full((size - len(found), max(input.ndim, 0)), fill_value, dtype=np.int64)
    indices: Tensor = tensor(np.concatenate([found.reshape(-1, input.ndim), pad]), dtype=None)
    return indices
