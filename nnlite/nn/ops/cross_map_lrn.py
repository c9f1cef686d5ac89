"""``CrossMapLRN2d``'s computation: local response normalisation across channels, as PyTorch's
legacy implementation computes it, values and gradients alike.

PyTorch's forward sums the squares of a running window of channels, and its update skips one
removal, so past the first channels the window keeps channel 0; its backward uses a window of its
own. The two are not derivatives of each other (PyTorch's own ``gradcheck`` of ``CrossMapLRN2d``
fails), and nnlite reproduces both as PyTorch has them: the windows are 0/1 matrices over the
channels, built by following PyTorch's loops. The backward has no derivative (PyTorch's raises).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient


def _forward_window(channels: int, size: int) -> np.ndarray:
    """(C, C): which channels' squares each channel's scale sums, as PyTorch's running update."""
    pre_pad = int((size - 1) / 2 + 1)
    window = np.zeros((channels, channels))
    window[0, : min(pre_pad, channels)] = 1.0
    for c in range(1, channels):
        window[c] = window[c - 1]
        if c < channels - pre_pad + 1:
            window[c, c + pre_pad - 1] += 1.0
        if c > pre_pad:
            window[c, c - pre_pad] -= 1.0
    return window


def _backward_window(channels: int, size: int) -> np.ndarray:
    """(C, C): which channels' ratios each channel's gradient gathers, as PyTorch's backward."""
    shift = int(size - (size - 1) / 2)
    window = np.zeros((channels, channels))
    for c in range(channels):
        low, high = max(c - shift, 0), min(c + size - 1 - shift, channels - 1)
        window[c, low : high + 1] = 1.0
    return window


def _mix(window: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Each channel of ``x`` (N, C, H, W) replaced by the window's sum of channels."""
    mixed: np.ndarray = np.einsum("dc,nchw->ndhw", window.astype(x.dtype), x)
    return mixed


class _CrossMapLRNGradient(Op):
    """PyTorch's backward formula of ``CrossMapLRN2d``; it has no derivative of its own."""

    node_name = "CrossMapLRN2dBackwardBackward"

    def forward(self, grad: Array, input: Array) -> Array:
        output = input * self.scale ** (-self.beta)
        ratio = _mix(_backward_window(input.shape[1], self.size), grad * output / self.scale)
        factor = 2 * self.alpha * self.beta / self.size
        out: Array = self.scale ** (-self.beta) * grad - factor * input * ratio
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        raise RuntimeError(
            "CrossMapLRN2d: its backward (PyTorch's legacy formula) has no derivative"
        )


class CrossMapLRN(Op):
    """``input * (k + alpha / size * window_sum(input ** 2)) ** -beta`` over channels."""

    node_name = "CrossMapLRN2dBackward"
    saved_inputs = (0,)

    def forward(self, input: Array) -> Array:
        squares = _mix(_forward_window(input.shape[1], self.size), input * input)
        self.scale = squares * (self.alpha / self.size) + self.k
        out: Array = input * self.scale ** (-self.beta)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(
            _CrossMapLRNGradient,
            grad,
            self.inputs()[0],
            scale=self.scale,
            size=self.size,
            alpha=self.alpha,
            beta=self.beta,
        )
        return gx
