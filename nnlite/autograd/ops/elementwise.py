# mypy: disable-error-code="has-type"
"""More pointwise functions: logs and exponentials near zero, inverse and hyperbolic trigonometry,
the gamma family, ``erfc``/``erfinv``, rounding, and ``atan2``; each one ``Op`` whose backward is
written with functions of this same file (so every order of gradient exists)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast, overload

import numpy as np

from ..op import Op
from ..promotion import floating
from . import vjp
from .arithmetic import _Binary
from .where import where

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import ArrayLike

    from ..._typing import Array, Gradient
    from ..tensor import Tensor
    from .vjp import GradientT, Operand

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)
_kernels: dict[str, np.ufunc] = {}


def _compiled(name: str) -> np.ufunc:
    """numba ufuncs for what numpy lacks (lgamma, polygamma, erfc, erfinv, ndtri), compiled on first use."""
    if not _kernels:
        from ..._runtime.jit import njit, vectorize

        sig = ["float32(float32)", "float64(float64)"]

        @vectorize(sig, cache=True)
        def lgamma(x: float) -> float:
            return math.lgamma(x)

        @vectorize(sig, cache=True)
        def erfc(x: float) -> float:
            return math.erfc(x)

        @njit(cache=True)
        def inverse_erf(y: float, q: float) -> float:
            # x with erf(x) = y, given q = 1 - |y| as exactly as the caller knows it (the tails
            # need q itself: 1 - |y| has lost its digits there). Giles' single-precision
            # approximation, then Halley steps on erf near 0 and on erfc in the tails, where
            # erfc(x) - q keeps its relative precision.
            if y == 0.0:
                return y  # keeps the sign of zero
            sign = 1.0
            if y < 0.0:
                sign, y = -1.0, -y
            if q <= 0.0:
                return sign * math.inf if q == 0.0 else math.nan
            if q > 1.0 or y != y:
                return math.nan
            w = -math.log(q * (2.0 - q))
            if w < 5.0:
                w -= 2.5
                p = 2.81022636e-08
                for c in (
                    3.43273939e-07,
                    -3.5233877e-06,
                    -4.39150654e-06,
                    0.00021858087,
                    -0.00125372503,
                    -0.00417768164,
                    0.246640727,
                    1.50140941,
                ):
                    p = c + p * w
                x = p * y
            else:
                # erfc(x) ~ exp(-x*x) / (x sqrt(pi)): a start good for any tail, however far
                t = w - math.log(2.0)
                x = math.sqrt(t - 0.5 * math.log(math.pi * t))
            for _ in range(8):
                half = math.exp(
                    -0.5 * x * x
                )  # the derivative's exp(-x*x) in two halves: no underflow
                if y <= 0.5:
                    r = (math.erf(x) - y) / half / (1.1283791670955126 * half)
                    step = -r / (1.0 + r * x)
                else:
                    r = (math.erfc(x) - q) / half / (1.1283791670955126 * half)
                    step = r / (1.0 - r * x)
                x += step
                if abs(step) <= 1e-17 * abs(x):
                    break
            return sign * x

        @vectorize(sig, cache=True)
        def erfinv(y: float) -> float:
            if y <= -1.0:
                return -math.inf if y == -1.0 else math.nan
            if y >= 1.0:
                return math.inf if y == 1.0 else math.nan
            return inverse_erf(float(y), 1.0 - abs(float(y)))

        @vectorize(sig, cache=True)
        def ndtri(p: float) -> float:
            # ndtri(p) = sqrt(2) erfinv(2p - 1), with the tail distance 2 min(p, 1 - p) handed
            # on exactly
            if p < 0.0 or p > 1.0 or p != p:
                return math.nan
            p2 = 2.0 * float(p)
            return 1.4142135623730951 * inverse_erf(p2 - 1.0, min(p2, 2.0 - p2))

        @vectorize(["float32(int64, float32)", "float64(int64, float64)"], cache=True)
        def polygamma(n: int, x: float) -> float:
            # recurrence up to x >= 10, then the asymptotic series (Abramowitz & Stegun 6.4.11)
            if x <= 0.0 and x == math.floor(x):
                return math.nan
            acc = 0.0
            sign = 1.0 if n % 2 == 1 else -1.0
            fact = math.gamma(n + 1.0)
            while x < 10.0:
                if n == 0:
                    acc -= 1.0 / x
                else:
                    acc += sign * fact / x ** (n + 1)
                x += 1.0
            bernoulli = (1.0 / 6, -1.0 / 30, 1.0 / 42, -1.0 / 30, 5.0 / 66, -691.0 / 2730, 7.0 / 6)
            if n == 0:
                s = math.log(x) - 0.5 / x
                for k in range(1, 8):
                    s -= bernoulli[k - 1] / (2 * k * x ** (2 * k))
                return acc + s
            s = math.gamma(n) / x**n + fact / (2.0 * x ** (n + 1))
            for k in range(1, 8):
                s += (
                    bernoulli[k - 1]
                    * math.gamma(2.0 * k + n)
                    / (math.gamma(2.0 * k + 1) * x ** (2 * k + n))
                )
            return acc + sign * s

        @vectorize(["float32(int64, float32)", "float64(int64, float64)"], cache=True)
        def bessel_i(order: int, x: float) -> float:
            # the power series of I_order (order 0 or 1): positive terms, no cancellation
            half = abs(x) / 2.0
            term = 1.0 if order == 0 else half
            total = term
            k = 0
            while term > total * 1e-17 and k < 2000:
                k += 1
                term *= half * half / (k * (k + order))
                total += term
            return total if (order == 0 or x >= 0) else -total

        _kernels.update(
            lgamma=lgamma,
            erfc=erfc,
            erfinv=erfinv,
            ndtri=ndtri,
            polygamma=polygamma,
            bessel_i=bessel_i,
        )
    return _kernels[name]


def polygamma_array(n: int, a: ArrayLike) -> Array:
    out: Array = _compiled("polygamma")(np.int64(n), floating(np.asarray(a)))
    return out


class _Unary(Op):
    """``out = f(x)`` with ``f`` a numpy function; ``derivative(x)`` is ``f'(x)``."""

    saved_inputs = (0,)
    silence_fp_errors = True

    def forward(self, a: Array) -> Array:
        return np.asarray(self.function(floating(np.asarray(a))))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        (x,) = self.inputs()
        return grad * self.derivative(x)

    @staticmethod
    def function(a: Array) -> Array:
        raise NotImplementedError

    def derivative(self, x: Gradient) -> Gradient:
        raise NotImplementedError


@overload
def _apply(op_class: type[Op], x: Array, **params: Any) -> Array: ...
@overload
def _apply(op_class: type[Op], x: Tensor, **params: Any) -> Tensor: ...
def _apply(op_class: type[Op], x: Gradient, **params: Any) -> Gradient:
    """``op_class`` on ``x``: recorded for a Tensor, plain numpy for an array (in formulas)."""
    return vjp.call(op_class, x, **params)


def _define(
    name: str,
    function: Callable[[Array], Array],
    derivative: Callable[[_Unary, Any], Gradient],
) -> type[_Unary]:
    # (``derivative``'s argument is a Gradient; the formulas below are module-level lambdas,
    # which mypy checks before it knows the Tensor operators they use)
    cls = type(name, (_Unary,), {"function": staticmethod(function), "derivative": derivative})
    return cast("type[_Unary]", cls)


def _sqrt(x: GradientT) -> GradientT:
    return x.sqrt() if vjp.is_tensor(x) else np.sqrt(x)


Log1p = _define("Log1p", np.log1p, lambda self, x: 1 / (1 + x))
Expm1 = _define("Expm1", np.expm1, lambda self, x: vjp.exp(x))
Exp2 = _define("Exp2", np.exp2, lambda self, x: _apply(Exp2, x) * _LN2)
Log2 = _define("Log2", np.log2, lambda self, x: 1 / (x * _LN2))
Log10 = _define("Log10", np.log10, lambda self, x: 1 / (x * _LN10))
Tan = _define("Tan", np.tan, lambda self, x: 1 + _apply(Tan, x) ** 2)
Asin = _define("Asin", np.arcsin, lambda self, x: 1 / _sqrt(1 - x * x))
Acos = _define("Acos", np.arccos, lambda self, x: -1 / _sqrt(1 - x * x))
Atan = _define("Atan", np.arctan, lambda self, x: 1 / (1 + x * x))
Sinh = _define("Sinh", np.sinh, lambda self, x: _apply(Cosh, x))
Cosh = _define("Cosh", np.cosh, lambda self, x: _apply(Sinh, x))
Asinh = _define("Asinh", np.arcsinh, lambda self, x: 1 / _sqrt(x * x + 1))
Acosh = _define("Acosh", np.arccosh, lambda self, x: 1 / _sqrt(x * x - 1))
Atanh = _define("Atanh", np.arctanh, lambda self, x: 1 / (1 - x * x))
Erfc = _define(
    "Erfc",
    lambda a: _compiled("erfc")(a),
    lambda self, x: -_TWO_OVER_SQRT_PI * vjp.exp(-(x * x)),
)
Erfinv = _define(
    "Erfinv",
    lambda a: _compiled("erfinv")(a),
    lambda self, x: _SQRT_PI_OVER_TWO * vjp.exp(_apply(Erfinv, x) ** 2),
)
Ndtri = _define(
    "Ndtri",
    lambda a: _compiled("ndtri")(a),
    lambda self, x: _SQRT_TWO_PI * vjp.exp(_apply(Ndtri, x) ** 2 * 0.5),
)
Lgamma = _define(
    "Lgamma", lambda a: _compiled("lgamma")(a), lambda self, x: _apply(Polygamma, x, n=0)
)


class Polygamma(_Unary):
    """The ``n``-th derivative of the digamma function (``n = 0``: digamma itself)."""

    n = 0

    def forward(self, a: Array) -> Array:
        return polygamma_array(self.n, a)

    def derivative(self, x: Gradient) -> Gradient:
        return _apply(Polygamma, x, n=self.n + 1)


class _Rounding(Op):
    """floor, ceil, trunc, round: piecewise constant, so the gradient is zero (as PyTorch's)."""

    if TYPE_CHECKING:  # numpy's rounding, given by each subclass

        def function(self, a: Array) -> Array: ...

    def forward(self, a: Array) -> Array:
        if a.dtype.kind in "biu":
            out: Array = a.copy()
            return out
        return self.function(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return grad * 0


Floor = cast("type[_Rounding]", type("Floor", (_Rounding,), {"function": staticmethod(np.floor)}))
Ceil = cast("type[_Rounding]", type("Ceil", (_Rounding,), {"function": staticmethod(np.ceil)}))
Trunc = cast("type[_Rounding]", type("Trunc", (_Rounding,), {"function": staticmethod(np.trunc)}))


class Round(_Rounding):
    decimals = 0

    def function(self, a: Array) -> Array:
        return np.round(a, self.decimals).astype(a.dtype, copy=False)


class Atan2(_Binary):
    saved_inputs = (0, 1)
    silence_fp_errors = True

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        a, b = np.asarray(a), np.asarray(b)
        out = np.arctan2(floating(a), floating(b))
        return out.astype(np.result_type(floating(a), floating(b)), copy=False)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        a, b = self.inputs()
        scale = grad / (a * a + b * b)
        return scale * b if need_a else None, -scale * a if need_b else None


def bessel_i_array(order: int, a: ArrayLike) -> Array:
    out: Array = _compiled("bessel_i")(np.int64(order), floating(np.asarray(a)))
    return out


class BesselI0(_Unary):
    """The modified Bessel function of the first kind, order 0; its derivative is ``I1``."""

    def forward(self, a: Array) -> Array:
        return bessel_i_array(0, a)

    def derivative(self, x: Gradient) -> Gradient:
        return _apply(BesselI1, x)


class BesselI1(_Unary):
    """Order 1; ``I1'(x) = I0(x) - I1(x) / x`` (1/2 at 0)."""

    def forward(self, a: Array) -> Array:
        return bessel_i_array(1, a)

    def derivative(self, x: Gradient) -> Gradient:
        zero = (x._data if vjp.is_tensor(x) else np.asarray(x)) == 0
        safe = where(zero, vjp.const(np.ones_like(zero, dtype=float), x), x)
        slope = _apply(BesselI0, x) - _apply(BesselI1, x) / safe
        return where(zero, vjp.const(np.full(zero.shape, 0.5), x), slope)
