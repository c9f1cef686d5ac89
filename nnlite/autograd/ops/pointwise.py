"""Unary elementwise ops, ``where``, ``maximum``/``minimum`` and dtype casts."""
import numpy as np

from .. import grad_mode
from ..function import Function
from ..tensor import _make
from .arithmetic import _Binary


class _Unary(Function):
    _array_forward = True


class Exp(_Unary):
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.exp(a)

    @staticmethod
    def backward(ctx, grad):
        if not grad_mode._state[0]:  # first-order backward: the same product on arrays
            return _make(grad._data * ctx._output_array())
        return grad * ctx.saved_output()


class Log(_Unary):
    saved_inputs = (0,)

    @staticmethod
    def forward(ctx, a):
        return np.log(a)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad / a


class Sqrt(_Unary):
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.sqrt(a)

    @staticmethod
    def backward(ctx, grad):
        return grad / (2 * ctx.saved_output())


class Abs(_Unary):
    saved_inputs = (0,)

    @staticmethod
    def forward(ctx, a):
        return np.abs(a)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        return grad * a.sign()


class Clamp(_Unary):
    """``clamp(min, max)``; the gradient passes where the input lies inside [min, max]."""

    saved_inputs = (0,)

    @staticmethod
    def forward(ctx, a, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return np.clip(a, min, max)

    @staticmethod
    def backward(ctx, grad):
        a, = ctx.saved_tensors
        lo, hi = ctx._params.get("min"), ctx._params.get("max")
        inside = np.ones(a.shape, dtype=bool)
        if lo is not None:
            inside &= a._data >= lo
        if hi is not None:
            inside &= a._data <= hi
        return grad * _mask(inside, grad)


class Relu(_Unary):
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.maximum(a, 0)

    @staticmethod
    def backward(ctx, grad):
        # relu'(x) depends on the sign only, so the output array is enough even for higher order
        if not grad_mode._state[0]:  # first-order backward: the same product on arrays, no node
            return _make(grad._data * (ctx._output_array() > 0))
        return grad * _mask(ctx._output_array() > 0, grad)


class Sigmoid(_Unary):
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        # split by sign so that exp never overflows
        out = np.empty_like(a)
        pos = a >= 0
        out[pos] = 1 / (1 + np.exp(-a[pos]))
        e = np.exp(a[~pos])
        out[~pos] = e / (1 + e)
        return out

    @staticmethod
    def backward(ctx, grad):
        if not grad_mode._state[0]:
            y = ctx._output_array()
            return _make(grad._data * y * (1 - y))
        y = ctx.saved_output()
        return grad * y * (1 - y)


class Tanh(_Unary):
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, a):
        return np.tanh(a)

    @staticmethod
    def backward(ctx, grad):
        if not grad_mode._state[0]:
            y = ctx._output_array()
            return _make(grad._data * (1 - y * y))
        y = ctx.saved_output()
        return grad * (1 - y * y)


class Sign(_Unary):
    @staticmethod
    def forward(ctx, a):
        return np.sign(a)

    @staticmethod
    def backward(ctx, grad):
        return grad * 0.0


class Maximum(_Binary):
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        Maximum._remember_shapes(ctx, a, b)
        return np.maximum(a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        return _split_ties(ctx, grad, np.greater)


class Minimum(_Binary):
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        Minimum._remember_shapes(ctx, a, b)
        return np.minimum(a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        return _split_ties(ctx, grad, np.less)


def _split_ties(ctx, grad, wins):
    """Gradient of max/min of two tensors: to the winner, halved on ties (as PyTorch)."""
    a, b = ctx.saved_tensors
    a_data, b_data = getattr(a, "_data", a), getattr(b, "_data", b)
    share_a = np.where(wins(a_data, b_data), 1.0, np.where(a_data == b_data, 0.5, 0.0))
    share_a = _mask(share_a, grad)
    return grad * share_a, grad * (1 - share_a)


class Where(Function):
    """``where(condition, a, b)``; condition is a bool array, not differentiable."""

    _array_forward = True

    @staticmethod
    def forward(ctx, condition, a, b):
        ctx.condition = condition
        ctx.shapes = (np.shape(condition), np.shape(a), np.shape(b))
        out = np.where(condition, a, b)
        if out.dtype == np.float64 and np.result_type(getattr(a, "dtype", np.float32),
                                                     getattr(b, "dtype", np.float32)) != np.float64:
            out = out.astype(np.float32)
        return out

    @staticmethod
    def backward(ctx, grad):
        from .arithmetic import sum_to
        keep = _mask(ctx.condition, grad)
        ga = sum_to(grad * keep, ctx.shapes[1]) if ctx.next_functions[1][0] is not None else None
        gb = sum_to(grad * (1 - keep), ctx.shapes[2]) if ctx.next_functions[2][0] is not None else None
        return None, ga, gb


class ToDtype(Function):
    _array_forward = True

    @staticmethod
    def forward(ctx, a, dtype):
        ctx.source_dtype = a.dtype
        return a.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        if ctx.source_dtype.kind != "f":
            return None
        return grad.to(ctx.source_dtype)


class Clone(Function):
    _array_forward = True

    @staticmethod
    def forward(ctx, a):
        return a.copy()

    @staticmethod
    def backward(ctx, grad):
        return grad


class CopyFrom(Function):
    """``dst.copy_(src)`` as an op: the result is ``src`` broadcast to ``dst``'s shape and dtype."""

    _array_forward = True

    @staticmethod
    def forward(ctx, dst, src):
        ctx.src_shape = src.shape
        return np.broadcast_to(src, dst.shape).astype(dst.dtype)

    @staticmethod
    def backward(ctx, grad):
        from .arithmetic import sum_to
        return None, sum_to(grad, ctx.src_shape)


def _mask(array, like):
    """A constant tensor (no graph) holding ``array`` in ``like``'s dtype."""
    return _make(np.asarray(array, dtype=like._data.dtype))
