"""Batch normalisation over dimension 1 (channels) as one op."""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make

_grad_state = grad_mode._state


def channel_shape(ndim, channels):
    """Shape that broadcasts a per-channel vector against an (N, C, ...) array."""
    return (1, channels) + (1,) * (ndim - 2)


def reduce_axes(ndim):
    """The axes batch statistics are taken over: all but the channel axis."""
    return (0,) + tuple(range(2, ndim))


class BatchNorm(Function):
    """``(x - mean) * invstd * w + b`` with per-channel ``mean`` and ``invstd`` arrays.

    With ``batch_stats=True`` the statistics are those of ``x`` itself (training), so the
    gradient also flows through them; otherwise they are constants (running statistics).
    ``w`` and ``b`` may be None.
    """

    _array_forward = True
    node_name = "NativeBatchNormBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, w, b, mean, invstd, batch_stats, eps):
        shape = channel_shape(x.ndim, x.shape[1])
        scale = invstd if w is None else invstd * w
        shift = -mean * scale if b is None else b - mean * scale
        y = x * scale.reshape(shape)
        y += shift.reshape(shape)
        return y

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        p = ctx._params
        edges = ctx.next_functions
        axes = reduce_axes(x.ndim)
        shape = channel_shape(x.ndim, x.shape[1])
        batch_stats = p["batch_stats"]
        if batch_stats and _grad_state[0]:
            # recorded backward: the statistics as functions of x, so that x's second derivative exists
            centered = x - x.mean(axes, keepdim=True)
            invstd = ((centered * centered).mean(axes, keepdim=True) + p["eps"]) ** -0.5
            xhat = centered * invstd
        else:
            inv = p["invstd"].reshape(shape)
            invstd = _make(inv)
            if _grad_state[0]:  # fixed statistics, but xhat is still a function of x
                xhat = (x - _make(p["mean"].reshape(shape))) * invstd
            else:
                xhat = _make((x._data - p["mean"].reshape(shape)) * inv)
        gx = gw = gb = None
        if edges[1][0] is not None:
            gw = (grad * xhat).sum(axes)
        if edges[2][0] is not None:
            gb = grad.sum(axes)
        if edges[0][0] is not None:
            g = grad if w is None else grad * w.reshape(shape)
            if batch_stats:
                g = g - g.mean(axes, keepdim=True) - xhat * (g * xhat).mean(axes, keepdim=True)
            gx = g * invstd
        return gx, gw, gb
