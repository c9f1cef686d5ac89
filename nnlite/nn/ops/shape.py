"""``flatten`` as a layer uses it: the (N, ...) -> (N, features) case without the general path."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ...autograd.ops.shape import Reshape
from ...autograd.view_inplace import mark_view

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` to ``end_dim`` into one.

    Args:
        input (Tensor): the input.
        start_dim (int): the first dimension to merge. Default: 0.
        end_dim (int): the last dimension to merge. Default: -1.

    Returns:
        Tensor: the flattened tensor.

    Examples:
        >>> F.flatten(nl.ones(2, 3, 4), 1).shape
        nnlite.Size([2, 12])
    """
    shape = input._data.shape
    if (
        start_dim == 1 and end_dim == -1 and len(shape) > 2
    ):  # (N, ...) -> (N, features): the usual case
        out: Tensor = Reshape.apply(input, shape=(shape[0], math.prod(shape[1:])))
        if out._data.base is not None:
            mark_view(input, out)  # a view shares its base's version counter
        return out
    return input.flatten(start_dim, end_dim)
