"""``Gelu``: the GELU activation (exact and tanh form) as one op, its value and derivative each
computed in one pass by a numba ufunc (the composite form made five passes and five graph nodes).

``backward`` is the derivative's formula (on arrays or, recorded, on Tensors, so second order
exists); ``backward_arrays`` computes the same in one compiled pass for a first-order backward.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import DTypeLike

    from ..._typing import Array, Gradient

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_TWO_PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)
_CUBIC = 0.044715
_ufuncs: dict[tuple[str, bool], np.ufunc] = {}


def _compiled(name: str, dtype: DTypeLike) -> np.ufunc:
    """The numba ufunc ``name`` for ``dtype``, compiled on first use (and cached on disk) so that
    import stays fast."""
    if not _ufuncs:
        _ufuncs.update(_build())
    return _ufuncs[name, np.dtype(dtype) == np.float32]


def _build() -> dict[tuple[str, bool], np.ufunc]:
    from ..._runtime.jit import njit, vectorize

    f32, f64 = ["float32(float32)"], ["float64(float64)"]

    @njit(fastmath=True, cache=True, inline="always")
    def erf32(x: float) -> float:
        # a rational function of x on [-4, 4] (erf is +-1 to float32 beyond), accurate to a few
        # float32 ulps: no call to libm's erf or exp, so the loop vectorises
        x = min(max(x, -4.0), 4.0)
        x2 = x * x
        p = x2 * -2.72614225801306e-10 + 2.77068142495902e-08
        p = x2 * p - 2.10102402082508e-06
        p = x2 * p - 5.69250639462346e-05
        p = x2 * p - 7.34990630326855e-04
        p = x2 * p - 2.95459980854025e-03
        p = x2 * p - 1.60960333262415e-02
        q = x2 * -1.45660718464996e-05 - 2.13374055278905e-04
        q = x2 * q - 1.68282697438203e-03
        q = x2 * q - 7.37332916720468e-03
        q = x2 * q - 1.42647390514189e-02
        return x * p / q

    @vectorize(f32, fastmath=True, cache=True)
    def exact32(x: float) -> float:
        return x * 0.5 * (1.0 + erf32(x * _SQRT_HALF))

    # the Gaussian comes in as an argument: numpy's exp is vectorised, numba's is a call per element
    @vectorize(["float32(float32, float32, float32)"], fastmath=True, cache=True)
    def exact_gradient32(x: float, gauss: float, grad: float) -> float:
        return grad * (0.5 * (1.0 + erf32(x * _SQRT_HALF)) + x * _INV_SQRT_TWO_PI * gauss)

    # float64 (gradcheck's dtype) keeps libm's erf: the derivative must match the value's differences
    @vectorize(f64, cache=True)
    def exact64(x: float) -> float:
        return x * 0.5 * (1.0 + math.erf(x * _SQRT_HALF))

    @vectorize(f64, cache=True)
    def exact_derivative64(x: float) -> float:
        return 0.5 * (1.0 + math.erf(x * _SQRT_HALF)) + x * _INV_SQRT_TWO_PI * math.exp(
            -0.5 * x * x
        )

    def tanh_form(x: float) -> float:
        return 0.5 * x * (1.0 + math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x)))

    def tanh_derivative(x: float) -> float:
        t = math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x))
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_TWO_OVER_PI * (
            1.0 + 3.0 * _CUBIC * x * x
        )

    compiled = {
        ("none", True): exact32,
        ("none_gradient", True): exact_gradient32,
        ("none", False): exact64,
        ("none_derivative", False): exact_derivative64,
    }
    for name, formula in (("tanh", tanh_form), ("tanh_derivative", tanh_derivative)):
        compiled[name, True] = vectorize(f32, cache=True)(formula)
        compiled[name, False] = vectorize(f64, cache=True)(formula)
    return compiled


def _derivative(x: Gradient, approximate: str) -> Gradient:
    """d gelu / dx, on arrays or (recorded, for gradients of gradients) on Tensors."""
    if approximate == "tanh":
        t = vjp.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x))
        d: Gradient = 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_TWO_OVER_PI * (
            1.0 + 3.0 * _CUBIC * x * x
        )
    else:
        d = 0.5 * (1.0 + vjp.erf(x * _SQRT_HALF)) + x * _INV_SQRT_TWO_PI * vjp.exp(-0.5 * x * x)
    return d


class Gelu(Op):
    """``x * Phi(x)`` (``approximate="none"``) or its tanh approximation (``"tanh"``)."""

    saved_inputs = (0,)
    approximate = "none"

    def forward(self, x: Array) -> Array:
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float32 if x.dtype.kind != "f" else np.float64)
        y: Array = _compiled(self.approximate, x.dtype)(x)
        return y

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (x,) = self.inputs()
        return grad * _derivative(x, self.approximate)

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> Array:
        # the derivative in one numba pass (with the gradient product too for exact float32)
        (x,) = self.inputs()
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float32 if x.dtype.kind != "f" else np.float64)
        if self.approximate == "none" and x.dtype == np.float32 and grad.dtype == np.float32:
            gauss = x * x
            gauss *= -0.5
            np.exp(gauss, out=gauss)
            fused: Array = _compiled("none_gradient", x.dtype)(x, gauss, grad)
            return fused
        derivative: Array = _compiled(self.approximate + "_derivative", x.dtype)(x)
        return grad * derivative
