"""Similarities and distances between rows, and ``normalize``: composites of existing ops."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int | None = 1, eps: float = 1e-8) -> Tensor:
    """``x1 . x2 / max(|x1| |x2|, eps)`` along ``dim`` (inputs broadcast).

    Args:
        x1 (Tensor): the first vectors.
        x2 (Tensor): the second vectors (broadcast with ``x1``).
        dim (int): the dimension holding the vectors. Default: 1.
        eps (float): the smallest norm product. Default: 1e-8.

    Returns:
        Tensor: the similarities, ``dim`` removed.

    Examples:
        >>> F.cosine_similarity(nl.tensor([[1., 0.]]), nl.tensor([[1., 1.]]))
        tensor([0.7071])
    """
    dot = (x1 * x2).sum(dim)
    squared_norms = (x1 * x1).sum(dim) * (x2 * x2).sum(dim)
    return dot / squared_norms.clamp(min=eps * eps).sqrt()


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension.

    Args:
        x1 (Tensor): ``(N, D)`` or ``(D,)``.
        x2 (Tensor): broadcast with ``x1``.
        p (float): the norm. Default: 2.
        eps (float): added to the differences. Default: 1e-6.
        keepdim (bool): keep the last dimension with size 1. Default: False.

    Returns:
        Tensor: the distances.

    Examples:
        >>> F.pairwise_distance(nl.tensor([[0., 0.]]), nl.tensor([[3., 4.]]))
        tensor([5.0000])
    """
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def normalize(
    input: Tensor, p: float = 2.0, dim: int | None = 1, eps: float = 1e-12, out: Any = None
) -> Tensor:
    """``input / max(|input|_p, eps)`` along ``dim``.

    Args:
        input (Tensor): the input.
        p (float): the norm. Default: 2.
        dim (int): the dimension holding the vectors. Default: 1.
        eps (float): the smallest norm. Default: 1e-12.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.normalize(nl.tensor([[3., 4.]]))
        tensor([[0.6000, 0.8000]])
    """
    result = input / input.norm(p, dim=dim, keepdim=True).clamp(min=eps)
    return result if out is None else out.copy_(result)


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distance between every pair of rows of ``input`` (N, M): the upper triangle
    of the distance matrix, row by row, ``N (N - 1) / 2`` values.

    Args:
        input (Tensor): ``(N, M)``.
        p (float): the norm, at least 0. Default: 2.

    Returns:
        Tensor: ``(N (N - 1) / 2,)``.

    Examples:
        >>> F.pdist(nl.tensor([[0., 0.], [3., 4.], [0., 1.]]))
        tensor([5.0000, 1.0000, 4.2426])
    """
    import numpy as np

    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    first, second = np.triu_indices(input.shape[0], 1)
    from ...autograd.creation import tensor

    differences = input[tensor(first)] - input[tensor(second)]
    return differences.norm(p, dim=1)
