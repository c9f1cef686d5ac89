"""The small dense linear algebra ``MultivariateNormal`` needs, built from tensor ops so that it
is differentiable to any order: a Cholesky factorisation and a lower-triangular solve.

Both loop over the matrix's rows in Python (O(d^2) small ops), which suits the event sizes of
distributions (a handful of dimensions), not large matrices.
"""

from __future__ import annotations

from ..autograd.tensor import Tensor


def cholesky(matrix: Tensor) -> Tensor:
    """The lower-triangular ``L`` with ``L @ L^T == matrix`` for symmetric positive-definite
    ``(..., d, d)`` matrices (the Cholesky-Banachiewicz order)."""
    from ..autograd.creation import stack, zeros

    d = matrix.shape[-1]
    rows: list[list[Tensor]] = [[] for _ in range(d)]
    zero = zeros(*matrix.shape[:-2], dtype=matrix.dtype)
    for i in range(d):
        for j in range(i + 1):
            total = matrix[..., i, j]
            for k in range(j):
                total = total - rows[i][k] * rows[j][k]
            if i == j:
                if bool((total._data <= 0).any()):
                    raise ValueError(
                        "cholesky: the matrix is not positive-definite (the leading minor of "
                        f"order {i + 1} is not positive)"
                    )
                rows[i].append(total.sqrt())
            else:
                rows[i].append(total / rows[j][j])
        rows[i].extend([zero] * (d - i - 1))
    return stack([stack(row, -1) for row in rows], -2)


def solve_lower(lower: Tensor, rhs: Tensor) -> Tensor:
    """``X`` with ``lower @ X == rhs``: ``lower`` ``(..., d, d)`` lower-triangular, ``rhs``
    ``(..., d, k)``, by forward substitution."""
    from ..autograd.creation import stack

    d = lower.shape[-1]
    solved: list[Tensor] = []
    for i in range(d):
        total = rhs[..., i, :]
        for j in range(i):
            total = total - lower[..., i, j].unsqueeze(-1) * solved[j]
        solved.append(total / lower[..., i, i].unsqueeze(-1))
    return stack(solved, -2)


def inverse_spd(matrix: Tensor) -> Tensor:
    """The inverse of symmetric positive-definite ``(..., d, d)`` matrices, ``L^-T L^-1`` from
    their Cholesky factor ``L``."""
    from ..autograd.creation import eye

    lower = cholesky(matrix)
    identity = eye(matrix.shape[-1], dtype=matrix.dtype).expand(*matrix.shape)
    inverse_lower = solve_lower(lower, identity)
    return inverse_lower.transpose(-2, -1) @ inverse_lower


def diagonal(matrix: Tensor) -> Tensor:
    """The diagonal of ``(..., d, d)`` matrices, ``(..., d)``."""
    from ..autograd.creation import eye

    return (matrix * eye(matrix.shape[-1], dtype=matrix.dtype)).sum(-1)
