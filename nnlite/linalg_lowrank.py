"""Low-rank and partial decompositions: ``svd_lowrank`` and ``pca_lowrank`` (Halko, Martinsson
and Tropp's randomized range finder, as PyTorch's), and ``lobpcg``'s extreme eigenpairs.

The random draws are nnlite's (``nl.manual_seed`` fixes them), not PyTorch's: the factors agree
with PyTorch's where the approximation is exact (rank at most ``q``) and otherwise only in
distribution. ``lobpcg`` returns the exact ``k`` extreme eigenpairs of the dense symmetric
(generalized) problem from ``linalg.eigh``: the point LOBPCG iterates towards, reached without
iterating; ``niter``, ``tol`` and the orthogonalization parameters are accepted and unused.
All three are composites of differentiable ops.

Examples:
    >>> U, S, V = nl.svd_lowrank(nl.ones(4, 3), q=1)
    >>> S
    tensor([3.4641])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .autograd.tensor import Tensor


def _approximate_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """An ``m x q`` orthonormal basis for most of the range of ``A - M`` (power iterations)."""
    from .autograd.creation import randn
    from .linalg import qr

    X_full = A if M is None else A - M
    R = randn(*X_full.shape[:-2], X_full.shape[-1], q, dtype=A.dtype)
    Q: Tensor = qr(X_full @ R).Q
    for _ in range(niter):
        Q = qr(X_full.mT @ Q).Q
        Q = qr(X_full @ Q).Q
    return Q


def svd_lowrank(
    A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None
) -> tuple[Tensor, Tensor, Tensor]:
    """An approximate truncated SVD ``A - M ~ U diag(S) V^T`` of rank at most ``q``.

    Args:
        A (Tensor): ``(*, m, n)``.
        q (int, optional): the rank of the approximation (a little above the wanted rank). Default: 6.
        niter (int, optional): power iterations (more: more accurate). Default: 2.
        M (Tensor, optional): subtracted from ``A`` first (broadcast).

    Returns:
        ``(U, S, V)``: ``(*, m, q')``, ``(*, q')``, ``(*, n, q')`` with ``q'`` at most
        ``min(q, m, n)``; differentiable.

    Examples:
        >>> U, S, V = nl.svd_lowrank(nl.ones(3, 2), q=1)
        >>> U.shape, S.shape, V.shape
        (nnlite.Size([3, 1]), nnlite.Size([1]), nnlite.Size([2, 1]))
    """
    from .linalg import svd

    q = 6 if q is None else q
    niter = 2 if niter is None else niter
    m, n = A.shape[-2:]
    if m < n:  # work on the transpose, whose basis is the smaller
        V, S, U = svd_lowrank(A.mT, q, niter, None if M is None else M.mT)
        return U, S, V
    Q = _approximate_basis(A, q, niter, M)
    B = Q.mT @ (A if M is None else A - M)
    U, S, Vh = svd(B, full_matrices=False)
    return Q @ U, S, Vh.mT


def pca_lowrank(
    A: Tensor, q: int | None = None, center: bool = True, niter: int = 2
) -> tuple[Tensor, Tensor, Tensor]:
    """Principal component analysis of the rows of ``A`` through ``svd_lowrank``.

    Args:
        A (Tensor): ``(*, m, n)``: ``m`` samples of ``n`` features.
        q (int, optional): the number of components. Default: ``min(6, m, n)``.
        center (bool): subtract the column means first. Default: True.
        niter (int): power iterations. Default: 2.

    Returns:
        ``(U, S, V)`` of the centred data (``V``'s columns are the principal directions).

    Examples:
        >>> U, S, V = nl.pca_lowrank(nl.tensor([[1., 0.], [3., 0.]]), q=1)
        >>> S
        tensor([1.4142])
    """
    m, n = A.shape[-2:]
    q = min(6, m, n) if q is None else q
    if not (isinstance(q, int) and 0 <= q <= min(m, n)):
        raise ValueError(
            f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}"
        )
    if not (isinstance(niter, int) and niter >= 0):
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return svd_lowrank(A, q, niter)
    return svd_lowrank(A - A.mean(-2, keepdim=True), q, niter)


def lobpcg(
    A: Tensor,
    k: int | None = None,
    B: Tensor | None = None,
    X: Tensor | None = None,
    n: int | None = None,
    iK: Tensor | None = None,
    niter: int | None = None,
    tol: float | None = None,
    largest: bool | None = None,
    method: str | None = None,
    tracker: Any = None,
    ortho_iparams: dict[str, int] | None = None,
    ortho_fparams: dict[str, float] | None = None,
    ortho_bparams: dict[str, bool] | None = None,
) -> tuple[Tensor, Tensor]:
    """The ``k`` largest (or smallest) eigenpairs of the symmetric problem ``A x = lambda B x``.

    Args:
        A (Tensor): ``(*, m, m)`` symmetric.
        k (int, optional): the number of eigenpairs. Default: ``X``'s columns, else 1.
        B (Tensor, optional): ``(*, m, m)`` symmetric positive-definite. Default: the identity.
        X (Tensor, optional): ``(*, m, n)`` initial vectors (their number sets ``k``).
        n (int, optional): the size of the initial block (at least ``k``).
        iK (Tensor, optional): a preconditioner (unused: the result is exact).
        niter, tol, method, tracker, ortho_iparams, ortho_fparams, ortho_bparams: accepted and
            unused.
        largest (bool, optional): the largest eigenvalues (True) or the smallest. Default: True.

    Returns:
        ``(E, X)``: ``(*, k)`` eigenvalues (largest first when ``largest``) and ``(*, m, k)``
        ``B``-orthonormal eigenvectors; differentiable.

    Examples:
        >>> E, X = nl.lobpcg(nl.diag(nl.tensor([1., 2., 3., 4., 5., 6.])), k=2)
        >>> E
        tensor([6., 5.])
    """
    from .linalg import cholesky, eigh, solve_triangular

    size = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if X is None else X.shape[-1]) if n is None else n
    if size < 3 * n:
        raise ValueError(
            f"LOBPCG algorithm is not applicable when the number of A rows (={size}) is smaller than "
            f"3 x the number of requested eigenpairs (={n})"
        )
    largest = True if largest is None else largest
    S = (A + A.mT) * 0.5
    if B is not None:  # A x = l B x  <=>  (L^-1 A L^-T) y = l y, x = L^-T y
        L = cholesky((B + B.mT) * 0.5)
        Linv_A = solve_triangular(L, S, upper=False)
        S = solve_triangular(L, Linv_A.mT, upper=False)
        S = (S + S.mT) * 0.5
    values, vectors = eigh(S)
    order = np.arange(size)[::-1][:k] if largest else np.arange(k)
    index = [int(i) for i in order]
    E = values[..., index]
    V = vectors[..., index]
    if B is not None:
        V = solve_triangular(L.mT, V, upper=True)
    return E, V
