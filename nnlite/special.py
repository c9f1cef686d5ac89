"""``nnlite.special``: special functions, as ``torch.special`` names them.

Most are the Tensor's own functions under SciPy's names (``expit`` is ``sigmoid``, ``gammaln`` is
``lgamma``); the rest are composites of them, so gradients exist to every order. The orthogonal
polynomials are evaluated by their recurrences and, as in PyTorch, carry no gradient. The Bessel
and Airy functions (``special_bessel.py``) and the incomplete gamma and zeta functions
(``special_gamma.py``) are nnlite's own numerics, to float64 precision; the Bessel and Airy
functions carry no gradient, as in PyTorch.

Examples:
    >>> nl.special.expit(nl.tensor([0.]))
    tensor([0.5000])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import special_bessel as _bessel
from .autograd import op as _op
from .autograd.ops import elementwise as _ew
from .autograd.ops.elementwise import bessel_i_array
from .autograd.out_arg import write_out
from .autograd.promotion import default_float
from .autograd.providers import provide
from .autograd.tensor import Tensor
from .special_gamma import gammainc, gammaincc, zeta

__all__ = [
    "digamma", "psi", "polygamma", "multigammaln", "gammaln", "erf", "erfc", "erfcx", "erfinv",
    "expit", "logit", "exp2", "expm1", "log1p", "xlogy", "xlog1py", "entr", "ndtr", "ndtri",
    "log_ndtr", "i0", "i0e", "i1", "i1e", "sinc", "round", "softmax", "log_softmax", "logsumexp",
    "spherical_bessel_j0", "chebyshev_polynomial_t", "chebyshev_polynomial_u",
    "chebyshev_polynomial_v", "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p",
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
    "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1", "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1", "gammainc", "gammaincc", "zeta",
]  # fmt: skip

_SQRT2 = math.sqrt(2.0)


def _finish(name: str, result: Tensor, out: Tensor | None, inputs: tuple[Any, ...]) -> Tensor:
    return result if out is None else write_out(name, result, out, inputs)


def _unary(name: str, compute: Any, summary: str, example: str) -> Any:
    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        return _finish(name, compute(input), out, (input,))

    fn.__name__ = name
    fn.__doc__ = (
        f"{summary}\n\nArgs:\n    input (Tensor): the input.\n    out (Tensor, optional): a "
        f"tensor to write the result into.\n\nReturns:\n    Tensor: the result.\n\nExamples:\n"
        + "".join(f"    {line}\n" for line in example.strip().splitlines())
    )
    return fn


digamma = _unary(
    "digamma",
    Tensor.digamma,
    "The digamma function, ``lgamma``'s derivative.",
    ">>> nl.special.digamma(nl.tensor([1.]))\ntensor([-0.5772])",
)
psi = _unary(
    "psi",
    Tensor.digamma,
    "``digamma`` under its other name.",
    ">>> nl.special.psi(nl.tensor([1.]))\ntensor([-0.5772])",
)
gammaln = _unary(
    "gammaln",
    Tensor.lgamma,
    "``log(|gamma(x)|)`` (``lgamma``).",
    ">>> nl.special.gammaln(nl.tensor([3.]))\ntensor([0.6931])",
)
erf = _unary(
    "erf", Tensor.erf, "The error function.", ">>> nl.special.erf(nl.tensor([0.]))\ntensor([0.])"
)
erfc = _unary(
    "erfc", Tensor.erfc, "``1 - erf(x)``.", ">>> nl.special.erfc(nl.tensor([0.]))\ntensor([1.])"
)
erfinv = _unary(
    "erfinv",
    Tensor.erfinv,
    "The inverse of ``erf``.",
    ">>> nl.special.erfinv(nl.tensor([0.]))\ntensor([0.])",
)
expit = _unary(
    "expit",
    Tensor.sigmoid,
    "The logistic sigmoid.",
    ">>> nl.special.expit(nl.tensor([0.]))\ntensor([0.5000])",
)
exp2 = _unary(
    "exp2", Tensor.exp2, "``2 ** x``.", ">>> nl.special.exp2(nl.tensor([3.]))\ntensor([8.])"
)
expm1 = _unary(
    "expm1",
    Tensor.expm1,
    "``exp(x) - 1``, exact near 0.",
    ">>> nl.special.expm1(nl.tensor([0.]))\ntensor([0.])",
)
log1p = _unary(
    "log1p",
    Tensor.log1p,
    "``log(1 + x)``, exact near 0.",
    ">>> nl.special.log1p(nl.tensor([0.]))\ntensor([0.])",
)
sinc = _unary(
    "sinc",
    Tensor.sinc,
    "The normalised sinc, ``sin(pi x) / (pi x)``.",
    ">>> nl.special.sinc(nl.tensor([0.]))\ntensor([1.])",
)
round = _unary(
    "round",
    Tensor.round,
    "Rounded half to even.",
    ">>> nl.special.round(nl.tensor([2.5]))\ntensor([2.])",
)
i0 = _unary(
    "i0",
    lambda x: _ew.BesselI0.apply(x),
    "The modified Bessel function of the first kind, order 0.",
    ">>> nl.special.i0(nl.tensor([0.]))\ntensor([1.])",
)
i1 = _unary(
    "i1",
    lambda x: _ew.BesselI1.apply(x),
    "The modified Bessel function of the first kind, order 1.",
    ">>> nl.special.i1(nl.tensor([0.]))\ntensor([0.])",
)
i0e = _unary(
    "i0e",
    lambda x: i0(x) * (-x.abs()).exp(),
    "``i0`` scaled by ``exp(-|x|)``.",
    ">>> nl.special.i0e(nl.tensor([0.]))\ntensor([1.])",
)
i1e = _unary(
    "i1e",
    lambda x: i1(x) * (-x.abs()).exp(),
    "``i1`` scaled by ``exp(-|x|)``.",
    ">>> nl.special.i1e(nl.tensor([0.]))\ntensor([0.])",
)
ndtr = _unary(
    "ndtr",
    lambda x: ((x / _SQRT2).erf() + 1) * 0.5,
    "The standard normal distribution function.",
    ">>> nl.special.ndtr(nl.tensor([0.]))\ntensor([0.5000])",
)
ndtri = _unary(
    "ndtri",
    lambda p: _ew.Ndtri.apply(p),
    "The inverse of ``ndtr``.",
    ">>> nl.special.ndtri(nl.tensor([0.5]))\ntensor([0.])",
)
log_ndtr = _unary(
    "log_ndtr",
    lambda x: ((-x / _SQRT2).erfc() * 0.5).log(),
    "``log(ndtr(x))``.",
    ">>> nl.special.log_ndtr(nl.tensor([0.]))\ntensor([-0.6931])",
)
erfcx = _unary(
    "erfcx",
    lambda x: (x * x).exp() * x.erfc(),
    "The scaled complementary error function, ``exp(x**2) * erfc(x)``.",
    ">>> nl.special.erfcx(nl.tensor([0.]))\ntensor([1.])",
)
spherical_bessel_j0 = _unary(
    "spherical_bessel_j0",
    lambda x: (x / math.pi).sinc(),
    "The spherical Bessel function of the first kind, order 0: ``sin(x) / x``.",
    ">>> nl.special.spherical_bessel_j0(nl.tensor([0.]))\ntensor([1.])",
)


def entr(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``-x * log(x)``: 0 at 0 and ``-inf`` below 0.

    Args:
        input (Tensor): the input.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.entr(nl.tensor([0., 0.5]))
        tensor([0.0000, 0.3466])
    """
    data = input._data
    safe = input.masked_fill(data <= 0, 1.0)
    result = (-safe * safe.log()).masked_fill(data < 0, -math.inf).masked_fill(data == 0, 0.0)
    return _finish("entr", result, out, (input,))


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The ``n``-th derivative of the digamma function.

    Args:
        n (int): the order.
        input (Tensor): the input.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.polygamma(1, nl.tensor([1.]))
        tensor([1.6449])
    """
    return _finish("polygamma", input.polygamma(n), out, (input,))


def multigammaln(input: Tensor, p: int, *, out: Tensor | None = None) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``.

    Args:
        input (Tensor): the input (every element above ``(p - 1) / 2``).
        p (int): the dimension.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.multigammaln(nl.tensor([2.]), 1)
        tensor([0.])
    """
    if (input._data <= (p - 1) / 2).any():
        raise RuntimeError(f"All elements must be greater than (p-1)/2, but got {(p - 1) / 2}")
    terms = sum(((input - j / 2).lgamma() for j in range(p)), input * 0)
    result = terms + p * (p - 1) / 4 * math.log(math.pi)
    return _finish("multigammaln", result, out, (input,))


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """``log(x / (1 - x))``, with ``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.

    Args:
        input (Tensor): probabilities.
        eps (float, optional): the clamp margin.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the log-odds.

    Examples:
        >>> nl.special.logit(nl.tensor([0.5]))
        tensor([0.])
    """
    return _finish("logit", input.logit(eps), out, (input,))


def xlogy(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * log(other)``, 0 where ``input`` is 0.

    Args:
        input (Tensor or number): the factor.
        other (Tensor or number): the argument of the log.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.xlogy(nl.tensor([0., 2.]), nl.tensor([0., 1.]))
        tensor([0., 0.])
    """
    x = input if isinstance(input, Tensor) else _op.make_tensor(np.asarray(input, np.float32))
    return _finish("xlogy", x.xlogy(other), out, (input, other))


def xlog1py(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * log1p(other)``, 0 where ``input`` is 0.

    Args:
        input (Tensor or number): the factor.
        other (Tensor or number): the argument of ``log1p``.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.xlog1py(nl.tensor([0., 2.]), nl.tensor([-1., 0.]))
        tensor([0., 0.])
    """
    x = input if isinstance(input, Tensor) else _op.make_tensor(np.asarray(input, np.float32))
    zero = x._data == 0
    y = other if isinstance(other, Tensor) else _op.make_tensor(np.asarray(other, x._data.dtype))
    safe = y.masked_fill(zero, 0.0)
    result = (x * safe.log1p()).masked_fill(zero & ~np.isnan(y._data), 0.0)
    return _finish("xlog1py", result, out, (input, other))


def softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``.

    Args:
        input (Tensor): the input.
        dim (int): the dimension.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the probabilities.

    Examples:
        >>> nl.special.softmax(nl.tensor([0., 0.]), 0)
        tensor([0.5000, 0.5000])
    """
    return (input if dtype is None else input.to(dtype)).softmax(dim)


def log_softmax(input: Tensor, dim: int, *, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` along ``dim``, computed stably.

    Args:
        input (Tensor): the input.
        dim (int): the dimension.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the log-probabilities.

    Examples:
        >>> nl.special.log_softmax(nl.tensor([0., 0.]), 0)
        tensor([-0.6931, -0.6931])
    """
    return (input if dtype is None else input.to(dtype)).log_softmax(dim)


def logsumexp(
    input: Tensor, dim: Any, keepdim: bool = False, *, out: Tensor | None = None
) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, computed stably.

    Args:
        input (Tensor): the input.
        dim (int or tuple of ints): the dimensions.
        keepdim (bool): keep them with size 1. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.special.logsumexp(nl.tensor([0., 0.]), 0)
        tensor(0.6931)
    """
    return _finish("logsumexp", input.logsumexp(dim, keepdim), out, (input,))


def _polynomial(name: str, first: Any, step: Any, shifted: bool, summary: str, example: str) -> Any:
    """An orthogonal polynomial from its recurrence ``p[k+1] = step(k, x, p[k], p[k-1])``."""

    def fn(input: Any, n: Any, *, out: Tensor | None = None) -> Tensor:
        x = np.asarray(input._data if isinstance(input, Tensor) else input)
        if x.dtype.kind not in "f":
            x = x.astype(np.float32)
        order = np.asarray(n._data if isinstance(n, Tensor) else n)
        if shifted:
            x = 2 * x - 1
        highest = int(order.max()) if order.size else 0
        previous, current = np.ones_like(x), first(x)
        values = [previous, current]
        for k in range(1, highest):
            previous, current = current, step(k, x, current, previous)
            values.append(current)
        shape = np.broadcast_shapes(x.shape, order.shape)
        picked = np.zeros(shape, dtype=x.dtype)
        for k in range(highest + 1):
            picked = np.where(order == k, values[k] if k < len(values) else 0, picked)
        result = _op.make_tensor(picked.astype(x.dtype))
        return _finish(name, result, out, (input,))

    fn.__name__ = name
    fn.__doc__ = (
        f"{summary} of degree ``n`` (zero for negative ``n``), evaluated by its recurrence; "
        "not differentiable, as in PyTorch.\n\nArgs:\n    input (Tensor): the points.\n"
        "    n (int or Tensor): the degree.\n    out (Tensor, optional): a tensor to write the "
        "result into.\n\nReturns:\n    Tensor: the values.\n\nExamples:\n"
        f"    {example}\n"
    )
    return fn


def _chebyshev(k: int, x: Any, p: Any, q: Any) -> Any:
    return 2 * x * p - q


def _define_chebyshev(kind: str, first: Any, shifted: bool) -> Any:
    prefix = "shifted_" if shifted else ""
    name = f"{prefix}chebyshev_polynomial_{kind}"
    value = {"t": "0.5000", "u": "1.", "v": "0.", "w": "2."}[kind]
    point = "0.75" if shifted else "0.5"
    return _polynomial(
        name,
        first,
        _chebyshev,
        shifted,
        f"The {'shifted ' if shifted else ''}Chebyshev polynomial of the {kind.upper()} kind",
        f">>> nl.special.{name}(nl.tensor([{point}]), 1)\n    tensor([{value}])",
    )


chebyshev_polynomial_t = _define_chebyshev("t", lambda x: x, False)
chebyshev_polynomial_u = _define_chebyshev("u", lambda x: 2 * x, False)
chebyshev_polynomial_v = _define_chebyshev("v", lambda x: 2 * x - 1, False)
chebyshev_polynomial_w = _define_chebyshev("w", lambda x: 2 * x + 1, False)
shifted_chebyshev_polynomial_t = _define_chebyshev("t", lambda x: x, True)
shifted_chebyshev_polynomial_u = _define_chebyshev("u", lambda x: 2 * x, True)
shifted_chebyshev_polynomial_v = _define_chebyshev("v", lambda x: 2 * x - 1, True)
shifted_chebyshev_polynomial_w = _define_chebyshev("w", lambda x: 2 * x + 1, True)
hermite_polynomial_h = _polynomial(
    "hermite_polynomial_h",
    lambda x: 2 * x,
    lambda k, x, p, q: 2 * x * p - 2 * k * q,
    False,
    "The physicists' Hermite polynomial",
    ">>> nl.special.hermite_polynomial_h(nl.tensor([1.]), 2)\n    tensor([2.])",
)
hermite_polynomial_he = _polynomial(
    "hermite_polynomial_he",
    lambda x: x,
    lambda k, x, p, q: x * p - k * q,
    False,
    "The probabilists' Hermite polynomial",
    ">>> nl.special.hermite_polynomial_he(nl.tensor([1.]), 2)\n    tensor([0.])",
)
laguerre_polynomial_l = _polynomial(
    "laguerre_polynomial_l",
    lambda x: 1 - x,
    lambda k, x, p, q: ((2 * k + 1 - x) * p - k * q) / (k + 1),
    False,
    "The Laguerre polynomial",
    ">>> nl.special.laguerre_polynomial_l(nl.tensor([0.]), 3)\n    tensor([1.])",
)
legendre_polynomial_p = _polynomial(
    "legendre_polynomial_p",
    lambda x: x,
    lambda k, x, p, q: ((2 * k + 1) * x * p - k * q) / (k + 1),
    False,
    "The Legendre polynomial",
    ">>> nl.special.legendre_polynomial_p(nl.tensor([1.]), 3)\n    tensor([1.])",
)


# ------------------------------------------------------- Bessel, Airy, incomplete gamma and zeta
def _without_gradient(kernel: str, compute: Any) -> Any:
    """``compute`` (float64 arrays) as a function of a Tensor with PyTorch's dtype rules: floats
    keep their type, integers and bools give the default float, float16 is refused; the result
    carries no gradient, as in PyTorch, where these functions have no derivative."""

    def fn(input: Tensor) -> Tensor:
        data = np.asarray(input._data)
        if data.dtype == np.float16:
            raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for 'Half'")
        dtype = data.dtype if data.dtype.kind == "f" else default_float()
        with np.errstate(all="ignore"):
            return _op.make_tensor(np.asarray(compute(data), dtype=dtype))

    return fn


def _modified_bessel_i(order: int) -> Any:
    def compute(a: np.ndarray) -> np.ndarray:
        values = bessel_i_array(order, a.astype(np.float64))
        return np.where(np.isinf(a), np.nan, values)  # PyTorch's value at the infinities

    return compute


airy_ai = _unary(
    "airy_ai",
    _without_gradient("airy_ai", _bessel.airy_ai),
    "The Airy function ``Ai``; carries no gradient, as in PyTorch.",
    ">>> nl.special.airy_ai(nl.tensor([0.]))\ntensor([0.3550])",
)
bessel_j0 = _unary(
    "bessel_j0",
    _without_gradient("bessel_j0", lambda a: _bessel.bessel_j(0, a)),
    "The Bessel function of the first kind, order 0; carries no gradient, as in PyTorch.",
    ">>> nl.special.bessel_j0(nl.tensor([0.]))\ntensor([1.])",
)
bessel_j1 = _unary(
    "bessel_j1",
    _without_gradient("bessel_j1", lambda a: _bessel.bessel_j(1, a)),
    "The Bessel function of the first kind, order 1; carries no gradient, as in PyTorch.",
    ">>> nl.special.bessel_j1(nl.tensor([1.]))\ntensor([0.4401])",
)
bessel_y0 = _unary(
    "bessel_y0",
    _without_gradient("bessel_y0", lambda a: _bessel.bessel_y(0, a)),
    "The Bessel function of the second kind, order 0 (``nan`` below 0); no gradient, as in "
    "PyTorch.",
    ">>> nl.special.bessel_y0(nl.tensor([1.]))\ntensor([0.0883])",
)
bessel_y1 = _unary(
    "bessel_y1",
    _without_gradient("bessel_y1", lambda a: _bessel.bessel_y(1, a)),
    "The Bessel function of the second kind, order 1 (``nan`` below 0); no gradient, as in "
    "PyTorch.",
    ">>> nl.special.bessel_y1(nl.tensor([1.]))\ntensor([-0.7812])",
)
modified_bessel_i0 = _unary(
    "modified_bessel_i0",
    _without_gradient("modified_bessel_i0", _modified_bessel_i(0)),
    "The modified Bessel function of the first kind, order 0 (``i0`` without its gradient, as "
    "PyTorch's).",
    ">>> nl.special.modified_bessel_i0(nl.tensor([0.]))\ntensor([1.])",
)
modified_bessel_i1 = _unary(
    "modified_bessel_i1",
    _without_gradient("modified_bessel_i1", _modified_bessel_i(1)),
    "The modified Bessel function of the first kind, order 1 (``i1`` without its gradient, as "
    "PyTorch's).",
    ">>> nl.special.modified_bessel_i1(nl.tensor([1.]))\ntensor([0.5652])",
)
modified_bessel_k0 = _unary(
    "modified_bessel_k0",
    _without_gradient("modified_bessel_k0", lambda a: _bessel.modified_bessel_k(0, a, False)),
    "The modified Bessel function of the second kind, order 0 (``nan`` below 0); no gradient, "
    "as in PyTorch.",
    ">>> nl.special.modified_bessel_k0(nl.tensor([1.]))\ntensor([0.4210])",
)
modified_bessel_k1 = _unary(
    "modified_bessel_k1",
    _without_gradient("modified_bessel_k1", lambda a: _bessel.modified_bessel_k(1, a, False)),
    "The modified Bessel function of the second kind, order 1 (``nan`` below 0); no gradient, "
    "as in PyTorch.",
    ">>> nl.special.modified_bessel_k1(nl.tensor([1.]))\ntensor([0.6019])",
)
scaled_modified_bessel_k0 = _unary(
    "scaled_modified_bessel_k0",
    _without_gradient("scaled_modified_bessel_k0", lambda a: _bessel.modified_bessel_k(0, a, True)),
    "``exp(x) * modified_bessel_k0(x)``, without overflow for large ``x``; no gradient, as in "
    "PyTorch.",
    ">>> nl.special.scaled_modified_bessel_k0(nl.tensor([1.]))\ntensor([1.1445])",
)
scaled_modified_bessel_k1 = _unary(
    "scaled_modified_bessel_k1",
    _without_gradient("scaled_modified_bessel_k1", lambda a: _bessel.modified_bessel_k(1, a, True)),
    "``exp(x) * modified_bessel_k1(x)``, without overflow for large ``x``; no gradient, as in "
    "PyTorch.",
    ">>> nl.special.scaled_modified_bessel_k1(nl.tensor([1.]))\ntensor([1.6362])",
)


# what Tensor's methods call by name (autograd/providers.py explains why)
provide("special", {name: globals()[name] for name in __all__})
