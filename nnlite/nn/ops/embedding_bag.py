"""``embedding_bag``: the sum, mean or max of each bag of embedding rows, built on ``embedding``
(lookups, ``max_norm``) and a matrix product or a masked max (so every order of gradient)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .embedding import embedding

if TYPE_CHECKING:
    from ..._typing import Array
    from ...autograd.tensor import Tensor


def _bags(
    input: Tensor, offsets: Tensor | None, include_last_offset: bool
) -> tuple[Array, Array, int]:
    """``(flat indices, bag of each position, number of bags)`` from 2-D input or 1-D + offsets."""
    indices = np.asarray(input._data)
    if indices.ndim == 2:
        if offsets is not None:
            raise ValueError(
                f"if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length sequences. However, found offsets of type {type(offsets).__name__}"
            )
        count, length = indices.shape
        return indices.reshape(-1), np.repeat(np.arange(count), length), count
    if indices.ndim != 1:
        raise ValueError(
            f"input has to be 1D or 2D Tensor, but got Tensor of dimension {indices.ndim}"
        )
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    starts = np.asarray(offsets._data if hasattr(offsets, "_data") else offsets).astype(np.int64)
    if starts.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            f"offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {starts[0]}"
        )
    if include_last_offset:  # as PyTorch: the last bag still runs to the end of ``input``
        starts = starts[:-1]
    ends = np.append(starts[1:], indices.size)
    bag = np.zeros(indices.size, dtype=np.int64)
    for b, (lo, hi) in enumerate(zip(starts, ends)):
        bag[lo:hi] = b
    return indices, bag, len(starts)


def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The ``sum``, ``mean`` or ``max`` of each bag of rows of ``weight``.

    Bags are the rows of a 2-D ``input``, or the runs of a 1-D ``input`` starting at ``offsets``.
    Entries equal to ``padding_idx`` are left out; an empty bag gives zeros.

    Args:
        input (Tensor): int64 indices, ``(B, L)`` or ``(T,)`` with ``offsets``.
        weight (Tensor): the ``(num_embeddings, embedding_dim)`` table.
        offsets (Tensor, optional): where each bag of a 1-D ``input`` starts.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): not supported (raises if True).
        mode (str): ``"sum"``, ``"mean"`` or ``"max"``. Default: ``"mean"``.
        sparse (bool): not supported (raises if True).
        per_sample_weights (Tensor, optional): a weight per index (``mode="sum"`` only).
        include_last_offset (bool): ``offsets`` ends with the total length. Default: False.
        padding_idx (int, optional): an index left out of every bag.

    Returns:
        Tensor: ``(B, embedding_dim)``.

    Examples:
        >>> F.embedding_bag(nl.tensor([[0, 2], [1, 1]]), nl.eye(3), mode="sum")
        tensor([[1., 0., 1.],
                [0., 2., 0.]])
    """
    from ...autograd.creation import tensor
    from ...autograd.ops.where import Where

    if mode not in ("sum", "mean", "max"):
        raise ValueError(f"mode has to be one of sum, mean or max, but got {mode}")
    if per_sample_weights is not None:
        if mode != "sum":
            raise NotImplementedError(
                "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                "GitHub."
            )
        if tuple(per_sample_weights.shape) != tuple(input.shape):
            raise ValueError(
                f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not "
                f"None, then it must have the same shape as the input ({tuple(input.shape)})"
            )
    indices, bag, count = _bags(input, offsets, include_last_offset)
    rows = embedding(tensor(indices), weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    keep = np.ones(indices.size, dtype=bool)
    if padding_idx is not None:
        keep = indices % weight.shape[0] != padding_idx % weight.shape[0]
    member = (bag[None, :] == np.arange(count)[:, None]) & keep[None, :]  # (bags, positions)
    dtype = weight._data.dtype
    if mode == "max":
        if not indices.size:
            return rows.new_zeros((count, weight.shape[1]))
        masked = Where.apply(member[:, :, None], rows.unsqueeze(0), -np.inf)
        best = masked.amax(1)
        out: Tensor = Where.apply(member.any(1)[:, None], best, 0.0)
        return out
    matrix = member.astype(dtype)
    if mode == "mean":
        matrix = matrix / np.maximum(matrix.sum(1, keepdims=True), 1)
    mix = tensor(matrix)
    if per_sample_weights is not None:
        mix = mix * per_sample_weights.reshape(1, -1)
    return mix @ rows
