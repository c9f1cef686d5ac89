"""Similarities and distances between rows, and ``normalize``: composites of existing ops."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int | None = 1, eps: float = 1e-8) -> Tensor:
    """``x1 . x2 / max(|x1| |x2|, eps)`` along ``dim`` (inputs broadcast).

    Example:
        >>> F.cosine_similarity(nl.tensor([[1., 0.]]), nl.tensor([[1., 1.]]))
        tensor([0.7071])
    """
    dot = (x1 * x2).sum(dim)
    squared_norms = (x1 * x1).sum(dim) * (x2 * x2).sum(dim)
    return dot / squared_norms.clamp(min=eps * eps).sqrt()


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def normalize(
    input: Tensor, p: float = 2.0, dim: int | None = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """``input / max(|input|_p, eps)`` along ``dim``."""
    result = input / input.norm(p, dim=dim, keepdim=True).clamp(min=eps)
    return result if out is None else out.copy_(result)
