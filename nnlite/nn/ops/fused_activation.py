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


def _compiled(name):
    """The numba ufuncs, compiled on first use (and cached on disk) so that import stays fast."""
    if not _ufuncs:
        import numba

        signatures = ["float32(float32)", "float64(float64)"]

        @numba.vectorize(signatures, cache=True)
        def exact(x):
            return x * 0.5 * (1.0 + math.erf(x * _SQRT_HALF))

        @numba.vectorize(signatures, cache=True)
        def exact_derivative(x):
            return 0.5 * (1.0 + math.erf(x * _SQRT_HALF)) + x * _INV_SQRT_TWO_PI * math.exp(-0.5 * x * x)

        @numba.vectorize(signatures, cache=True)
        def tanh(x):
            return 0.5 * x * (1.0 + math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x)))

        @numba.vectorize(signatures, cache=True)
        def tanh_derivative(x):
            t = math.tanh(_SQRT_TWO_OVER_PI * (x + _CUBIC * x * x * x))
            return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_TWO_OVER_PI * (1.0 + 3.0 * _CUBIC * x * x)

        _ufuncs.update(none=exact, none_derivative=exact_derivative, tanh=tanh, tanh_derivative=tanh_derivative)
    return _ufuncs[name]


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
        if x.dtype.kind != "f":
            x = x.astype(np.float32)
        return _compiled(self.approximate)(x)

    def backward(self, grad, needs):
        x, = self.inputs()
        if vjp.is_tensor(x):
            return grad * _derivative_of_tensor(x, self.approximate)
        return grad * _compiled(self.approximate + "_derivative")(x)
