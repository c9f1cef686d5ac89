"""Reductions: sum, mean, max/min, var, logsumexp, and the sum-to-shape used to un-broadcast."""
import math

import numpy as np

from .. import grad_mode
from ..function import Function
from ..tensor import _make


def _dims(dim, ndim):
    """Normalise ``dim`` (None, int or sequence) to a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dim:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
        out.append(d % n)
    return tuple(sorted(out)) if ndim else ()


def _expand_back(grad, shape, axes, keepdim):
    """Broadcast a reduced gradient back to the input's ``shape``.

    First-order backward (nothing recorded) broadcasts the array directly: a read-only view, which
    later gradient sums and leaf accumulation copy as needed.
    """
    if not _grad_state[0]:
        g = grad._data
        if not keepdim and axes:
            g = np.expand_dims(g, axes)
        return _make(np.broadcast_to(g, shape))
    if not keepdim and axes:
        kept = list(shape)
        for a in axes:
            kept[a] = 1
        grad = grad.reshape(tuple(kept))
    return grad.expand(shape)


_grad_state = grad_mode._state


class _Reduction(Function):
    _array_forward = True


class Sum(_Reduction):
    @staticmethod
    def forward(ctx, a, dim=None, keepdim=False, dtype=None):
        ctx.shape, ctx.axes = a.shape, _dims(dim, a.ndim)
        if dtype is None and a.dtype.kind in "biu":
            dtype = np.int64
        return np.sum(a, axis=ctx.axes, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad, ctx.shape, ctx.axes, ctx._params.get("keepdim", False))


def sum_array_to(a, shape):
    """Sum a broadcast array down to ``shape`` (the leading and the size-1 dimensions)."""
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
    out = np.sum(a, axis=axes, keepdims=True) if axes else a
    return out.reshape(shape)


class SumToSize(_Reduction):
    """Sum a broadcast tensor down to ``shape``; backward expands it again."""

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        return sum_array_to(a, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)


class Mean(_Reduction):
    @staticmethod
    def forward(ctx, a, dim=None, keepdim=False, dtype=None):
        if a.dtype.kind not in "fc" and dtype is None:
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating "
                               f"point or complex dtype. Got: {a.dtype.name.capitalize()}")
        ctx.shape, ctx.axes = a.shape, _dims(dim, a.ndim)
        ctx.count = math.prod([a.shape[i] for i in ctx.axes])
        if dtype is None and ctx.count:
            # sum / n: numpy's mean adds a dtype round trip that costs more than the sum itself
            return np.add.reduce(a, axis=ctx.axes, keepdims=keepdim) / a.dtype.type(ctx.count)
        return np.mean(a, axis=ctx.axes, keepdims=keepdim, dtype=dtype)

    @staticmethod
    def backward(ctx, grad):
        return _expand_back(grad / ctx.count, ctx.shape, ctx.axes, ctx._params.get("keepdim", False))


class _Extreme(_Reduction):
    """Max or min of all elements; the gradient is shared evenly among ties (as PyTorch)."""

    saved_inputs = (0,)
    saves_output = True
    reduce = None

    @classmethod
    def forward(cls, ctx, a):
        if a.size == 0:
            raise RuntimeError(f"{cls.__name__[:3].lower()}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
        return cls.reduce(a)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        hits = (a._data == ctx._output_array()).astype(a._data.dtype)
        hits /= hits.sum()
        return grad * _make(hits)


class MaxAll(_Extreme):
    node_name = "MaxBackward1"
    reduce = staticmethod(np.max)


class MinAll(_Extreme):
    node_name = "MinBackward1"
    reduce = staticmethod(np.min)


class _ExtremeDim(_Reduction):
    """Max or min along ``dim`` given the winning ``indices``; the gradient goes to the winners."""

    @staticmethod
    def forward(ctx, a, dim, keepdim, indices):
        ctx.shape, ctx.dim = a.shape, dim
        values = np.take_along_axis(a, np.expand_dims(indices, dim), axis=dim)
        return values if keepdim else np.squeeze(values, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        from .shape import IndexAddZeros
        p = ctx._params
        index = np.expand_dims(p["indices"], ctx.dim)
        if p["keepdim"]:
            grad = grad.squeeze(ctx.dim)
        return IndexAddZeros.apply(grad.unsqueeze(ctx.dim), shape=ctx.shape, index=("along", ctx.dim, index))


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"


class Var(_Reduction):
    saved_inputs = (0,)

    @staticmethod
    def forward(ctx, a, dim=None, correction=1, keepdim=False):
        ctx.shape, ctx.axes = a.shape, _dims(dim, a.ndim)
        ctx.count = math.prod([a.shape[i] for i in ctx.axes])
        return np.var(a, axis=ctx.axes, ddof=correction, keepdims=keepdim)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        p = ctx._params
        centered = a - a.mean(dim=ctx.axes, keepdim=True)
        scale = 2.0 / max(ctx.count - p.get("correction", 1), 0) if ctx.count > p.get("correction", 1) else float("nan")
        return _expand_back(grad, ctx.shape, ctx.axes, p.get("keepdim", False)) * centered * scale


class LogSumExp(_Reduction):
    """``log(sum(exp(a)))`` along ``dim``, computed stably by shifting with the maximum."""

    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, a, dim, keepdim=False):
        ctx.shape, ctx.axes = a.shape, _dims(dim, a.ndim)
        m = np.max(a, axis=ctx.axes, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        out = np.log(np.sum(np.exp(a - m), axis=ctx.axes, keepdims=True)) + m
        return out if keepdim else np.squeeze(out, axis=ctx.axes)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        keepdim = ctx._params.get("keepdim", False)
        out = _expand_back(ctx.saved_output(), ctx.shape, ctx.axes, keepdim)
        return _expand_back(grad, ctx.shape, ctx.axes, keepdim) * (a - out).exp()
