"""QR, SVD and the pseudo-inverse as ops whose forward is LAPACK's (through ``numpy.linalg``), so
that they are exact on rank-deficient matrices as PyTorch's are, and whose backward is the formula
PyTorch differentiates them with.

- ``QR`` (``m >= n``): ``gA = (gQ + Q copyltu(M)) R^-T`` with ``M = R gR^T - gQ^T Q`` and
  ``copyltu`` the symmetric matrix of ``M``'s lower triangle; a wide ``A = Q [R1 R2]`` is the tall
  case on ``A``'s first ``m`` columns with ``gQ + A2 gR2^T``, and ``gA2 = Q gR2``.
- ``SVD`` (reduced): ``gA = U (sym_skew(U^T gU) S + diag(gS) + S sym_skew(V^T gV)) V^T`` plus the
  parts of ``gU`` and ``gV`` outside the spans of ``U`` and ``V``, with ``F_ij = 1 / (s_j^2 -
  s_i^2)`` (Townsend, "Differentiating the singular value decomposition", 2016). Only the
  singular values' gradient ``U diag(gS) V^T`` is defined for repeated or zero singular values.
- ``pinv``: Golub and Pereyra's derivative of the pseudo-inverse (constant rank).

Each result is its own op (``QrQ``/``QrR``, ``SvdU``/``SvdS``/``SvdVh``): the formulas are linear in
the incoming gradients, so the parts add up to the whole, and under ``create_graph`` each backward
calls the ops again, which gives gradients of gradients.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .autograd.op import Op
from .autograd.ops import decompositions as _dec
from .autograd.ops import vjp
from .autograd.promotion import floating

if TYPE_CHECKING:
    from ._typing import Array, Gradient

mT = vjp.swap_last

# The backward formulas below run on arrays in a first-order backward and on Tensors under
# create_graph (see autograd/op.py): their operands are typed Any.


def _solve(a: Any, b: Any) -> Any:
    return vjp.call(_dec.Solve, a, b)


def _right_inverse_transpose(X: Any, R: Any) -> Any:
    """``X R^-T``."""
    return mT(_solve(R, mT(X)))


# ---------------------------------------------------------------------------------------- QR
def _qr_arrays(a: Array, mode: str) -> tuple[Array, Array]:
    return np.linalg.qr(
        floating(np.asarray(a)), mode="complete" if mode == "complete" else "reduced"
    )


def _qr_tall_backward(Q: Any, R: Any, gQ: Any, gR: Any) -> Any:
    """``gA`` for ``A = Q R`` with ``R`` square (``m >= n``); ``gQ`` or ``gR`` may be ``None``."""
    n = R.shape[-1]
    lower = np.tril(np.ones((n, n)))
    strict = np.tril(np.ones((n, n)), -1)
    M: Any = None  # at least one of gQ, gR is given
    if gR is not None:
        M = R @ mT(gR)
    if gQ is not None:
        M = -(mT(gQ) @ Q) if M is None else M - mT(gQ) @ Q
    copied = M * vjp.mask(lower, M) + mT(M * vjp.mask(strict, M))
    inner = Q @ copied if gQ is None else gQ + Q @ copied
    return _right_inverse_transpose(inner, R)


def _qr_backward(a: Any, mode: str, gQ: Any, gR: Any) -> Any:
    m, n = a.shape[-2:]
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please "
            "use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    if mode == "complete" and m > n:
        raise RuntimeError(
            "The QR decomposition is not differentiable when mode='complete' and nrows > ncols."
        )
    if m >= n:
        Q, R = vjp.call(QrQ, a, mode=mode), vjp.call(QrR, a, mode=mode)
        return _qr_tall_backward(Q, R, gQ, gR)
    # wide: A = Q [R1 R2]; Q, R1 are the QR factors of A1 = A[:, :m]
    a1, a2 = a[..., :, :m], a[..., :, m:]
    Q, R1 = vjp.call(QrQ, a1, mode=mode), vjp.call(QrR, a1, mode=mode)
    gR1 = None if gR is None else gR[..., :, :m]
    gQ1 = gQ
    if gR is not None:
        extra = a2 @ mT(gR[..., :, m:])
        gQ1 = extra if gQ is None else gQ + extra
    g1 = _qr_tall_backward(Q, R1, gQ1, gR1)
    g2 = Q @ gR[..., :, m:] if gR is not None else None
    place1 = vjp.mask(np.eye(m, n), g1)
    result = g1 @ place1
    if g2 is not None:
        result = result + g2 @ vjp.mask(np.eye(n - m, n, m), g2)
    return result


class QrQ(Op):
    """``Q`` of ``A = Q R`` (LAPACK's signs)."""

    saved_inputs = (0,)
    node_name = "LinalgQrBackward0"
    mode = "reduced"

    def forward(self, a: Array) -> Array:
        return _qr_arrays(a, self.mode)[0]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        grad_a: Gradient = _qr_backward(a, self.mode, grad, None)
        return grad_a


class QrR(Op):
    """``R`` of ``A = Q R``."""

    saved_inputs = (0,)
    node_name = "LinalgQrBackward0"
    mode = "reduced"

    def forward(self, a: Array) -> Array:
        return _qr_arrays(a, self.mode)[1]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        grad_a: Gradient = _qr_backward(a, self.mode, None, grad)
        return grad_a


# --------------------------------------------------------------------------------------- SVD
def _svd_arrays(a: Array) -> tuple[Array, Array, Array]:
    try:
        return np.linalg.svd(floating(np.asarray(a)), full_matrices=False)
    except np.linalg.LinAlgError:
        raise RuntimeError(
            "linalg.svd: The algorithm failed to converge because the input matrix is "
            "ill-conditioned or has too many repeated singular values."
        ) from None


def _svd_backward(a: Any, gU: Any, gS: Any, gVh: Any) -> Any:
    U, S, Vh = vjp.call(SvdU, a), vjp.call(SvdS, a), vjp.call(SvdVh, a)
    k = S.shape[-1]
    m, n = a.shape[-2:]
    Sd = S.reshape(tuple(S.shape[:-1]) + (1, k))  # a row: multiplies columns
    if gU is None and gVh is None:
        return (U * gS.reshape(tuple(gS.shape[:-1]) + (1, k))) @ Vh
    V = mT(Vh)
    squares = S * S
    off = vjp.mask(1 - np.eye(k), S)
    diff = squares.reshape(tuple(S.shape[:-1]) + (1, k)) - squares.reshape(
        tuple(S.shape[:-1]) + (k, 1)
    )
    F = off / (diff + vjp.mask(np.eye(k), S))  # F_ij = 1 / (s_j^2 - s_i^2), 0 on the diagonal
    inner: Any = None  # at least one of gU, gS, gVh is given
    extra: Any = None
    if gU is not None:
        UtgU = mT(U) @ gU
        inner = (F * (UtgU - mT(UtgU))) * Sd
        if m > k:
            projected = gU - U @ UtgU
            extra = (projected / Sd) @ Vh
    if gVh is not None:
        gV = mT(gVh)
        VtgV = mT(V) @ gV
        part = mT(Sd) * (F * (VtgV - mT(VtgV)))
        inner = part if inner is None else inner + part
        if n > k:
            projected = gV - V @ VtgV
            term = U @ mT(projected / Sd)
            extra = term if extra is None else extra + term
    if gS is not None:
        diagonal = vjp.mask(np.eye(k), gS) * gS.reshape(tuple(gS.shape[:-1]) + (1, k))
        inner = diagonal if inner is None else inner + diagonal
    result = U @ inner @ Vh
    return result if extra is None else result + extra


class SvdU(Op):
    """``U`` of the reduced SVD (LAPACK's ``gesdd`` signs)."""

    saved_inputs = (0,)
    node_name = "LinalgSvdBackward0"

    def forward(self, a: Array) -> Array:
        return _svd_arrays(a)[0]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        grad_a: Gradient = _svd_backward(a, grad, None, None)
        return grad_a


class SvdS(Op):
    """The singular values, descending."""

    saved_inputs = (0,)
    node_name = "LinalgSvdBackward0"

    def forward(self, a: Array) -> Array:
        return _svd_arrays(a)[1]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        grad_a: Gradient = _svd_backward(a, None, grad, None)
        return grad_a


class SvdVh(Op):
    """``Vh`` of the reduced SVD."""

    saved_inputs = (0,)
    node_name = "LinalgSvdBackward0"

    def forward(self, a: Array) -> Array:
        return _svd_arrays(a)[2]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        grad_a: Gradient = _svd_backward(a, None, None, grad)
        return grad_a


# ------------------------------------------------------------------------------------ pinv
def pinv_arrays(a: Array, atol: float | Array, rtol: float | Array) -> Array:
    """The pseudo-inverse with singular values at or below ``max(atol, rtol * s_max)`` dropped."""
    U, S, Vh = _svd_arrays(a)
    s_max = S.max(-1, initial=0.0, keepdims=True)
    limit = np.maximum(atol, rtol * s_max)
    keep = S > limit
    inverse = np.where(keep, 1 / np.where(keep, S, 1), 0)
    return (np.swapaxes(Vh, -1, -2) * inverse[..., None, :]) @ np.swapaxes(U, -1, -2)


class Pinv(Op):
    """The pseudo-inverse; its derivative is Golub and Pereyra's (rank held constant)."""

    saves_output = True
    saved_inputs = (0,)
    node_name = "LinalgPinvBackward0"
    atol = 0.0
    rtol = 0.0

    def forward(self, a: Array) -> Array:
        return pinv_arrays(np.asarray(a), self.atol, self.rtol).astype(
            floating(np.asarray(a)).dtype
        )

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (a,) = self.inputs()
        p = self.output()
        ph, gh = mT(p), mT(grad)
        m, n = a.shape[-2:]
        if m <= n:
            K = gh @ p
            KpH = K @ ph
            grad_a: Gradient = -mT(p @ K) + KpH - (a @ p) @ KpH + (ph @ p) @ (gh - K @ a)
            return grad_a
        K = p @ gh
        pHK = ph @ K
        grad_a = -mT(K @ p) + pHK - (pHK @ p) @ a + (gh - a @ K) @ p @ ph
        return grad_a
