"""``Gelu``: the GELU activation (exact and tanh form) as one op, its value and derivative each
computed in one pass by a numba ufunc (the composite form made five passes and five graph nodes).

Under ``create_graph`` the derivative is written with Tensor operations, so second order exists.
"""
import math

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

_SQRT_HALF = math.sqrt(0.5)
_INV_SQRT_TWO_PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_TWO_OVER_PI = math.sqrt(2.0 / math.pi)
_CUBIC = 0.044715
_ufuncs = {}


def _compiled(name, dtype):
    """The numba ufunc ``name`` for ``dtype``, compiled on first use (and cached on disk) so that
    import stays fast."""
    if not _ufuncs:
        _ufuncs.update(_build())
    return _ufuncs[name, np.dtype(dtype) == np.float32]


def _build():
    import numba

    f32, f64 = ["float32(float32)"], ["float64(float64)"]

    @numba.njit(fastmath=True, cache=True)
    def erf32(x, exp_minus_square):
        # Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7, under float32's resolution),
        # from the exp(-x^2) the derivative shares; libm's erf is several times slower per element
        t = 1.0 / (1.0 + 0.3275911 * abs(x))
        poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
        y = 1.0 - poly * exp_minus_square
        return y if x >= 0 else -y

    @numba.vectorize(f32, fastmath=True, cache=True)
    def exact32(x):
        return x * 0.5 * (1.0 + erf32(x * _SQRT_HALF, math.exp(-0.5 * x * x)))

    @numba.vectorize(f32, fastmath=True, cache=True)
    def exact_derivative32(x):
        gauss = math.exp(-0.5 * x * x)
        return 0.5 * (1.0 + erf32(x * _SQRT_HALF, gauss)) + x * _INV_SQRT_TWO_PI * gauss

    # float64 (gradcheck's dtype) keeps libm's erf: the derivative must match the value's differences
    @numba.vectorize(f64, cache=True)
    def exact64(x):
        return x * 0.5 * (1.0 + math.erf(x * _SQRT_HALF))

    @numba.vectorize(f64, cache=True)
    def exact_derivative64(x):
        return 0.5 * (1.0 + math.erf(x * _SQRT_HALF)) + x * _INV_SQRT_TWO_PI * math.exp(-0.5 * x * x)

    def tanh_form(x):
        return 0.5 * x * (1.0 + math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x)))

    def tanh_derivative(x):
        t = math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x))
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_TWO_OVER_PI * (1.0 + 3.0 * _CUBIC * x * x)

    compiled = {("none", True): exact32, ("none_derivative", True): exact_derivative32,
                ("none", False): exact64, ("none_derivative", False): exact_derivative64}
    for name, formula in (("tanh", tanh_form), ("tanh_derivative", tanh_derivative)):
        compiled[name, True] = numba.vectorize(f32, cache=True)(formula)
        compiled[name, False] = numba.vectorize(f64, cache=True)(formula)
    return compiled


def _derivative_of_tensor(x, approximate):
    """d gelu / dx from Tensor operations (recorded, for gradients of gradients)."""
    if approximate == "tanh":
        t = (_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x)).tanh()
        return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_TWO_OVER_PI * (1.0 + 3.0 * _CUBIC * x * x)
    return 0.5 * (1.0 + (x * _SQRT_HALF).erf()) + x * _INV_SQRT_TWO_PI * vjp.exp(-0.5 * x * x)


class Gelu(Op):
    """``x * Phi(x)`` (``approximate="none"``) or its tanh approximation (``"tanh"``)."""

    saved_inputs = (0,)
    approximate = "none"

    def forward(self, x):
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float32 if x.dtype.kind != "f" else np.float64)
        return _compiled(self.approximate, x.dtype)(x)

    def backward(self, grad, needs):
        x, = self.inputs()
        if vjp.is_tensor(x):
            return grad * _derivative_of_tensor(x, self.approximate)
        if x.dtype not in (np.float32, np.float64):
            x = x.astype(np.float32 if x.dtype.kind != "f" else np.float64)
        return grad * _compiled(self.approximate + "_derivative", x.dtype)(x)
