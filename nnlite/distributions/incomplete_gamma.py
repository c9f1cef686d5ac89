"""The regularised lower incomplete gamma function ``P(a, x)`` (``Gamma``'s cdf), as an op
differentiable in ``x`` (its derivative in ``a`` is not implemented, as in PyTorch)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..autograd.op import Op

if TYPE_CHECKING:
    from .._typing import Array, Gradient
    from ..autograd.tensor import Tensor

__all__ = ["gammainc"]

_kernel: list[np.ufunc] = []


def _compiled() -> np.ufunc:
    if not _kernel:
        from .._runtime.jit import vectorize

        @vectorize(["float64(float64, float64)"], cache=True)
        def lower_regularised(a: float, x: float) -> float:
            if x <= 0.0:
                return 0.0
            if math.isinf(x):
                return 1.0
            log_prefix = a * math.log(x) - x - math.lgamma(a)
            if x < a + 1.0:
                # the power series, positive terms
                term = 1.0 / a
                total = term
                k = a
                for _ in range(100000):
                    k += 1.0
                    term *= x / k
                    total += term
                    if term < total * 1e-17:
                        break
                return total * math.exp(log_prefix)
            # the continued fraction of the upper function (modified Lentz)
            tiny = 1e-300
            b = x + 1.0 - a
            c = 1.0 / tiny
            d = 1.0 / b
            h = d
            for i in range(1, 100000):
                an = -i * (i - a)
                b += 2.0
                d = an * d + b
                d = tiny if abs(d) < tiny else d
                c = b + an / c
                c = tiny if abs(c) < tiny else c
                d = 1.0 / d
                delta = d * c
                h *= delta
                if abs(delta - 1.0) < 1e-16:
                    break
            return 1.0 - math.exp(log_prefix) * h

        _kernel.append(lower_regularised)
    return _kernel[0]


class Gammainc(Op):
    """``P(a, x)``; the gradient reaches ``x`` only (``x^(a-1) e^(-x) / Gamma(a)``)."""

    saved_inputs = (0, 1)
    node_name = "IgammaBackward0"

    def forward(self, a: Array, x: Array) -> Array:
        a, x = np.broadcast_arrays(np.asarray(a), np.asarray(x))
        dtype = np.result_type(a, x)
        return np.asarray(_compiled()(a.astype(np.float64), x.astype(np.float64)), dtype=dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        from ..autograd.ops import vjp

        a, x = self.inputs()
        log_gamma_a = a.lgamma() if vjp.is_tensor(a) else _lgamma(a)
        density = vjp.exp((a - 1) * vjp.log(x) - x - log_gamma_a)
        return None, vjp.sum_to(grad * density, np.shape(vjp.data(x)))


def _lgamma(a: np.ndarray) -> np.ndarray:
    from ..autograd.ops.elementwise import _compiled as compiled

    log_gamma: np.ndarray = compiled("lgamma")(np.asarray(a, dtype=np.float64))
    return log_gamma


def gammainc(a: Tensor, x: Tensor) -> Tensor:
    """``P(a, x)`` of Tensors ``a`` (not differentiated) and ``x``."""
    lower: Tensor = Gammainc.apply(a.detach(), x)
    return lower
