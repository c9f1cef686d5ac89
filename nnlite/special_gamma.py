"""The regularized incomplete gamma functions and Hurwitz's zeta function, as ops.

- ``P(a, x)`` (``gammainc``) and ``Q(a, x) = 1 - P`` (``gammaincc``): the power series
  ``P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a + 1)...(a + n))`` where ``x < a + 1``, the
  continued fraction of ``Q`` (evaluated by Lentz's method) elsewhere (A&S 6.5.29 and 6.5.31). The
  prefactor ``x^a e^-x / Gamma(a)`` is taken in logarithms, written with ``log1p(d) - d`` for
  ``x = a (1 + d)`` and Stirling's remainder so that it keeps its precision for large ``a``.
  Their derivative in ``x`` is ``+-x^(a-1) e^-x / Gamma(a)``; in ``a`` PyTorch has none and neither
  has nnlite (the same error).
- ``zeta(x, q) = sum_k (q + k)^-x``: the Euler-Maclaurin formula (DLMF 25.11.5 with the Bernoulli
  numbers), summing directly up to ``q + N >= 10`` and 12 correction terms after. Its derivative in
  ``q`` is ``-x zeta(x + 1, q)``; in ``x`` PyTorch has none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from .autograd import op as _op
from .autograd.op import Op
from .autograd.ops import vjp
from .autograd.ops.elementwise import Lgamma

if TYPE_CHECKING:
    from ._typing import Array, Gradient
    from .autograd.tensor import Tensor

_EPS = np.finfo(np.float64).eps
_MAX_ITERATIONS = 10_000


def _log_gamma(a: np.ndarray) -> np.ndarray:
    log_gamma: np.ndarray = (
        np.vectorize(math.lgamma, otypes=[np.float64])(a) if a.size else a.copy()
    )
    return log_gamma


def _stirling_remainder(a: np.ndarray) -> np.ndarray:
    """``lgamma(a) - ((a - 1/2) log a - a + log(2 pi) / 2)``, exact for large ``a`` too."""
    big = a >= 10
    inv = 1 / np.where(big, a, 1.0)
    inv2 = inv * inv
    # the Stirling series 1/(12a) - 1/(360a^3) + 1/(1260a^5) - 1/(1680a^7) + 1/(1188a^9)
    series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 / 1188))))
    direct = _log_gamma(np.where(big, 1.0, a)) - (
        (np.where(big, 1.0, a) - 0.5) * np.log(np.where(big, 1.0, a))
        - np.where(big, 1.0, a)
        + 0.5 * math.log(2 * math.pi)
    )
    return np.where(big, series, direct)


def _log_prefactor(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log(x^a e^-x / Gamma(a))`` for ``a, x > 0``."""
    d = (x - a) / a
    # log(1 + d) - d: log1p keeps it exact near x = a; far away, 1 + d = x / a is the exact form
    near = np.abs(d) < 0.5
    log_ratio = np.where(near, np.log1p(np.where(near, d, 0.0)), np.log(x / a))
    log_prefactor: np.ndarray = (
        a * (log_ratio - d) + 0.5 * np.log(a) - 0.5 * math.log(2 * math.pi) - _stirling_remainder(a)
    )
    return log_prefactor


def _lower_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``P(a, x)`` by its power series (for ``x < a + 1``)."""
    term = 1 / a
    total = term.copy()
    active = np.ones(a.shape, dtype=bool)
    n = 0
    while active.any() and n < _MAX_ITERATIONS:
        n += 1
        term = np.where(active, term * x / (a + n), term)
        total = np.where(active, total + term, total)
        active &= np.abs(term) > np.abs(total) * _EPS
    lower_series: np.ndarray = total * np.exp(_log_prefactor(a, x))
    return lower_series


def _upper_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Q(a, x)`` by its continued fraction (for ``x >= a + 1``), Lentz's method."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full(a.shape, 1 / tiny)
    d = 1 / b
    h = d.copy()
    active = np.ones(a.shape, dtype=bool)
    n = 0
    while active.any() and n < _MAX_ITERATIONS:
        n += 1
        an = -n * (n - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = d * c
        h = np.where(active, h * delta, h)
        active &= np.abs(delta - 1) > _EPS
    upper_fraction: np.ndarray = h * np.exp(_log_prefactor(a, x))
    return upper_fraction


def _lgamma1p(a: np.ndarray) -> np.ndarray:
    """``lgamma(1 + a)`` for ``|a| <= 1/2``: ``-euler a + sum_k (-1)^k zeta(k) a^k / k``, exact for
    tiny ``a`` where ``1 + a`` rounds to 1."""
    total = -0.57721566490153286061 * a
    power = -a  # (-a)^k
    for k in range(2, 60):
        power = power * -a
        total = total + _zeta_integers()[k] * power / k
    return total


@cache
def _zeta_integers() -> np.ndarray:
    """``zeta(k)`` for ``k = 0 .. 59`` (entries below 2 unused), by ``hurwitz_zeta``."""
    values = np.zeros(60)
    k = np.arange(2.0, 60.0)
    values[2:] = _euler_maclaurin(k, np.ones_like(k))
    return values


def _upper_small(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``Q(a, x)`` for ``a < 1/2`` and ``x <= 3/2`` without the cancellation of ``1 - P``:
    ``Q = -expm1(u) - exp(u) a S`` with ``u = a log x - lgamma(1 + a)`` and
    ``S = sum_{n>=1} (-x)^n / (n! (a + n))`` (from ``P``'s series term by term)."""
    u = a * np.log(x) - _lgamma1p(a)
    term = np.ones_like(x)
    total = np.zeros_like(x)
    for n in range(1, 40):
        term = term * -x / n
        total = total + term / (a + n)
    upper_small: np.ndarray = -np.expm1(u) - np.exp(u) * a * total
    return upper_small


def regularized_gamma(a: np.ndarray, x: np.ndarray, upper: bool) -> np.ndarray:
    """``P(a, x)`` (or ``Q`` when ``upper``) with PyTorch's values at the edges: ``nan`` for negative
    or ``nan`` arguments, for ``a = x = 0`` and for ``a = inf``; ``P(0, x > 0) = 1``,
    ``P(a > 0, 0) = 0``, ``P(a, inf) = 1``."""
    a, x = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(x, np.float64))
    p = np.full(a.shape, np.nan)
    # the edge cases in the order PyTorch tests them (so P(nan, 0) = 0 and P(inf, nan) = 0)
    settled = (x < 0) | (a < 0)
    for case, value in (
        (a == 0, np.where(x > 0, 1.0, np.nan)),
        (x == 0, 0.0),
        (a == np.inf, np.where(x == np.inf, np.nan, 0.0)),
        (x == np.inf, 1.0),
    ):
        now = case & ~settled
        p[now] = np.broadcast_to(value, a.shape)[now]
        settled |= case
    valid = ~settled
    inner = valid & ~np.isnan(a) & ~np.isnan(x)
    series = inner & (x < a + 1)
    fraction = inner & ~series
    q = 1 - p
    with np.errstate(under="ignore"):
        lower = _lower_series(a[series], x[series])
        upper_part = _upper_fraction(a[fraction], x[fraction])
    p[series], q[series] = lower, 1 - lower
    small = series & (a < 0.5) & (x <= 1.5)
    with np.errstate(under="ignore"):
        q[small] = _upper_small(a[small], x[small])
    p[fraction], q[fraction] = 1 - upper_part, upper_part
    return q if upper else p


# --------------------------------------------------------------------------------------- zeta
_CORRECTIONS = 12


@cache
def _bernoulli_factors() -> np.ndarray:
    """``B_2j / (2j)!`` for ``j = 1 .. 12`` (the Bernoulli numbers by their recurrence)."""
    numbers = [Fraction(1)]
    for m in range(1, 2 * _CORRECTIONS + 1):
        total = sum((math.comb(m + 1, k) * numbers[k] for k in range(m)), Fraction(0))
        numbers.append(-total / (m + 1))
    return np.array(
        [float(numbers[2 * j] / math.factorial(2 * j)) for j in range(1, _CORRECTIONS + 1)]
    )


def _euler_maclaurin(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    # successive corrections shrink by ((x + 2j) / (2 pi w))^2: below 1/25 from w = 0.8 (x + 24);
    # past w = 1000 what is left has underflowed anyway
    start = np.minimum(np.maximum(10, 0.8 * (x + 2 * _CORRECTIONS)), 1000)
    terms = np.maximum(0, np.ceil(start - q)).astype(np.int64)
    total: np.ndarray = np.zeros_like(x)
    for k in range(int(terms.max(initial=0))):
        total = total + np.where(k < terms, np.power(q + k, -x), 0.0)
    w = q + terms
    total = total + w ** (1 - x) / (x - 1) + 0.5 * w**-x
    rising = x.copy()  # x (x + 1) ... (x + 2j - 2)
    power = w ** (-x - 1)
    for j, factor in enumerate(_bernoulli_factors(), start=1):
        total = total + factor * rising * power
        rising = rising * (x + 2 * j - 1) * (x + 2 * j)
        power = power / (w * w)
    return total


def hurwitz_zeta(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """``zeta(x, q)`` with PyTorch's values: ``inf`` at ``x = 1`` and at non-positive integer ``q``;
    ``nan`` for ``x < 1``, for negative ``q`` with non-integer ``x`` and for ``q = inf``."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    out = np.full(x.shape, np.nan)
    pole = (q <= 0) & (q == np.floor(q))
    integer_x = x == np.floor(x)
    usable = (x > 1) & ~pole & ((q > 0) | integer_x)
    finite = usable & np.isfinite(x) & np.isfinite(q)
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        out[finite] = _euler_maclaurin(x[finite], q[finite])
    endless = usable & (x == np.inf) & np.isfinite(q)
    out[endless & (q == 1)] = 1.0
    out[endless & (q < 1)] = np.inf
    out[(x > 1) & pole] = np.inf
    out[x == 1] = np.inf
    return out


# ---------------------------------------------------------------------------------------- ops
def _floating_result(result: np.ndarray, *inputs: np.ndarray) -> np.ndarray:
    from .autograd.promotion import result_type

    return result.astype(result_type(*inputs))


class GammaInc(Op):
    """``P(a, x)``; differentiable in ``x`` only, as PyTorch."""

    upper = False
    saved_inputs = (0, 1)
    silence_fp_errors = True
    node_name = "IgammaBackward0"

    def forward(self, a: Array, x: Array) -> Array:
        self.shapes = (np.shape(a), np.shape(x))
        return _floating_result(regularized_gamma(a, x, self.upper), a, x)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        if needs[0]:
            name = "igammac" if self.upper else "igamma"
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        a, x = self.inputs()
        slope = vjp.exp((a - 1) * vjp.log(x) - x - vjp.call(Lgamma, a))
        g = grad * slope
        return None, vjp.sum_to(-g if self.upper else g, self.shapes[1])


class GammaIncc(GammaInc):
    """``Q(a, x) = 1 - P(a, x)``; differentiable in ``x`` only, as PyTorch."""

    upper = True
    node_name = "IgammacBackward0"


class HurwitzZeta(Op):
    """``zeta(x, q)``; differentiable in ``q`` only, as PyTorch."""

    saved_inputs = (0, 1)
    silence_fp_errors = True
    node_name = "SpecialZetaBackward0"

    def forward(self, x: Array, q: Array) -> Array:
        self.shapes = (np.shape(x), np.shape(q))
        return _floating_result(hurwitz_zeta(x, q), x, q)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        if needs[0]:
            raise NotImplementedError("the derivative for 'zeta' is not implemented.")
        x, q = self.inputs()
        return None, vjp.sum_to(-grad * x * vjp.call(HurwitzZeta, x + 1, q), self.shapes[1])


# ----------------------------------------------------------------------------- public names
def _operands(name: str, input: Any, other: Any, scalars: bool) -> tuple[Tensor, Tensor]:
    """Both operands as Tensors of one floating dtype (PyTorch's promotion)."""
    from .autograd.promotion import default_float, result_type

    if not scalars:
        for position, (label, value) in enumerate((("input", input), ("other", other)), start=1):
            if not isinstance(value, _op.Tensor):
                raise TypeError(
                    f"{name}(): argument '{label}' (position {position}) must be Tensor, not "
                    f"{type(value).__name__}"
                )
    elif not isinstance(input, _op.Tensor) and not isinstance(other, _op.Tensor):
        raise TypeError(f"{name}(): expected at least one Tensor argument")
    arrays = [v._data if isinstance(v, _op.Tensor) else v for v in (input, other)]
    dtype = result_type(*arrays)
    if dtype.kind != "f":
        if not scalars:
            kernel = "igamma" if name.endswith("gammainc") else "igammac"
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for '{_name_of(dtype)}'")
        dtype = default_float()
    return tuple(  # type: ignore[return-value]
        v.to(_dtype_of(dtype))
        if isinstance(v, _op.Tensor) and v._data.dtype != dtype
        else v
        if isinstance(v, _op.Tensor)
        else _op.make_tensor(np.asarray(v, dtype=dtype))
        for v in (input, other)
    )


def _name_of(dtype: np.dtype) -> str:
    from .autograd.promotion import scalar_type_name

    name: str = scalar_type_name(dtype)
    return name


def _dtype_of(dtype: np.dtype) -> Any:
    from .autograd.dtypes import from_numpy_dtype

    return from_numpy_dtype(dtype)


def _finish(name: str, result: Tensor, out: Tensor | None, inputs: tuple[Any, ...]) -> Tensor:
    if out is None:
        return result
    from .autograd.out_arg import write_out

    written: Tensor = write_out(name, result, out, inputs)
    return written


def gammainc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(a, x)`` with ``a = input``,
    ``x = other``: ``int_0^x t^(a-1) e^-t dt / Gamma(a)``.

    Differentiable in ``other`` (``x^(a-1) e^-x / Gamma(a)``); a gradient for ``input`` raises, as
    in PyTorch.

    Args:
        input (Tensor): ``a >= 0``.
        other (Tensor): ``x >= 0`` (broadcast).
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``P(a, x)`` (``nan`` for negative arguments).

    Examples:
        >>> nl.special.gammainc(nl.tensor([1., 2.]), nl.tensor([1., 2.]))
        tensor([0.6321, 0.5940])
    """
    a, x = _operands("special_gammainc", input, other, scalars=False)
    return _finish("special_gammainc", GammaInc.apply(a, x), out, (input, other))


def gammaincc(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` with
    ``a = input``, ``x = other``.

    Differentiable in ``other``; a gradient for ``input`` raises, as in PyTorch.

    Args:
        input (Tensor): ``a >= 0``.
        other (Tensor): ``x >= 0`` (broadcast).
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``Q(a, x)``.

    Examples:
        >>> nl.special.gammaincc(nl.tensor([1., 2.]), nl.tensor([1., 2.]))
        tensor([0.3679, 0.4060])
    """
    a, x = _operands("special_gammaincc", input, other, scalars=False)
    return _finish("special_gammaincc", GammaIncc.apply(a, x), out, (input, other))


def zeta(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """Hurwitz's zeta function ``sum_k (q + k)^-x`` with ``x = input``, ``q = other`` (Riemann's
    for ``q = 1``).

    Differentiable in ``other`` (``-x zeta(x + 1, q)``); a gradient for ``input`` raises, as in
    PyTorch.

    Args:
        input (Tensor or number): ``x`` (``nan`` below 1, ``inf`` at 1).
        other (Tensor or number): ``q`` (``inf`` at the non-positive integers).
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the values.

    Examples:
        >>> nl.special.zeta(nl.tensor([2.]), 1.0)
        tensor([1.6449])
    """
    x, q = _operands("special_zeta", input, other, scalars=True)
    return _finish("special_zeta", HurwitzZeta.apply(x, q), out, (input, other))
