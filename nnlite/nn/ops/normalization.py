"""Batch normalisation over dimension 1 (channels) as one op."""
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
        if not _grad_state[0]:
            return _batch_norm_backward_arrays(grad._data, x._data, None if w is None else w._data, p, edges,
                                               axes, shape)
        if batch_stats:
            # recorded backward: the statistics as functions of x, so that x's second derivative exists
            centered = x - x.mean(axes, keepdim=True)
            invstd = ((centered * centered).mean(axes, keepdim=True) + p["eps"]) ** -0.5
            xhat = centered * invstd
        else:
            inv = p["invstd"].reshape(shape)
            invstd = _make(inv)
            xhat = (x - _make(p["mean"].reshape(shape))) * invstd  # fixed statistics; xhat still depends on x
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


def _batch_norm_backward_arrays(g, x, w, p, edges, axes, shape):
    """First-order backward on arrays (the Tensor formulas above, evaluated without a graph)."""
    invstd = p["invstd"].reshape(shape)
    xhat = (x - p["mean"].reshape(shape)) * invstd
    gw = _make((g * xhat).sum(axes)) if edges[1][0] is not None else None
    gb = _make(g.sum(axes)) if edges[2][0] is not None else None
    gx = None
    if edges[0][0] is not None:
        gh = g if w is None else g * w.reshape(shape)
        if p["batch_stats"]:
            gh = gh - gh.mean(axes, keepdims=True) - xhat * (gh * xhat).mean(axes, keepdims=True)
        gx = _make(gh * invstd)
    return gx, gw, gb
