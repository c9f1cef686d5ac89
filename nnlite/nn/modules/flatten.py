"""``Flatten`` and ``Unflatten``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..._typing import _size
    from ...autograd.tensor import Tensor


__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Merge dimensions ``start_dim`` (default 1, keeping the batch) to ``end_dim`` into one.

    Args:
        start_dim (int): the first dimension to merge. Default: 1.
        end_dim (int): the last dimension to merge. Default: -1.

    Examples:
        >>> nn.Flatten()(nl.zeros(2, 3, 4)).shape
        nnlite.Size([2, 12])
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``.

    Args:
        dim (int): the dimension to split.
        unflattened_size (tuple of ints): its new sizes, whose product is its size.

    Examples:
        >>> nl.nn.Unflatten(1, (2, 5))(nl.zeros(3, 10)).shape
        nnlite.Size([3, 2, 5])
    """

    def __init__(self, dim: int, unflattened_size: _size) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = tuple(unflattened_size)

    def forward(self, input: Tensor) -> Tensor:
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
