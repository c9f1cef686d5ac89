"""``nl.gradient``: the derivative of sampled values by finite differences, as ``torch.gradient``
(second-order central differences inside, one-sided of order ``edge_order`` at the ends, for
uniform spacings or given coordinates). It is made of slices and products, so it is
differentiable in the values."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["gradient"]


def _coefficients(x: np.ndarray, edge_order: int) -> list[tuple[int, list[tuple[int, Any]]]]:
    """For each output region, the (shift, weight per position) pairs of the difference formula
    at coordinates ``x``: interior, first and last positions."""
    h = np.diff(x)
    left, right = h[:-1], h[1:]
    interior = [
        (0, -right / (left * (left + right))),
        (1, (right - left) / (left * right)),
        (2, left / (right * (left + right))),
    ]
    if edge_order == 1:
        first = [(0, np.array([-1 / h[0]])), (1, np.array([1 / h[0]]))]
        last = [(0, np.array([-1 / h[-1]])), (1, np.array([1 / h[-1]]))]
    else:
        d1, d2 = h[0], h[1]
        first = [
            (0, np.array([-(2 * d1 + d2) / (d1 * (d1 + d2))])),
            (1, np.array([(d1 + d2) / (d1 * d2)])),
            (2, np.array([-d1 / (d2 * (d1 + d2))])),
        ]
        d1, d2 = h[-2], h[-1]
        last = [
            (0, np.array([d2 / (d1 * (d1 + d2))])),
            (1, np.array([-(d2 + d1) / (d1 * d2)])),
            (2, np.array([(2 * d2 + d1) / (d2 * (d1 + d2))])),
        ]
    return [(0, first), (1, interior), (2, last)]


def _along(f: Any, dim: int, x: np.ndarray, edge_order: int) -> Any:
    from .creation import cat, tensor

    n = f.shape[dim]
    parts = []
    starts = {0: 0, 1: 0, 2: n - edge_order - 1}
    for region, terms in _coefficients(x, edge_order):
        if region == 1 and n < 3:
            continue
        total: Any = None
        for shift, weight in terms:
            count = len(weight)
            piece = f.narrow(dim, starts[region] + shift, count)
            shape = [1] * f.ndim
            shape[dim] = count
            w = tensor(weight.reshape(shape), dtype=f.dtype)
            total = piece * w if total is None else total + piece * w
        parts.append(total)
    return cat(parts, dim)


def gradient(
    input: Any, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1
) -> tuple[Any, ...]:
    """The derivative of ``input`` along each dimension in ``dim`` by finite differences.

    Args:
        input (Tensor): the sampled values.
        spacing (number, list of numbers, or tuple of Tensors): the distance between samples (one
            for all dimensions, or one per dimension), or each dimension's coordinates. Default: 1.
        dim (int or list of ints, optional): the dimensions. Default: all.
        edge_order (int): 1 or 2, the accuracy of the one-sided differences at the ends. Default: 1.

    Returns:
        tuple of Tensors: one derivative per dimension.

    Examples:
        >>> nl.gradient(nl.tensor([1., 2., 4., 8.]))
        (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    from .promotion import get_default_dtype
    from .tensor import Tensor

    if edge_order not in (1, 2):
        raise RuntimeError(
            f"torch.gradient only supports edge_order=1 and edge_order=2. Got {edge_order}"
        )
    dims = (
        list(range(input.ndim)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    )
    dims = [d % input.ndim for d in dims]
    if isinstance(spacing, Sequence) and not isinstance(spacing, str):
        spacings = list(spacing)
        if len(spacings) != len(dims):
            raise RuntimeError(
                f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                f"dim arguments to have the same length, but got a spacing argument of length "
                f"{len(spacings)} and a dim argument of length {len(dims)}."
            )
    else:
        spacings = [spacing] * len(dims)
    results = []
    for d, step in zip(dims, spacings):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError(
                "torch.gradient expected each dimension size to be at least edge_order+1"
            )
        if isinstance(step, Tensor):
            x = np.asarray(step._data, dtype=np.float64).reshape(-1)
        else:
            x = np.arange(n, dtype=np.float64) * float(step)
        values = input if input.is_floating_point() else input.to(get_default_dtype())
        results.append(_along(values, d, x, edge_order))
    return tuple(results)
