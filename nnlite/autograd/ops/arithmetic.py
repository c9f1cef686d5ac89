"""Binary arithmetic with numpy broadcasting; gradients are reduced back to each input's shape."""
import numpy as np

from .. import grad_mode
from ..function import Function
from ..tensor import _make
from .reduction import sum_array_to

_grad_state = grad_mode._state

_F64 = np.dtype(np.float64)


def sum_to(grad, shape):
    """Reduce a broadcast gradient to ``shape``."""
    if grad is None or grad._data.shape == shape:
        return grad
    return grad.sum_to_size(shape)


def _promote(out, a, b):
    """PyTorch's promotion where numpy differs: integer tensor with a Python float gives float32."""
    if out.dtype is _F64 and not (getattr(a, "dtype", None) is _F64 or getattr(b, "dtype", None) is _F64):
        return out.astype(np.float32)
    return out


class _Binary(Function):
    """Elementwise binary op; ``grads`` returns raw gradients, un-broadcast here for both inputs.

    Hot ops also define ``array_grads``: the same formula on arrays, used for first-order
    backward (nothing recorded), where building Tensors for intermediate products is pure
    overhead. ``grads`` (Tensor ops) serves higher-order gradients; gradcheck tests the first,
    gradgradcheck the second.
    """

    _array_forward = True
    array_grads = None

    @classmethod
    def backward(cls, ctx, grad):
        edges = ctx.next_functions
        need_a, need_b = edges[0][0] is not None, edges[1][0] is not None
        if cls.array_grads is not None and not _grad_state[0]:
            ga, gb = cls.array_grads(ctx, grad._data, need_a, need_b)
            shapes = ctx.shapes
            return (None if ga is None else _make(ga if ga.shape == shapes[0] else sum_array_to(ga, shapes[0])),
                    None if gb is None else _make(gb if gb.shape == shapes[1] else sum_array_to(gb, shapes[1])))
        ga, gb = cls.grads(ctx, grad, need_a, need_b)
        shapes = ctx.shapes
        if ga is not None and ga._data.shape != shapes[0]:
            ga = ga.sum_to_size(shapes[0])
        if gb is not None and gb._data.shape != shapes[1]:
            gb = gb.sum_to_size(shapes[1])
        return ga, gb

    @staticmethod
    def _remember_shapes(ctx, a, b):
        ctx.shapes = (a.shape if a.__class__ is np.ndarray else (),
                      b.shape if b.__class__ is np.ndarray else ())


class Add(_Binary):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        Add._remember_shapes(ctx, a, b)
        ctx.alpha = alpha
        return _promote(np.add(a, b) if alpha == 1 else np.add(a, b * alpha), a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        return grad if need_a else None, (grad if ctx.alpha == 1 else grad * ctx.alpha) if need_b else None

    array_grads = grads


class Sub(_Binary):
    @staticmethod
    def forward(ctx, a, b, alpha=1):
        Sub._remember_shapes(ctx, a, b)
        ctx.alpha = alpha
        return _promote(np.subtract(a, b) if alpha == 1 else np.subtract(a, b * alpha), a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        return grad if need_a else None, (-grad if ctx.alpha == 1 else grad * -ctx.alpha) if need_b else None

    array_grads = grads


class Mul(_Binary):
    saved_inputs = (0, 1)

    @staticmethod
    def select_saved(args):
        # each input's gradient needs only the other one: x.mul_(2) must not save x itself
        a, b = args
        return (a if getattr(b, "_requires_grad", False) else None,
                b if getattr(a, "_requires_grad", False) else None)

    @staticmethod
    def forward(ctx, a, b):
        Mul._remember_shapes(ctx, a, b)
        return _promote(np.multiply(a, b), a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        return grad * b if need_a else None, grad * a if need_b else None

    @staticmethod
    def array_grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        return (grad * getattr(b, "_data", b) if need_a else None,
                grad * getattr(a, "_data", a) if need_b else None)


class Div(_Binary):
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        Div._remember_shapes(ctx, a, b)
        out = np.true_divide(a, b)
        if out.dtype == _F64 and not (getattr(a, "dtype", None) == _F64 or getattr(b, "dtype", None) == _F64):
            out = out.astype(np.float32)
        return out

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        ga = grad / b
        return ga if need_a else None, -ga * a / b if need_b else None

    @staticmethod
    def array_grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        a, b = getattr(a, "_data", a), getattr(b, "_data", b)
        ga = grad / b
        return ga if need_a else None, -ga * a / b if need_b else None


class Pow(_Binary):
    """``a ** b`` for a tensor base; the exponent may be a number or a tensor."""

    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        Pow._remember_shapes(ctx, a, b)
        return _promote(np.power(a, b), a, b)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        ga = gb = None
        if need_a:
            ga = grad * 0.0 if _is_number(b) and b == 0 else grad * (b * a ** (b - 1))
        if need_b:
            # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 (PyTorch's convention)
            from ..creation import where
            gb = grad * where(a == 0, 0.0, a ** b * a.log())
        return ga, gb

    @staticmethod
    def array_grads(ctx, grad, need_a, need_b):
        a, b = ctx.saved_tensors
        if need_b or not _is_number(b):  # tensor exponents: the Tensor formula, on arrays
            ga, gb = Pow.grads(ctx, _make(grad), need_a, need_b)
            return (None if ga is None else ga._data), (None if gb is None else gb._data)
        a = a._data
        return (grad * 0.0 if b == 0 else grad * (b * a ** (b - 1))), None


class RPow(_Binary):
    """``number ** tensor``."""

    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, base, exponent):
        RPow._remember_shapes(ctx, base, exponent)
        return _promote(np.power(base, exponent), base, exponent)

    @staticmethod
    def grads(ctx, grad, need_a, need_b):
        base, exponent = ctx.saved_tensors
        return None, grad * (base ** exponent) * float(np.log(base))


def _is_number(x):
    return not hasattr(x, "_data")


class Neg(Function):
    _array_forward = True

    @staticmethod
    def forward(ctx, a):
        return np.negative(a)

    @staticmethod
    def backward(ctx, grad):
        return -grad
