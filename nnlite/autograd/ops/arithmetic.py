"""Binary arithmetic with numpy broadcasting; gradients are reduced back to each input's shape."""

import numpy as np

from ..op import Op
from . import vjp
from .where import where

_F64 = np.dtype(np.float64)


def _promote(out, a, b):
    """PyTorch's promotion where numpy differs: integer tensor with a Python float gives float32."""
    if out.dtype is _F64 and not (
        getattr(a, "dtype", None) is _F64 or getattr(b, "dtype", None) is _F64
    ):
        return out.astype(np.float32)
    return out


class _Binary(Op):
    """Elementwise binary op: ``grads`` gives the raw gradients, un-broadcast here for both inputs."""

    def backward(self, grad, needs):
        ga, gb = self.grads(grad, needs[0], needs[1])
        shape_a, shape_b = self.shapes
        if ga is not None and ga.shape != shape_a:
            ga = vjp.sum_to(ga, shape_a)
        if gb is not None and gb.shape != shape_b:
            gb = vjp.sum_to(gb, shape_b)
        return ga, gb

    def grads(self, grad, need_a, need_b):
        raise NotImplementedError

    def _remember_shapes(self, a, b):
        self.shapes = (
            a.shape if a.__class__ is np.ndarray else (),
            b.shape if b.__class__ is np.ndarray else (),
        )


class Add(_Binary):
    """``a + alpha * b``."""

    alpha = 1
    ufunc = staticmethod(np.add)
    sign = 1  # of b's gradient

    def forward(self, a, b):
        self._remember_shapes(a, b)
        alpha = self.alpha
        return _promote(self.ufunc(a, b) if alpha == 1 else self.ufunc(a, b * alpha), a, b)

    def grads(self, grad, need_a, need_b):
        scale = self.sign * self.alpha
        gb = (grad if scale == 1 else -grad if scale == -1 else grad * scale) if need_b else None
        return grad if need_a else None, gb


class Sub(Add):
    """``a - alpha * b``."""

    ufunc = staticmethod(np.subtract)
    sign = -1


class Mul(_Binary):
    saved_inputs = (0, 1)

    def save(self, inputs):
        # each input's gradient needs only the other one: x.mul_(2) must not save x itself
        a, b = inputs
        return (
            a if getattr(b, "_requires_grad", False) else None,
            b if getattr(a, "_requires_grad", False) else None,
        )

    def forward(self, a, b):
        self._remember_shapes(a, b)
        return _promote(np.multiply(a, b), a, b)

    def grads(self, grad, need_a, need_b):
        a, b = self.inputs()
        return grad * b if need_a else None, grad * a if need_b else None


class Div(_Binary):
    silence_fp_errors = True
    saved_inputs = (0, 1)

    def forward(self, a, b):
        self._remember_shapes(a, b)
        out = np.true_divide(a, b)
        if out.dtype == _F64 and not (
            getattr(a, "dtype", None) == _F64 or getattr(b, "dtype", None) == _F64
        ):
            out = out.astype(np.float32)
        return out

    def grads(self, grad, need_a, need_b):
        a, b = self.inputs()
        ga = grad / b
        return ga if need_a else None, -ga * a / b if need_b else None


class Pow(_Binary):
    """``a ** b`` for a tensor base; the exponent may be a number or a tensor."""

    silence_fp_errors = True
    saved_inputs = (0, 1)

    def forward(self, a, b):
        self._remember_shapes(a, b)
        return _promote(np.power(a, b), a, b)

    def grads(self, grad, need_a, need_b):
        a, b = self.inputs()
        ga = gb = None
        if need_a:
            ga = grad * 0.0 if _is_number(b) and b == 0 else grad * (b * a ** (b - 1))
        if need_b:
            # d(a**b)/db = a**b * log(a), taken as 0 where a == 0 (PyTorch's convention)
            gb = grad * where(a == 0, 0.0, a**b * vjp.log(a))
        return ga, gb


class RPow(_Binary):
    """``number ** tensor``."""

    silence_fp_errors = True
    saved_inputs = (0, 1)

    def forward(self, base, exponent):
        self._remember_shapes(base, exponent)
        return _promote(np.power(base, exponent), base, exponent)

    def grads(self, grad, need_a, need_b):
        base, exponent = self.inputs()
        grad_exponent = (base**exponent) * float(np.log(base))
        if base == 0:  # 0 ** b is constant 0 for b > 0: PyTorch takes the gradient as 0 for b >= 0
            grad_exponent = where(exponent >= 0, 0.0, grad_exponent)
        return None, grad * grad_exponent


def _is_number(x):
    return isinstance(x, (int, float, np.number))


class Neg(Op):
    def forward(self, a):
        return np.negative(a)

    def backward(self, grad, needs):
        return -grad
