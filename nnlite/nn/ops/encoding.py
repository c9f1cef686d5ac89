"""``one_hot``: class indices to rows of zeros with a one."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.tensor import _make

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Indices (an int64 tensor) to one-hot int64 vectors along a new last dimension.

    Args:
        tensor (Tensor): class indices, any shape.
        num_classes (int): length of the vectors; -1 means ``tensor.max() + 1``.

    Returns:
        Tensor: int64, shape ``tensor.shape + (num_classes,)``.

    Examples:
        >>> F.one_hot(nl.tensor([0, 2]), 3)
        tensor([[1, 0, 0],
                [0, 0, 1]])
    """
    indices = tensor._data
    if indices.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if indices.size and indices.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if indices.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(indices.max()) + 1
    elif indices.size and indices.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(indices.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, indices[..., None], 1, axis=-1)
    return _make(out)
