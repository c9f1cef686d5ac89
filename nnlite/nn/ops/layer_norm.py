"""``LayerNorm``: normalisation over the trailing dimensions with the affine, as one op.

Forward keeps the normalised input and the reciprocal standard deviation; backward is the closed
form ``rstd * (g - mean(g) - x_hat * mean(g * x_hat))`` with ``g = grad * weight``. Under
``create_graph`` both saved quantities are recomputed from the input with Tensor operations, so
gradients of gradients exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


def _normalized_tensor(x: Tensor, axes: tuple[int, ...], eps: float) -> tuple[Tensor, Tensor]:
    """``(x_hat, rstd)`` of a Tensor, recorded."""
    centered = x - x.mean(axes, keepdim=True)
    rstd = 1.0 / ((centered * centered).mean(axes, keepdim=True) + eps).sqrt()
    return centered * rstd, rstd


class LayerNorm(Op):
    """``(x - mean) / sqrt(var + eps) * weight + bias`` over the last ``dims`` dimensions;
    ``weight`` and ``bias`` may be None."""

    node_name = "NativeLayerNormBackward0"
    saved_inputs = (0, 1)
    dims = 1
    eps = 1e-5

    def _axes(self, ndim: int) -> tuple[int, ...]:
        return tuple(range(ndim - self.dims, ndim))

    def forward(self, x: Array, weight: Array | None, bias: Array | None) -> Array:
        axes = self._axes(x.ndim)
        centered = x - x.mean(axis=axes, keepdims=True)
        variance = (centered * centered).mean(axis=axes, keepdims=True)
        rstd = 1.0 / np.sqrt(variance + np.asarray(self.eps, variance.dtype))
        centered *= rstd
        self.x_hat, self.rstd = centered, rstd
        out: Array = centered * weight if weight is not None else centered.copy()
        if bias is not None:
            out += bias
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, weight = self.inputs()
        axes = self._axes(x.ndim)
        saved = None

        def recompute(k: int) -> Tensor:
            nonlocal saved
            if saved is None:
                saved = _normalized_tensor(x, axes, self.eps)
            return saved[k]

        x_hat = vjp.value(self.x_hat, lambda: recompute(0), grad)
        leading = tuple(range(x.ndim - self.dims))
        grad_x = grad_weight = grad_bias = None
        if needs[0]:
            rstd = vjp.value(self.rstd, lambda: recompute(1), grad)
            g = grad * weight if weight is not None else grad
            grad_x = rstd * (g - vjp.mean(g, axes, True) - x_hat * vjp.mean(g * x_hat, axes, True))
        if needs[1]:
            grad_weight = vjp.sum(grad * x_hat, leading) if leading else grad * x_hat
        if needs[2]:
            grad_bias = vjp.sum(grad, leading) if leading else grad
        return grad_x, grad_weight, grad_bias
