"""Matrix functions on the last two dimensions: inverse, determinant, solve, Cholesky and the
symmetric eigendecomposition. Each backward is written with these same ops (through
``vjp.call``), so gradients of gradients exist; the formulas are the standard matrix-calculus
ones (Giles, "An extended collection of matrix derivative results", 2008)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from ..promotion import floating
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient


def _mT(x: Gradient) -> Gradient:
    return vjp.swap_last(x)


def _mm(a: Gradient, b: Gradient) -> Gradient:
    return a @ b


def _inv(a: Gradient) -> Gradient:
    return vjp.call(Inverse, a)


def _singular() -> RuntimeError:
    return RuntimeError(
        "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed "
        "because the input matrix is singular."
    )


class Inverse(Op):
    saves_output = True
    saved_inputs = (0,)
    node_name = "LinalgInvExBackward0"

    def forward(self, a: Array) -> Array:
        try:
            return np.linalg.inv(floating(a))
        except np.linalg.LinAlgError:
            raise _singular() from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y = self.output()
        return -_mm(_mm(_mT(y), grad), _mT(y))


class Det(Op):
    saves_output = True
    saved_inputs = (0,)
    node_name = "LinalgDetBackward0"

    def forward(self, a: Array) -> Array:
        return np.asarray(np.linalg.det(floating(a)))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        scale: Gradient = (grad * self.output()).reshape(tuple(grad.shape) + (1, 1))
        return scale * _mT(_inv(a))


class LogAbsDet(Op):
    """``log|det(A)|``: the second result of ``slogdet``."""

    saved_inputs = (0,)
    silence_fp_errors = True
    node_name = "LinalgSlogdetBackward0"

    def forward(self, a: Array) -> Array:
        return np.asarray(np.linalg.slogdet(floating(a))[1])

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return grad.reshape(tuple(grad.shape) + (1, 1)) * _mT(_inv(a))


class Solve(Op):
    """``X`` with ``A @ X = B`` (``B`` a batch of matrices, broadcast against ``A``)."""

    saves_output = True
    saved_inputs = (0, 1)
    node_name = "LinalgSolveExBackward0"

    def forward(self, a: Array, b: Array) -> Array:
        a, b = floating(np.asarray(a)), floating(np.asarray(b))
        self.shapes = (a.shape, b.shape)
        try:
            return np.linalg.solve(a, b)
        except np.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.solve: The solver failed because the input matrix is singular."
            ) from None

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[Gradient | None, Gradient | None]:
        a, b = self.inputs()
        gb = vjp.call(Solve, _mT(a), grad)
        ga = -_mm(gb, _mT(self.output())) if needs[0] else None
        return vjp.sum_to(ga, self.shapes[0]), vjp.sum_to(gb, self.shapes[1]) if needs[1] else None


class Cholesky(Op):
    """The lower factor ``L`` of ``A = L @ L.mT`` (``A`` symmetric positive-definite)."""

    saves_output = True
    saved_inputs = (0,)
    node_name = "LinalgCholeskyExBackward0"

    def forward(self, a: Array) -> Array:
        try:
            return np.linalg.cholesky(floating(a))
        except np.linalg.LinAlgError:
            raise RuntimeError(
                "linalg.cholesky: The factorization could not be completed because the input is "
                "not positive-definite."
            ) from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        low = self.output()
        n = low.shape[-1]
        # Phi(L^T gL): the lower triangle with the diagonal halved
        half_lower = np.tril(np.ones((n, n))) - 0.5 * np.eye(n)
        phi = _mm(_mT(low), grad) * vjp.mask(half_lower, grad)
        low_inv = _inv(low)
        ga = _mm(_mm(_mT(low_inv), phi), low_inv)
        return (ga + _mT(ga)) * 0.5


def _eigh(a: Array) -> tuple[Array, Array]:
    try:
        return np.linalg.eigh(floating(a))
    except np.linalg.LinAlgError:
        raise RuntimeError("linalg.eigh: The algorithm failed to converge.") from None


class EighValues(Op):
    """The ascending eigenvalues of a symmetric matrix (its lower triangle is read)."""

    saved_inputs = (0,)
    node_name = "LinalgEighBackward0"

    def forward(self, a: Array) -> Array:
        return _eigh(a)[0]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        v = vjp.call(EighVectors, a)
        # d w_k = v_k^T dA v_k
        return _mm(v * grad.reshape(tuple(grad.shape[:-1]) + (1, grad.shape[-1])), _mT(v))


class EighVectors(Op):
    """The eigenvectors (columns), in the order of ``EighValues``."""

    saved_inputs = (0,)
    node_name = "LinalgEighBackward0"

    def forward(self, a: Array) -> Array:
        return _eigh(a)[1]

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        w = vjp.call(EighValues, a)
        v = vjp.call(EighVectors, a)
        n = w.shape[-1]
        gaps = w.reshape(tuple(w.shape[:-1]) + (1, n)) - w.reshape(tuple(w.shape[:-1]) + (n, 1))
        off = vjp.mask(1 - np.eye(n), gaps)
        # 1 / (w_j - w_i) off the diagonal, 0 on it (distinct eigenvalues assumed, as PyTorch)
        inverse_gaps = off / (gaps + vjp.mask(np.eye(n), gaps))
        inner = _mm(_mT(v), grad) * inverse_gaps
        return _mm(_mm(v, inner), _mT(v))
