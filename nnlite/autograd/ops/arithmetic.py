"""Binary arithmetic with numpy broadcasting; gradients are reduced back to each input's shape."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from ..promotion import binary_result
from . import vjp
from .where import where

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike

    from ..._typing import Array, Gradient
    from .vjp import Operand

_NEGATIVE_POWER = "Integers to negative integer powers are not allowed."


class _Binary(Op):
    """Elementwise binary op: ``grads`` gives the raw gradients, un-broadcast here for both inputs."""

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[Gradient | None, Gradient | None]:
        ga, gb = self.grads(grad, needs[0], needs[1])
        shape_a, shape_b = self.shapes
        if ga is not None and ga.shape != shape_a:
            ga = vjp.sum_to(ga, shape_a)
        if gb is not None and gb.shape != shape_b:
            gb = vjp.sum_to(gb, shape_b)
        return ga, gb

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        raise NotImplementedError

    def _remember_shapes(self, a: Operand, b: Operand) -> None:
        self.shapes = (
            a.shape if a.__class__ is np.ndarray else (),
            b.shape if b.__class__ is np.ndarray else (),
        )


class Add(_Binary):
    """``a + alpha * b``."""

    alpha: float = 1
    ufunc: Callable[..., Array] = staticmethod(np.add)
    sign = 1  # of b's gradient

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        alpha = self.alpha
        return binary_result(self.ufunc(a, b) if alpha == 1 else self.ufunc(a, b * alpha), a, b)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        scale = self.sign * self.alpha
        gb = (grad if scale == 1 else -grad if scale == -1 else grad * scale) if need_b else None
        return grad if need_a else None, gb


class Sub(Add):
    """``a - alpha * b``; PyTorch refuses bool operands."""

    ufunc = staticmethod(np.subtract)
    sign = -1

    def forward(self, a: Operand, b: Operand) -> Array:
        try:
            out = Add.forward(self, a, b)
        except TypeError:  # numpy's refusal of bool - bool
            raise RuntimeError(_BOOL_SUBTRACTION) from None
        # a single bool operand: operands of different dtypes (or a Python bool)
        if getattr(a, "dtype", None) is not getattr(b, "dtype", None) and (
            _is_bool(a) or _is_bool(b)
        ):
            raise RuntimeError(_BOOL_MINUS)
        return out


_BOOL_SUBTRACTION = (
    "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
    "`logical_xor()` operator instead."
)
_BOOL_MINUS = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)
_BOOL = np.dtype(np.bool_)


def _is_bool(x: Operand) -> bool:
    return x.dtype is _BOOL if x.__class__ is np.ndarray else x.__class__ is bool


class Mul(_Binary):
    saved_inputs = (0, 1)

    def save(self, inputs: Sequence[object]) -> tuple[object, object]:
        # each input's gradient needs only the other one: x.mul_(2) must not save x itself
        a, b = inputs
        return (
            a if getattr(b, "_requires_grad", False) else None,
            b if getattr(a, "_requires_grad", False) else None,
        )

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return binary_result(np.multiply(a, b), a, b)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        a, b = self.inputs()
        return grad * b if need_a else None, grad * a if need_b else None


class Div(_Binary):
    silence_fp_errors = True
    saved_inputs = (0, 1)

    def save(self, inputs: Sequence[object]) -> tuple[object, object]:
        # a's gradient needs only b: y.div_(2) on a non-leaf must not save y itself
        a, b = inputs
        return (a if getattr(b, "_requires_grad", False) else None, b)

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return binary_result(np.true_divide(a, b), a, b, to_float=True)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        a, b = self.inputs()
        ga = grad / b
        return ga if need_a else None, -ga * a / b if need_b else None


def rounded_quotient(a: ArrayLike, b: ArrayLike, rounding_mode: str | None) -> Array:
    """``a / b`` rounded toward -inf (``"floor"``) or toward zero (``"trunc"``), in PyTorch's
    dtype; integer division by zero raises as PyTorch does."""
    if rounding_mode == "floor":
        out = binary_result(np.floor_divide(a, b), a, b)
    elif rounding_mode == "trunc":
        out = binary_result(np.floor_divide(a, b), a, b)
        if out.dtype.kind == "f":
            out = binary_result(np.trunc(np.true_divide(a, b)), a, b)
        else:  # a floor that missed (negative quotient, non-zero remainder) is one too low
            out = np.where((out < 0) & (out * b != a), out + 1, out).astype(out.dtype)
    else:
        raise RuntimeError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    _check_integer_divisor(out, b)
    return out


def _check_integer_divisor(out: Array, b: ArrayLike) -> None:
    if out.dtype.kind in "biu" and np.any(np.asarray(b) == 0):
        raise RuntimeError("ZeroDivisionError")


class DivRounded(_Binary):
    """``div(a, b, rounding_mode="floor" or "trunc")``: piecewise constant, so zero gradients."""

    node_name = "DivBackward2"
    silence_fp_errors = True
    rounding_mode = "trunc"

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return rounded_quotient(a, b, self.rounding_mode)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        zero = grad * 0.0
        return zero if need_a else None, zero if need_b else None


class Remainder(_Binary):
    """``a - floor(a / b) * b``: the sign of the divisor, as Python's ``%``."""

    silence_fp_errors = True
    saved_inputs = (0, 1)
    ufunc: Callable[..., Array] = staticmethod(np.remainder)
    rounding = staticmethod(np.floor)

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        out = binary_result(self.ufunc(a, b), a, b)
        _check_integer_divisor(out, b)
        return out

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        gb = None
        if need_b:  # the rounded quotient is piecewise constant: a constant here
            a, b = (getattr(t, "_data", t) for t in self.saved_tensors)
            gb = -grad * vjp.mask(self.rounding(np.true_divide(a, b)), grad)
        return grad if need_a else None, gb


class Fmod(Remainder):
    """``a - trunc(a / b) * b``: the sign of the dividend, as C's ``fmod``."""

    ufunc = staticmethod(np.fmod)
    rounding = staticmethod(np.trunc)


class Pow(_Binary):
    """``a ** b`` for a tensor base; the exponent may be a number or a tensor."""

    silence_fp_errors = True
    saved_inputs = (0, 1)

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return integer_power(a, b)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
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

    def forward(self, base: Operand, exponent: Operand) -> Array:
        self._remember_shapes(base, exponent)
        return integer_power(base, exponent)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        base, exponent = self.inputs()
        grad_exponent = (base**exponent) * float(np.log(base))
        if base == 0:  # 0 ** b is constant 0 for b > 0: PyTorch takes the gradient as 0 for b >= 0
            grad_exponent = where(exponent >= 0, 0.0, grad_exponent)
        return None, grad * grad_exponent


def integer_power(a: Operand, b: Operand) -> Array:
    """``a ** b`` in PyTorch's dtype. Integers to negative integer powers: an error for a number
    exponent; elementwise with a tensor exponent, where they truncate (``2 ** -1 == 0``,
    ``(-1) ** -1 == -1``) as in PyTorch."""
    try:
        return binary_result(np.power(a, b), a, b)
    except ValueError:  # numpy refuses negative integer exponents
        if not isinstance(b, np.ndarray):  # a 0-d tensor exponent works elementwise
            raise RuntimeError(_NEGATIVE_POWER) from None
    base = np.asarray(a)
    negative = b < 0
    out = np.power(base, np.where(negative, 0, b))
    truncated = np.where(base == 1, 1, np.where(base == -1, np.where(b % 2 == 0, 1, -1), 0))
    return binary_result(np.where(negative, truncated, out).astype(out.dtype), a, b)


def _is_number(x: object) -> bool:
    return isinstance(x, (int, float, np.number))


class Neg(Op):
    def forward(self, a: Array) -> Array:
        try:
            return np.negative(a)
        except TypeError:  # numpy's words for a bool tensor; PyTorch's below
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead."
            ) from None

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return -grad
