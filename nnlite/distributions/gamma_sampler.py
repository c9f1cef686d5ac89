"""Reparameterised samples of the standard gamma distribution ``Gamma(alpha, 1)``.

The sampler is numpy's (seeded from nnlite's generator); the gradient of a sample ``x`` with
respect to ``alpha`` is the implicit reparameterisation derivative: with ``u = P(alpha, x)`` (the
regularised lower incomplete gamma function) held fixed,

    dx/dalpha = -(dP/dalpha)(alpha, x) / p(x; alpha).

``P`` is the series ``exp(-x) sum_n x^(alpha+n) / Gamma(alpha+n+1)``, so
``dP/dalpha / p = sum_n r_n (log x - digamma(alpha+n+1))`` with
``r_n = x^(n+1) Gamma(alpha) / Gamma(alpha+n+1)``: summed term by term, in float64, scaled by its
largest term. The terms cancel in the far upper tail (``x`` many standard deviations above
``alpha``), where the derivative loses digits; draws there are vanishingly rare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..autograd.op import Op

if TYPE_CHECKING:
    from .._typing import Array, Gradient
    from ..autograd.tensor import Tensor

__all__ = ["standard_gamma", "standard_gamma_grad"]

_kernel: list[np.ufunc] = []


def _compiled() -> np.ufunc:
    if not _kernel:
        from .._runtime.jit import vectorize

        @vectorize(["float64(float64, float64, float64)"], cache=True)
        def derivative(alpha: float, x: float, psi: float) -> float:
            # psi = digamma(alpha + 1); psi of alpha + n + 1 follows by the recurrence
            if x <= 0.0:
                return 0.0
            log_x = math.log(x)
            lg_alpha = math.lgamma(alpha)
            peak = max(0.0, math.ceil(x - alpha - 1.0))
            log_peak = (peak + 1.0) * log_x - math.lgamma(alpha + peak + 1.0) + lg_alpha
            total = 0.0
            log_r = log_x - math.log(alpha)  # log r_0 = log x + lgamma(alpha) - lgamma(alpha + 1)
            n = 0.0
            while True:
                term = math.exp(log_r - log_peak)
                total += term * (log_x - psi)
                if n > peak and term < 1e-17:
                    break
                n += 1.0
                log_r += log_x - math.log(alpha + n)
                psi += 1.0 / (alpha + n)
            return -total * math.exp(log_peak)

        _kernel.append(derivative)
    return _kernel[0]


def standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/dalpha`` of standard gamma samples ``x`` drawn with concentrations ``alpha``
    (arrays of one shape), keeping ``P(alpha, x)`` fixed."""
    from ..autograd.ops.elementwise import polygamma_array

    alpha64 = np.asarray(alpha, dtype=np.float64)
    psi = polygamma_array(0, alpha64 + 1.0)
    out = _compiled()(alpha64, np.asarray(x, dtype=np.float64), psi)
    return np.asarray(out, dtype=np.result_type(alpha))


class StandardGamma(Op):
    """``x ~ Gamma(alpha, 1)``, drawn per element, differentiable in ``alpha`` (first order:
    the derivative itself is not differentiated further, as in PyTorch)."""

    saved_inputs = (0,)
    saves_output = True
    node_name = "StandardGammaBackward0"

    def forward(self, alpha: Array) -> Array:
        from ..autograd.random import default_generator

        alpha = np.asarray(alpha)
        draws = default_generator.standard_gamma(alpha.astype(np.float64))
        # a draw rounding to 0 has no finite log density: keep it at the smallest normal number
        tiny = np.finfo(alpha.dtype).tiny
        result: Array = np.maximum(draws, tiny).astype(alpha.dtype)
        return result

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        from ..autograd.ops import vjp

        # the drawn samples themselves (output() would draw afresh under create_graph)
        alpha, x = self.inputs()[0], self.output_array()
        if vjp.is_tensor(grad):  # under create_graph: a node whose own backward refuses
            return (grad * vjp.call(StandardGammaGrad, alpha, x),)
        return (grad * standard_gamma_grad(alpha, x),)


class StandardGammaGrad(Op):
    """``dx/dalpha`` of standard gamma samples ``x`` (the implicit derivative), as a node of a
    recorded backward graph; it is not differentiated further (PyTorch's is not either)."""

    node_name = "StandardGammaGradBackward0"

    def forward(self, alpha: Array, x: Array) -> Array:
        return standard_gamma_grad(alpha, x)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


def standard_gamma(alpha: Tensor) -> Tensor:
    """Standard gamma samples, one per element of the Tensor ``alpha``, reparameterised."""
    samples: Tensor = StandardGamma.apply(alpha)
    return samples
