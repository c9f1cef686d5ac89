"""``CosineSimilarity`` and ``PairwiseDistance`` as layers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim``.

    Args:
        dim (int): the dimension of the vectors. Default: 1.
        eps (float): the smallest norm used. Default: 1e-8.

    Examples:
        >>> nn.CosineSimilarity()(nl.tensor([[1., 0.]]), nl.tensor([[1., 1.]]))
        tensor([0.7071])
    """

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension.

    Args:
        p (float): the norm. Default: 2.
        eps (float): added to the differences. Default: 1e-6.
        keepdim (bool): keep the last dimension with size 1. Default: False.

    Examples:
        >>> nn.PairwiseDistance()(nl.tensor([[0., 0.]]), nl.tensor([[3., 4.]]))
        tensor([5.0000])
    """

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
