"""Householder reflectors: the QR factorization in LAPACK's compact form (``geqrf``), the matrix
``Q`` they make (``householder_product``, alias ``orgqr``) and products with ``Q`` (``ormqr``).

``geqrf`` follows LAPACK's ``geqr2``: column ``j`` of the result holds ``R``'s entries on and
above the diagonal and, below it, the reflector ``v_j`` whose first entry (an implicit 1) is not
stored; ``H_j = I - tau_j v_j v_j^T`` with ``beta = -sign(alpha) ||x||``,
``tau = (beta - alpha) / beta`` and ``v = x[1:] / (alpha - beta)``, and ``tau = 0`` (``H = I``)
when the column below the diagonal is already zero. ``Q = H_1 H_2 ... H_k``. The products are
composites of Tensor ops, so they are differentiable to any order; ``geqrf`` is not differentiable,
as in PyTorch.

Examples:
    >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
    >>> tau
    tensor([1.6000, 0.0000])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from .autograd import op as _op
from .autograd.op import Op
from .linalg_results import named

if TYPE_CHECKING:
    from ._typing import Array, Gradient
    from .autograd.tensor import Tensor

_geqrf_result = named("geqrf", ("a", "tau"))


def geqrf_arrays(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(a, tau)`` of LAPACK's ``geqrf`` for ``(*, m, n)`` matrices, batched."""
    *batch, m, n = a.shape
    k = min(m, n)
    r = a.reshape(-1, m, n).astype(np.result_type(a.dtype, np.float32), copy=True)
    tau = np.zeros((r.shape[0], k), dtype=r.dtype)
    for j in range(k):
        alpha = r[:, j, j].copy()
        tail = r[:, j + 1 :, j]
        xnorm = np.sqrt((tail * tail).sum(-1))
        reflect = xnorm != 0
        beta = -np.where(alpha >= 0, 1.0, -1.0) * np.hypot(alpha, xnorm)
        safe_beta = np.where(reflect, beta, 1.0)
        tau[:, j] = np.where(reflect, (beta - alpha) / safe_beta, 0.0)
        scale = np.where(reflect, 1 / np.where(reflect, alpha - beta, 1.0), 1.0)
        r[:, j + 1 :, j] = tail * scale[:, None]
        r[:, j, j] = np.where(reflect, beta, alpha)
        v = np.concatenate([np.ones((r.shape[0], 1), r.dtype), r[:, j + 1 :, j]], axis=1)
        block = r[:, j:, j + 1 :]
        r[:, j:, j + 1 :] = block - tau[:, j, None, None] * v[:, :, None] * (v[:, None, :] @ block)
    return r.reshape(a.shape), tau.reshape(tuple(batch) + (k,))


class Geqrf(Op):
    """One of ``geqrf``'s results (``part`` 0: ``a``, 1: ``tau``); PyTorch has no derivative."""

    node_name = "GeqrfBackward0"
    part = 0

    def forward(self, a: Array) -> Array:
        return geqrf_arrays(np.asarray(a))[self.part]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> NoReturn:
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor, *, out: Any = None) -> Any:
    """The QR factorization in LAPACK's compact form: ``R`` and the Householder reflectors.

    Args:
        input (Tensor): ``(*, m, n)`` floating matrices.
        out (tuple, optional): two tensors to write the results into.

    Returns:
        A named tuple ``(a, tau)``: ``a`` holds ``R`` on and above the diagonal and the
        reflectors below; ``tau`` ``(*, min(m, n))`` their scales. Not differentiable (as in
        PyTorch: its backward raises).

    Examples:
        >>> nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]])).a
        tensor([[ 5.0000,  1.0000],
                [-0.5000,  2.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"torch.geqrf: input must have at least 2 dimensions. Got {input.ndim} instead."
        )
    result = _geqrf_result((Geqrf.apply(input, part=0), Geqrf.apply(input, part=1)))
    if out is None:
        return result
    from .autograd.out_arg import write_out

    return _geqrf_result(tuple(write_out("geqrf", r, o, (input,)) for r, o in zip(result, out)))


def _reflector(A: Tensor, j: int) -> Tensor:
    """``v_j``: zeros above row ``j``, 1 at ``j``, column ``j`` of ``A`` below (``(*, m, 1)``)."""
    m = A.shape[-2]
    dtype = A._data.dtype
    below = (np.arange(m) > j).astype(dtype)
    unit = (np.arange(m) == j).astype(dtype)
    return (A[..., :, j] * _op.make_tensor(below) + _op.make_tensor(unit)).unsqueeze(-1)


def _apply(C: Tensor, v: Tensor, tau: Tensor, left: bool) -> Tensor:
    """``H C`` (``left``) or ``C H`` with ``H = I - tau v v^T``."""
    t = tau.unsqueeze(-1).unsqueeze(-1)
    if left:
        return C - v * t @ (v.mT @ C)
    return C - (C @ v) * t @ v.mT


def _check_reflectors(A: Tensor, tau: Tensor, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if A.shape[-1] < tau.shape[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]"
        )


def householder_product(A: Tensor, tau: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The first ``n`` columns of ``H_1 H_2 ... H_k`` from Householder reflectors (``Q`` of
    ``geqrf``'s factorization).

    Args:
        A (Tensor): ``(*, m, n)`` with ``m >= n``: the reflectors below the diagonal.
        tau (Tensor): ``(*, k)`` with ``k <= n``: their scales.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, m, n)`` with orthonormal columns (when ``tau`` comes from ``geqrf``);
        differentiable in ``A`` and ``tau``.

    Examples:
        >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
        >>> nl.linalg.householder_product(a, tau)
        tensor([[-0.6000,  0.8000],
                [ 0.8000,  0.6000]])
    """
    name = "torch.linalg.householder_product"
    if A.ndim >= 2 and A.shape[-2] < A.shape[-1]:
        raise RuntimeError(
            f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]"
        )
    _check_reflectors(A, tau, name)
    m, n = A.shape[-2:]
    Q = _op.make_tensor(np.eye(m, n, dtype=A._data.dtype))
    for j in reversed(range(tau.shape[-1])):
        Q = _apply(Q, _reflector(A, j), tau[..., j], left=True)
    if out is not None:
        from .autograd.out_arg import write_out

        written: Tensor = write_out("linalg_householder_product", Q, out, (A, tau))
        return written
    return Q


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """``householder_product`` under LAPACK's name.

    Args:
        input (Tensor): ``(*, m, n)`` reflectors.
        tau (Tensor): ``(*, k)`` their scales.

    Returns:
        Tensor: ``(*, m, n)``.

    Examples:
        >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
        >>> nl.orgqr(a, tau)[0]
        tensor([-0.6000,  0.8000])
    """
    return householder_product(input, tau)


def ormqr(
    input: Tensor,
    tau: Tensor,
    other: Tensor,
    left: bool = True,
    transpose: bool = False,
    *,
    out: Tensor | None = None,
) -> Tensor:
    """The product of ``Q = H_1 ... H_k`` (``m x m``, from ``geqrf``'s reflectors) with ``other``:
    ``Q C``, ``Q^T C``, ``C Q`` or ``C Q^T``.

    Args:
        input (Tensor): ``(*, mn, k)`` reflectors (``mn`` is ``m`` when ``left``, else ``n``).
        tau (Tensor): ``(*, k)`` their scales.
        other (Tensor): ``C``, ``(*, m, n)``.
        left (bool): ``Q`` on the left. Default: True.
        transpose (bool): ``Q^T`` instead of ``Q``. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, m, n)``, differentiable in all three inputs.

    Examples:
        >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
        >>> nl.ormqr(a, tau, nl.eye(2), transpose=True)
        tensor([[-0.6000,  0.8000],
                [ 0.8000,  0.6000]])
    """
    _check_reflectors(input, tau, "torch.ormqr")
    size = other.shape[-2] if left else other.shape[-1]
    if input.shape[-2] != size:
        side = "other.shape[-2]" if left else "other.shape[-1]"
        raise RuntimeError(f"torch.ormqr: {side} must be equal to input.shape[-2]")
    order = range(tau.shape[-1])
    # Q C applies H_k first; Q^T C and C Q apply H_1 first; C Q^T applies H_k first
    first_to_last = transpose if left else not transpose
    result = other
    for j in order if first_to_last else reversed(order):
        result = _apply(result, _reflector(input, j), tau[..., j], left)
    if out is not None:
        from .autograd.out_arg import write_out

        written: Tensor = write_out("ormqr", result, out, (input, tau, other))
        return written
    return result
