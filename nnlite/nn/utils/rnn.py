"""Variable-length sequences: ``pad_sequence``, ``PackedSequence``, ``pack_padded_sequence``,
``pad_packed_sequence``, ``pack_sequence`` (PyTorch's layout: time-major data of the sequences still
running at each step, longest first)."""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING

import numpy as np

from ...autograd.creation import cat, stack
from ...autograd.tensor import Tensor, _make

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike
    from typing_extensions import Self

    from ..._typing import Array

__all__ = [
    "PackedSequence",
    "pad_sequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pack_sequence",
]


class PackedSequence(
    namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])
):
    """Sequences of different lengths packed time step by time step.

    ``data`` holds, for t = 0, 1, ..., the rows of the ``batch_sizes[t]`` sequences longer than t
    (sequences sorted by decreasing length; ``sorted_indices`` maps back to the caller's order).
    """

    __slots__ = ()

    def __new__(
        cls,
        data: Tensor,
        batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None,
        unsorted_indices: Tensor | None = None,
    ) -> Self:
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _make(np.argsort(sorted_indices._data).astype(np.int64))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)


def _lengths(lengths: Tensor | ArrayLike) -> Array:
    values = lengths._data if isinstance(lengths, Tensor) else np.asarray(lengths)
    return np.asarray(values, dtype=np.int64).reshape(-1)


def pad_sequence(
    sequences: Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack tensors of shape (L_i, *) into (L_max, B, *) (or (B, L_max, *)), padding with ``padding_value``.

    Examples:
        >>> pad_sequence([nl.ones(2), nl.ones(1)]).tolist()
        [[1.0, 1.0], [1.0, 0.0]]
    """
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        if missing:
            filler = _make(
                np.full((missing,) + tuple(s.shape[1:]), padding_value, dtype=s._data.dtype)
            )
            s = cat([s, filler] if padding_side == "right" else [filler, s])
        padded.append(s)
    return stack(padded, 1 if not batch_first else 0)


def pack_padded_sequence(
    input: Tensor,
    lengths: Tensor | ArrayLike,
    batch_first: bool = False,
    enforce_sorted: bool = True,
) -> PackedSequence:
    """Pack a padded batch (L, B, *) (or (B, L, *)) given each sequence's length."""
    lengths = _lengths(lengths)
    if enforce_sorted:
        if np.any(np.diff(lengths) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                "to sidestep this requirement if you do not need ONNX exportability."
            )
        order = None
    else:
        order = np.argsort(-lengths, kind="stable").astype(np.int64)
        lengths = lengths[order]
    if lengths.size and lengths[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    x = input.transpose(0, 1) if batch_first else input
    if order is not None:
        x = x[:, order]
    batch_sizes = np.array([(lengths > t).sum() for t in range(int(lengths[0]))], dtype=np.int64)
    data = cat([x[t, : int(n)] for t, n in enumerate(batch_sizes)])
    sorted_indices = None if order is None else _make(order)
    return PackedSequence(data, _make(batch_sizes), sorted_indices)


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:
    """Undo ``pack_padded_sequence``: ``(padded, lengths)`` in the caller's batch order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes._data
    steps, batch = len(batch_sizes), int(batch_sizes[0])
    if total_length is not None and total_length < steps:
        raise ValueError(
            f"Expected total_length to be at least the length of the longest sequence in input, but "
            f"got total_length={total_length} and max sequence length being {steps}"
        )
    length = steps if total_length is None else total_length
    rows, start = [], 0
    feature = tuple(data.shape[1:])
    for t in range(length):
        n = int(batch_sizes[t]) if t < steps else 0
        step = data[start : start + n]
        start += n
        if n < batch:
            filler = _make(np.full((batch - n,) + feature, padding_value, dtype=data._data.dtype))
            step = cat([step, filler]) if n else filler
        rows.append(step)
    padded = stack(rows)
    lengths = np.array([(batch_sizes > b).sum() for b in range(batch)], dtype=np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded[:, sequence.unsorted_indices._data]
        lengths = lengths[sequence.unsorted_indices._data]
    return (padded.transpose(0, 1) if batch_first else padded), _make(lengths)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of tensors (L_i, *)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)
