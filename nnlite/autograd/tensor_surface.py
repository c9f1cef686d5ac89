# mypy: disable-error-code="arg-type"
# (the mixins' ``self`` is a Tensor, which mypy cannot see, and index arrays go straight to
# ``scatter`` and ``where``, which read arrays as they read Tensors)
"""More of PyTorch's Tensor methods: pointwise math near zero, inverse and hyperbolic trigonometry,
the gamma family, rounding, running products and extremes, order statistics, NaN-aware reductions,
diagonals, products of vectors and matrices, unique values, windows and splits.

A third mixin of ``Tensor``. The pointwise functions are ops of ``ops/elementwise.py``; the rest
are composites of existing ops (indexing, ``gather``, ``where``, ``matmul``), so their gradients need
no code. ``SURFACE_FUNCTION_NAMES`` also exist as ``nl.name(input, ...)``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, overload

import numpy as np

from . import op as _op
from . import return_types
from .grad_mode import is_grad_enabled
from .ops import elementwise as ew
from .providers import implementation
from .sizes import wrap_dim
from .view_inplace import mark_multi_output

if TYPE_CHECKING:
    from .._typing import DTypeLike, TensorOrScalar, _dims
    from .op import Op
    from .tensor import Tensor
    from .tensor_functions import TensorFunctions

    class _Base(TensorFunctions):
        """The other mixins' methods, and what these methods use of ``Tensor``'s own."""

        @property
        def ndim(self) -> int: ...
        @property
        def requires_grad(self) -> bool: ...
        def numel(self) -> int: ...
        def is_floating_point(self) -> bool: ...
        def detach(self) -> Tensor: ...
        def double(self) -> Tensor: ...
        def long(self) -> Tensor: ...
else:
    _Base = object

__all__ = ["TensorSurface", "SURFACE_FUNCTION_NAMES", "polygamma", "tensordot"]

_F = TypeVar("_F", bound=Callable[..., Any])
_Pair = TypeVar("_Pair", bound=return_types._ValuesIndices)
_Self = TypeVar("_Self", bound="TensorSurface")


def _doc(summary: str, args: Sequence[str], returns: str, example: str) -> Callable[[_F], _F]:
    """Attach a docstring in PyTorch's shape (kept short: one line per argument)."""
    text = summary + "\n\nArgs:\n" + "".join(f"    {a}\n" for a in args) if args else summary + "\n"
    text += f"\nReturns:\n    {returns}\n\nExamples:\n"
    text += "".join(f"    {line}\n" for line in example.strip().splitlines())

    def attach(fn: _F) -> _F:
        fn.__doc__ = text
        return fn

    return attach


def _array(x: Any) -> np.ndarray:
    return x._data if isinstance(x, _op.Tensor) else np.asarray(x)


def _make(a: Any) -> Tensor:
    return _op.make_tensor(np.asarray(a))


def _last(x: Tensor, dim: int) -> Tensor:
    return x.movedim(dim, -1)


_DIM = "dim (int): the dimension."
_KEEPDIM = "keepdim (bool): keep the reduced dimension with size 1. Default: False."


def _pointwise(op_class: type[Op], name: str, example: str) -> Callable[[TensorSurface], Tensor]:
    def method(self: TensorSurface) -> Tensor:
        return op_class.apply(self)

    method.__name__ = name
    return _doc(f"``{name}`` of each element.", [], "Tensor: the result.", example)(method)


def _inplace(name: str) -> Callable[..., Tensor]:
    """``name_``: the result of ``name`` written into this tensor (its history rebased)."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        self._check_inplace()
        # as PyTorch, the op keeps the values it reads in backward: run it on a copy of this
        # tensor, which the write below leaves untouched
        source = self.clone() if self._requires_grad else self
        result: Tensor = getattr(source, name)(*args, **kwargs)
        if result._grad_fn is not None:
            from .ops import CopyFrom

            return self._inplace(CopyFrom, result)
        return self._array_inplace(lambda a: np.copyto(a, result._data, casting="unsafe"))

    method.__name__ = name + "_"
    args = _INPLACE_EXAMPLE_ARGS.get(name, "")
    example = (
        f">>> x = nl.tensor([0.5])\n    >>> x.{name}_({args}) is x\n    True"
        if args is not None
        else f">>> callable(nl.Tensor.{name}_)\n    True"
    )
    method.__doc__ = (
        f"In-place ``{name}``: writes the result into this tensor (not allowed on a leaf that "
        f"requires grad).\n\nArgs:\n    *args: as ``{name}``.\n\nReturns:\n    Tensor: this tensor."
        f"\n\nExamples:\n    {example}\n"
    )
    return method


# the arguments of the in-place methods' examples (None: shown without a call)
_INPLACE_EXAMPLE_ARGS: dict[str, str | None] = {
    **dict.fromkeys(["clamp_min", "clamp_max", "xlogy", "hypot", "atan2", "arctan2"], "1."),
    **dict.fromkeys(["eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal"], "0.5"),
    **dict.fromkeys(["less", "less_equal", "not_equal", "multiply", "subtract", "divide"], "2."),
    **dict.fromkeys(["true_divide", "floor_divide", "float_power"], "2."),
    **dict.fromkeys(["cumprod", "cumsum"], "0"),
    **dict.fromkeys(["logical_and", "logical_or", "logical_xor"], "nl.tensor([1.])"),
    **dict.fromkeys(["addcmul", "addcdiv"], "nl.tensor([1.]), nl.tensor([2.])"),
    **dict.fromkeys(["addmm", "addmv", "addr", "addbmm", "index_add", "index_copy"], None),
    **dict.fromkeys(["index_fill", "masked_scatter", "tril", "triu", "bitwise_not"], None),
    **dict.fromkeys(
        ["scatter_reduce", "index_put", "put", "renorm", "gcd", "lcm", "ldexp", "copysign"], None
    ),
    **dict.fromkeys(
        ["nextafter", "mvlgamma", "bitwise_left_shift", "bitwise_right_shift", "heaviside"], None
    ),
    "clip": "0., 1.",
    "lerp": "nl.tensor([1.]), 0.5",
    "polygamma": "1",
    "swapaxes": "0, 0",
    "swapdims": "0, 0",
}


_INPLACE = [
    "log1p", "expm1", "exp2", "log2", "log10", "tan", "asin", "arcsin", "acos", "arccos", "atan",
    "arctan", "sinh", "cosh", "asinh", "arcsinh", "atanh", "arctanh", "erfc", "erfinv", "lgamma",
    "digamma", "floor", "ceil", "trunc", "fix", "round", "frac", "logit", "sinc", "deg2rad",
    "rad2deg", "clamp_min", "clamp_max", "cumprod", "xlogy", "hypot", "atan2", "arctan2", "lerp",
    "float_power", "addmm", "addmv", "addr", "addbmm", "addcmul", "addcdiv", "index_add",
    "index_copy", "index_fill", "masked_scatter", "swapaxes", "swapdims", "logical_and",
    "logical_or", "logical_xor", "bitwise_not", "polygamma", "nan_to_num", "sin", "cos", "erf",
    "square", "reciprocal", "rsqrt", "sign", "tril", "triu", "clip", "square", "cumsum",
    "multiply", "subtract", "divide", "true_divide", "floor_divide", "negative", "absolute",
    "greater", "greater_equal", "less", "less_equal", "not_equal", "eq", "ne", "lt", "le",
    "gt", "ge", "acosh", "arccosh",
]  # fmt: skip


class TensorSurface(_Base):
    """Mixin of ``Tensor``: see the module docstring."""

    __slots__ = ()

    @_doc(
        "Negation (``neg``).",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([1.]).negative()\ntensor([-1.])",
    )
    def negative(self) -> Tensor:
        return -self

    @_doc(
        "Absolute values (``abs``).",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([-1.]).absolute()\ntensor([1.])",
    )
    def absolute(self) -> Tensor:
        return self.abs()

    @_doc(
        "``self * other`` (``mul``).",
        ["other (Tensor or number): the factor."],
        "Tensor: the result.",
        ">>> nl.tensor([2.]).multiply(3)\ntensor([6.])",
    )
    def multiply(self, other: TensorOrScalar) -> Tensor:
        return self * other

    @_doc(
        "``self - alpha * other`` (``sub``).",
        ["other (Tensor or number): subtracted.", "alpha (number): Default: 1."],
        "Tensor: the result.",
        ">>> nl.tensor([2.]).subtract(3)\ntensor([-1.])",
    )
    def subtract(self, other: TensorOrScalar, *, alpha: float = 1) -> Tensor:
        return self.sub(other, alpha=alpha)

    @_doc(
        "``self > other`` (``gt``).",
        ["other (Tensor or number): the other."],
        "Tensor: bool.",
        ">>> nl.tensor([2.]).greater(1)\ntensor([True])",
    )
    def greater(self, other: TensorOrScalar) -> Tensor:
        return self.gt(other)

    @_doc(
        "``self >= other`` (``ge``).",
        ["other (Tensor or number): the other."],
        "Tensor: bool.",
        ">>> nl.tensor([2.]).greater_equal(2)\ntensor([True])",
    )
    def greater_equal(self, other: TensorOrScalar) -> Tensor:
        return self.ge(other)

    @_doc(
        "``self < other`` (``lt``).",
        ["other (Tensor or number): the other."],
        "Tensor: bool.",
        ">>> nl.tensor([2.]).less(1)\ntensor([False])",
    )
    def less(self, other: TensorOrScalar) -> Tensor:
        return self.lt(other)

    @_doc(
        "``self <= other`` (``le``).",
        ["other (Tensor or number): the other."],
        "Tensor: bool.",
        ">>> nl.tensor([2.]).less_equal(2)\ntensor([True])",
    )
    def less_equal(self, other: TensorOrScalar) -> Tensor:
        return self.le(other)

    @_doc(
        "``self != other`` (``ne``).",
        ["other (Tensor or number): the other."],
        "Tensor: bool.",
        ">>> nl.tensor([2.]).not_equal(2)\ntensor([False])",
    )
    def not_equal(self, other: TensorOrScalar) -> Tensor:
        return self.ne(other)

    @_doc(
        "The conjugate transpose of a matrix (the transpose for real tensors).",
        [],
        "Tensor: a view.",
        ">>> nl.zeros(2, 3).H.shape\nnnlite.Size([3, 2])",
    )
    def _conj_t(self: _Self) -> _Self | Tensor:
        return self.t()

    @_doc(
        "The matrices' conjugate transposes (the transposes for real tensors).",
        [],
        "Tensor: a view.",
        ">>> nl.zeros(4, 2, 3).mH.shape\nnnlite.Size([4, 3, 2])",
    )
    def _conj_mt(self: _Self) -> _Self | Tensor:
        return self.transpose(-2, -1)

    if TYPE_CHECKING:

        @property
        def H(self) -> Tensor: ...
        @property
        def mH(self) -> Tensor: ...
    else:
        H = property(_conj_t)
        mH = property(_conj_mt)

    # ------------------------------------------------------------------ pointwise
    log1p = _pointwise(
        ew.Log1p, "log1p", ">>> nl.tensor([0., 1e-8]).log1p()\ntensor([0.0000e+00, 1.0000e-08])"
    )
    expm1 = _pointwise(ew.Expm1, "expm1", ">>> nl.tensor([0.]).expm1()\ntensor([0.])")
    exp2 = _pointwise(ew.Exp2, "exp2", ">>> nl.tensor([3.]).exp2()\ntensor([8.])")
    log2 = _pointwise(ew.Log2, "log2", ">>> nl.tensor([8.]).log2()\ntensor([3.])")
    log10 = _pointwise(ew.Log10, "log10", ">>> nl.tensor([1.]).log10()\ntensor([0.])")
    tan = _pointwise(ew.Tan, "tan", ">>> nl.tensor([0.]).tan()\ntensor([0.])")
    asin = arcsin = _pointwise(ew.Asin, "asin", ">>> nl.tensor([1.]).asin()\ntensor([1.5708])")
    acos = arccos = _pointwise(ew.Acos, "acos", ">>> nl.tensor([1.]).acos()\ntensor([0.])")
    atan = arctan = _pointwise(ew.Atan, "atan", ">>> nl.tensor([1.]).atan()\ntensor([0.7854])")
    sinh = _pointwise(ew.Sinh, "sinh", ">>> nl.tensor([0.]).sinh()\ntensor([0.])")
    cosh = _pointwise(ew.Cosh, "cosh", ">>> nl.tensor([0.]).cosh()\ntensor([1.])")
    asinh = arcsinh = _pointwise(ew.Asinh, "asinh", ">>> nl.tensor([0.]).asinh()\ntensor([0.])")
    acosh = arccosh = _pointwise(ew.Acosh, "acosh", ">>> nl.tensor([1.]).acosh()\ntensor([0.])")
    atanh = arctanh = _pointwise(ew.Atanh, "atanh", ">>> nl.tensor([0.]).atanh()\ntensor([0.])")
    erfc = _pointwise(ew.Erfc, "erfc", ">>> nl.tensor([0.]).erfc()\ntensor([1.])")
    erfinv = _pointwise(ew.Erfinv, "erfinv", ">>> nl.tensor([0.]).erfinv()\ntensor([0.])")
    lgamma = _pointwise(ew.Lgamma, "lgamma", ">>> nl.tensor([3.]).lgamma()\ntensor([0.6931])")
    digamma = _pointwise(
        ew.Polygamma, "digamma", ">>> nl.tensor([1.]).digamma()\ntensor([-0.5772])"
    )
    floor = _pointwise(ew.Floor, "floor", ">>> nl.tensor([-1.5, 1.5]).floor()\ntensor([-2.,  1.])")
    ceil = _pointwise(ew.Ceil, "ceil", ">>> nl.tensor([-1.5, 1.5]).ceil()\ntensor([-1.,  2.])")
    trunc = fix = _pointwise(
        ew.Trunc, "trunc", ">>> nl.tensor([-1.5, 1.5]).trunc()\ntensor([-1.,  1.])"
    )

    @_doc(
        "The ``n``-th derivative of the digamma function at each element.",
        ["n (int): the order, 0 or more."],
        "Tensor: the result.",
        ">>> nl.tensor([1.]).polygamma(1)\ntensor([1.6449])",
    )
    def polygamma(self, n: int) -> Tensor:
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        return ew.Polygamma.apply(self, n=int(n))

    @_doc(
        "Each element rounded half to even, to ``decimals`` places.",
        ["decimals (int): places after the point (negative: before). Default: 0."],
        "Tensor: the result.",
        ">>> nl.tensor([0.5, 1.5, 1.26]).round(decimals=1)\ntensor([0.5000, 1.5000, 1.3000])",
    )
    def round(self, decimals: int = 0) -> Tensor:
        return ew.Round.apply(self, decimals=int(decimals))

    @_doc(
        "The fractional part, ``self - self.trunc()``.",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([-1.25, 2.5]).frac()\ntensor([-0.2500,  0.5000])",
    )
    def frac(self) -> Tensor:
        return self - self.trunc()

    @_doc(
        "The angle of the point ``(other, self)``, elementwise, in ``(-pi, pi]``.",
        ["other (Tensor or number): the x coordinates."],
        "Tensor: the angles.",
        ">>> nl.tensor([1.]).atan2(nl.tensor([1.]))\ntensor([0.7854])",
    )
    def atan2(self, other: TensorOrScalar) -> Tensor:
        return ew.Atan2.apply(self, other)

    arctan2 = atan2

    @_doc(
        "``sqrt(self**2 + other**2)``, elementwise.",
        ["other (Tensor): the other leg."],
        "Tensor: the hypotenuses.",
        ">>> nl.tensor([3.]).hypot(nl.tensor([4.]))\ntensor([5.])",
    )
    def hypot(self, other: TensorOrScalar) -> Tensor:
        return (self * self + other * other).sqrt()

    @_doc(
        "``log(exp(self) + exp(other))`` without overflow.",
        ["other (Tensor): the other operand."],
        "Tensor: the result.",
        ">>> nl.tensor([0.]).logaddexp(nl.tensor([0.]))\ntensor([0.6931])",
    )
    def logaddexp(self, other: Tensor) -> Tensor:
        top = self.maximum(other).detach()
        top = top.masked_fill(~top.isfinite(), 0.0)
        return top + ((self - top).exp() + (other - top).exp()).log()

    @_doc(
        "``log2(2**self + 2**other)`` without overflow.",
        ["other (Tensor): the other operand."],
        "Tensor: the result.",
        ">>> nl.tensor([1.]).logaddexp2(nl.tensor([1.]))\ntensor([2.])",
    )
    def logaddexp2(self, other: Tensor) -> Tensor:
        return self.mul(math.log(2)).logaddexp(other * math.log(2)) / math.log(2)

    @_doc(
        "``self * log(other)``, 0 where ``self`` is 0.",
        ["other (Tensor or number): the argument of the log."],
        "Tensor: the result.",
        ">>> nl.tensor([0., 2.]).xlogy(nl.tensor([0., 1.]))\ntensor([0., 0.])",
    )
    def xlogy(self, other: TensorOrScalar) -> Tensor:
        zero = _array(self) == 0
        safe = other.masked_fill(zero, 1.0) if isinstance(other, _op.Tensor) else other
        return (
            self * safe.log() if isinstance(safe, _op.Tensor) else self * math.log(safe)
        ).masked_fill(zero & ~np.isnan(_array(other)), 0.0)

    @_doc(
        "``log(self / (1 - self))``, with ``self`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given.",
        ["eps (float, optional): the clamp margin."],
        "Tensor: the log-odds.",
        ">>> nl.tensor([0.5]).logit()\ntensor([0.])",
    )
    def logit(self, eps: float | None = None) -> Tensor:
        x = self if eps is None else self.clamp(eps, 1 - eps)
        return (x / (1 - x)).log()

    @_doc(
        "``sin(pi * self) / (pi * self)``, 1 at 0.",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([0., 0.5]).sinc()\ntensor([1.0000, 0.6366])",
    )
    def sinc(self) -> Tensor:
        zero = _array(self) == 0
        x = self.masked_fill(zero, 1.0) * math.pi
        return (x.sin() / x).masked_fill(zero, 1.0)

    @_doc(
        "Degrees to radians.",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([180.]).deg2rad()\ntensor([3.1416])",
    )
    def deg2rad(self) -> Tensor:
        return self * (math.pi / 180)

    @_doc(
        "Radians to degrees.",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([3.14159265]).rad2deg()\ntensor([180.])",
    )
    def rad2deg(self) -> Tensor:
        return self * (180 / math.pi)

    @_doc(
        "``self + weight * (end - self)``.",
        ["end (Tensor): the end points.", "weight (float or Tensor): the interpolation weight."],
        "Tensor: the interpolated values.",
        ">>> nl.tensor([0.]).lerp(nl.tensor([10.]), 0.25)\ntensor([2.5000])",
    )
    def lerp(self, end: Tensor, weight: TensorOrScalar) -> Tensor:
        return self + weight * (end - self)

    @_doc(
        "``clamp(min=min)``.",
        ["min (number or Tensor): the lower bound."],
        "Tensor: the result.",
        ">>> nl.tensor([-1., 1.]).clamp_min(0.)\ntensor([0., 1.])",
    )
    def clamp_min(self, min: TensorOrScalar) -> Tensor:
        return self.clamp(min=min)

    @_doc(
        "``clamp(max=max)``.",
        ["max (number or Tensor): the upper bound."],
        "Tensor: the result.",
        ">>> nl.tensor([-1., 1.]).clamp_max(0.)\ntensor([-1.,  0.])",
    )
    def clamp_max(self, max: TensorOrScalar) -> Tensor:
        return self.clamp(max=max)

    @_doc(
        "``self ** exponent`` computed in float64.",
        ["exponent (Tensor or number): the exponent."],
        "Tensor: a float64 result.",
        ">>> nl.tensor([2]).float_power(2)\ntensor([4.], dtype=nnlite.float64)",
    )
    def float_power(self, exponent: TensorOrScalar) -> Tensor:
        e = exponent.double() if isinstance(exponent, _op.Tensor) else exponent
        return self.double() ** e

    # ------------------------------------------------------------------ running products, extremes
    @_doc(
        "Cumulative product along ``dim``.",
        [_DIM, "dtype (nl.dtype, optional): compute and return in this type."],
        "Tensor: the running products.",
        ">>> nl.tensor([1., 2., 3.]).cumprod(0)\ntensor([1., 2., 6.])",
    )
    def cumprod(self, dim: int, dtype: DTypeLike | None = None) -> Tensor:
        x = self if dtype is None else self.to(dtype)
        dim = wrap_dim(dim, x.ndim)
        if x.ndim == 0:
            return x.clone()
        # out[j] = prod_{k <= j} x[k]: the product over a lower-triangular selection, where the
        # excluded factors are 1; differentiable with zeros anywhere
        n = x.shape[dim]
        last = _last(x, dim)
        keep = np.tril(np.ones((n, n), dtype=bool))  # keep[j, k]: k <= j
        rows = last.unsqueeze(-2).expand(*last.shape[:-1], n, n)
        out = rows.masked_fill(~keep, 1.0)
        return _product_last(out).movedim(-1, dim)

    @_doc(
        "The product of the elements (over ``dim`` when given).",
        [
            "dim (int, optional): the dimension.",
            _KEEPDIM,
            "dtype (nl.dtype, optional): compute in this type.",
        ],
        "Tensor: the product.",
        ">>> nl.tensor([[1., 2.], [3., 4.]]).prod(1)\ntensor([ 2., 12.])",
    )
    def prod(
        self, dim: int | None = None, keepdim: bool = False, dtype: DTypeLike | None = None
    ) -> Tensor:
        x = self if dtype is None else self.to(dtype)
        if dtype is None and x._data.dtype.kind in "biu":
            x = x.long()  # as PyTorch: integer and bool products are int64
        if dim is None:
            return _product_last(x.reshape(-1))
        dim = wrap_dim(dim, x.ndim)
        out = _product_last(_last(x, dim)) if x.ndim else x.clone()
        return out.unsqueeze(dim) if keepdim and x.ndim else out

    def _running_extreme(self, dim: int, better: np.ufunc, result: type[_Pair]) -> _Pair:
        dim = wrap_dim(dim, self.ndim)
        data = np.moveaxis(self._data, dim, -1) if self.ndim else self._data.reshape(1)
        idx = np.zeros(data.shape, dtype=np.int64)
        best = data[..., 0].copy() if data.shape[-1] else data[..., :0]
        for j in range(1, data.shape[-1]):
            v = data[..., j]
            take = better(v, best) | np.isnan(v) & ~np.isnan(best)
            take |= np.isnan(best) & np.isnan(v)
            best = np.where(take, v, best)
            idx[..., j] = np.where(take, j, idx[..., j - 1])
        indices = np.moveaxis(idx, -1, dim) if self.ndim else idx.reshape(())
        return result((self.gather(dim, indices) if self.ndim else self.clone(), _make(indices)))

    @_doc(
        "Running maximum along ``dim`` and where each one was found.",
        [_DIM],
        "A named tuple ``(values, indices)``.",
        ">>> nl.tensor([1., 3., 2.]).cummax(0).values\ntensor([1., 3., 3.])",
    )
    def cummax(self, dim: int) -> return_types.cummax:
        return self._running_extreme(dim, np.greater_equal, return_types.cummax)

    @_doc(
        "Running minimum along ``dim`` and where each one was found.",
        [_DIM],
        "A named tuple ``(values, indices)``.",
        ">>> nl.tensor([3., 1., 2.]).cummin(0).values\ntensor([3., 1., 1.])",
    )
    def cummin(self, dim: int) -> return_types.cummin:
        return self._running_extreme(dim, np.less_equal, return_types.cummin)

    @_doc(
        "``log(cumsum(exp(self)))`` along ``dim``, shifted by the maximum to avoid overflow.",
        [_DIM],
        "Tensor: the result.",
        ">>> nl.tensor([0., 0.]).logcumsumexp(0)\ntensor([0.0000, 0.6931])",
    )
    def logcumsumexp(self, dim: int) -> Tensor:
        top = self.detach().amax(dim, keepdim=True) if self.numel() else self.detach()
        top = top.masked_fill(~top.isfinite(), 0.0)
        return (self - top).exp().cumsum(dim).log() + top

    # ------------------------------------------------------------------ order statistics
    @_doc(
        "The ``k``-th smallest element along ``dim`` (1-based) and its index.",
        ["k (int): the rank.", "dim (int): the dimension. Default: -1.", _KEEPDIM],
        "A named tuple ``(values, indices)``.",
        ">>> nl.tensor([3., 1., 2.]).kthvalue(2).values\ntensor(2.)",
    )
    def kthvalue(self, k: int, dim: int = -1, keepdim: bool = False) -> return_types.kthvalue:
        return return_types.kthvalue(self._select_rank(lambda n: k - 1, dim, keepdim, "kthvalue"))

    def _select_rank(
        self, rank: Any, dim: int | None, keepdim: bool, name: str, nan: bool = False
    ) -> tuple[Tensor, Tensor]:
        if dim is None:
            flat = self.reshape(-1)
            values, indices = flat._select_rank(rank, 0, False, name, nan)
            return values, indices
        dim = wrap_dim(dim, self.ndim)
        x = self if self.ndim else self.reshape(1)
        data = x._data
        order = np.argsort(data, axis=dim, kind="stable")
        n = data.shape[dim]
        if nan:
            counts = n - np.isnan(data).sum(axis=dim, keepdims=True)
            r = np.where(counts > 0, (counts - 1) // 2, 0)
        else:
            r = rank(n)
            if not 0 <= r < n:
                raise IndexError(f"{name}(): selected number k out of range for dimension {dim}")
            if np.isnan(data).any():  # a NaN in a slice makes the result NaN, as PyTorch
                r = np.where(np.isnan(data).any(axis=dim, keepdims=True), n - 1, r)
            r = np.broadcast_to(np.asarray(r), order.take([0], axis=dim).shape)
        indices = np.take_along_axis(order, r, axis=dim).astype(np.int64)
        values = x.gather(dim if self.ndim else 0, indices)
        if not keepdim or not self.ndim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
            if not self.ndim:
                values, indices = values.reshape(()), indices.reshape(())
        return values, _make(indices)

    @overload
    def median(self, dim: None = None, keepdim: bool = False) -> Tensor: ...
    @overload
    def median(self, dim: int, keepdim: bool = False) -> return_types.median: ...

    @_doc(
        "The median (the lower of the two middle values), over all elements or along ``dim``.",
        [
            "dim (int, optional): the dimension; with it the result is ``(values, indices)``.",
            _KEEPDIM,
        ],
        "Tensor, or a named tuple ``(values, indices)`` with ``dim``.",
        ">>> nl.tensor([4., 1., 3., 2.]).median()\ntensor(2.)",
    )
    def median(self, dim: int | None = None, keepdim: bool = False) -> Tensor | return_types.median:
        if dim is None:
            return self._select_rank(lambda n: (n - 1) // 2, None, False, "median")[0]
        return return_types.median(
            self._select_rank(lambda n: (n - 1) // 2, dim, keepdim, "median")
        )

    @overload
    def nanmedian(self, dim: None = None, keepdim: bool = False) -> Tensor: ...
    @overload
    def nanmedian(self, dim: int, keepdim: bool = False) -> return_types.median: ...

    @_doc(
        "``median`` ignoring NaN.",
        [
            "dim (int, optional): the dimension; with it the result is ``(values, indices)``.",
            _KEEPDIM,
        ],
        "Tensor, or a named tuple ``(values, indices)`` with ``dim``.",
        ">>> nl.tensor([4., float('nan'), 1.]).nanmedian()\ntensor(1.)",
    )
    def nanmedian(
        self, dim: int | None = None, keepdim: bool = False
    ) -> Tensor | return_types.median:
        if dim is None:
            return self._select_rank(None, None, False, "nanmedian", nan=True)[0]
        return return_types.median(self._select_rank(None, dim, keepdim, "nanmedian", nan=True))

    @_doc(
        "The most frequent value along ``dim`` (the smallest among ties) and an index of it.",
        ["dim (int): the dimension. Default: -1.", _KEEPDIM],
        "A named tuple ``(values, indices)``.",
        ">>> nl.tensor([1., 2., 2., 3.]).mode().values\ntensor(2.)",
    )
    def mode(self, dim: int = -1, keepdim: bool = False) -> return_types.mode:
        dim = wrap_dim(dim, self.ndim)
        x = self if self.ndim else self.reshape(1)
        data = np.moveaxis(x._data, dim, -1)
        flat = data.reshape(-1, data.shape[-1])
        idx = np.empty(flat.shape[0], dtype=np.int64)
        for r, row in enumerate(flat):
            values, counts = np.unique(row, return_counts=True)
            best = values[np.argmax(counts)]
            idx[r] = np.flatnonzero(row == best)[-1]
        indices = np.expand_dims(idx.reshape(data.shape[:-1]), dim)
        values = x.gather(dim, indices)
        if not keepdim:
            values, indices = values.squeeze(dim), indices.squeeze(dim)
        if not self.ndim:
            values, indices = values.reshape(()), indices.reshape(())
        return return_types.mode((values, _make(indices)))

    @_doc(
        "The smallest and largest elements (over ``dim`` when given).",
        ["dim (int, optional): the dimension.", _KEEPDIM],
        "A named tuple ``(min, max)``.",
        ">>> nl.tensor([3., 1., 2.]).aminmax().max\ntensor(3.)",
    )
    def aminmax(self, *, dim: int | None = None, keepdim: bool = False) -> return_types.aminmax:
        if dim is None:
            low, high = self.amin(), self.amax()
            if keepdim:
                low, high = low.reshape((1,) * self.ndim), high.reshape((1,) * self.ndim)
            return return_types.aminmax((low, high))
        return return_types.aminmax((self.amin(dim, keepdim), self.amax(dim, keepdim)))

    # ------------------------------------------------------------------ NaN-aware reductions
    @_doc(
        "The sum, NaN counted as zero.",
        [
            "dim (int or tuple of ints, optional): the dimensions.",
            _KEEPDIM,
            "dtype (nl.dtype, optional): the result type.",
        ],
        "Tensor: the sum.",
        ">>> nl.tensor([1., float('nan'), 2.]).nansum()\ntensor(3.)",
    )
    def nansum(
        self, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
    ) -> Tensor:
        return self.masked_fill(np.isnan(self._data), 0.0).sum(dim, keepdim, dtype=dtype)

    @_doc(
        "The mean of the non-NaN elements.",
        [
            "dim (int or tuple of ints, optional): the dimensions.",
            _KEEPDIM,
            "dtype (nl.dtype, optional): the result type.",
        ],
        "Tensor: the mean.",
        ">>> nl.tensor([1., float('nan'), 2.]).nanmean()\ntensor(1.5000)",
    )
    def nanmean(
        self, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
    ) -> Tensor:
        counts = (~self.isnan()).sum(dim, keepdim)
        return self.nansum(dim, keepdim, dtype) / counts

    @_doc(
        "How many elements are not zero (over ``dim`` when given).",
        ["dim (int or tuple of ints, optional): the dimensions."],
        "Tensor: int64 counts.",
        ">>> nl.tensor([0., 1., 2.]).count_nonzero()\ntensor(2)",
    )
    def count_nonzero(self, dim: _dims = None) -> Tensor:
        axis = dim if dim is None or isinstance(dim, int) else tuple(dim)
        return _make(np.count_nonzero(self._data, axis=axis)).long()

    # ------------------------------------------------------------------ differences, diagonals
    @_doc(
        "The ``n``-th forward difference along ``dim``, after ``prepend``/``append``.",
        [
            "n (int): how many times. Default: 1.",
            "dim (int): the dimension. Default: -1.",
            "prepend (Tensor, optional): values put before.",
            "append (Tensor, optional): values put after.",
        ],
        "Tensor: the differences.",
        ">>> nl.tensor([1., 4., 9.]).diff()\ntensor([3., 5.])",
    )
    def diff(
        self: _Self,
        n: int = 1,
        dim: int = -1,
        prepend: Tensor | None = None,
        append: Tensor | None = None,
    ) -> _Self | Tensor:
        dim = wrap_dim(dim, self.ndim)
        x = self
        if prepend is not None or append is not None:
            parts = [p for p in (prepend, self, append) if p is not None]
            x = implementation("creation.cat")(parts, dim)
        for _ in range(n):
            size = x.shape[dim]
            if size == 0:
                break
            later, earlier = x.narrow(dim, 1, size - 1), x.narrow(dim, 0, size - 1)
            x = later ^ earlier if x._data.dtype == bool else later - earlier
        return x

    @_doc(
        "The diagonal of ``dim1`` and ``dim2`` (``offset`` above it when positive), as the last dimension.",
        [
            "offset (int): which diagonal. Default: 0.",
            "dim1 (int): Default: 0.",
            "dim2 (int): Default: 1.",
        ],
        "Tensor: the diagonal.",
        ">>> nl.tensor([[1., 2.], [3., 4.]]).diagonal()\ntensor([1., 4.])",
    )
    def diagonal(self, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
        d1, d2 = wrap_dim(dim1, self.ndim), wrap_dim(dim2, self.ndim)
        if d1 == d2:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        x = self.movedim((d1, d2), (-2, -1))
        rows, cols = x.shape[-2:]
        start_r, start_c = max(-offset, 0), max(offset, 0)
        n = max(min(rows - start_r, cols - start_c), 0)
        return x[..., np.arange(n) + start_r, np.arange(n) + start_c]

    @_doc(
        "A tensor whose ``dim1``/``dim2`` diagonals (``offset``) are this tensor's last dimension.",
        [
            "offset (int): which diagonal. Default: 0.",
            "dim1 (int): Default: -2.",
            "dim2 (int): Default: -1.",
        ],
        "Tensor: the matrices.",
        ">>> nl.tensor([1., 2.]).diag_embed()\ntensor([[1., 0.],\n        [0., 2.]])",
    )
    def diag_embed(self, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
        n = self.shape[-1]
        m = n + abs(offset)
        pick = np.zeros((n, m * m), dtype=self._data.dtype)
        rows = np.arange(n) + max(-offset, 0)
        cols = np.arange(n) + max(offset, 0)
        pick[np.arange(n), rows * m + cols] = 1
        out = (self @ _make(pick)).reshape(*self.shape[:-1], m, m)
        nd = out.ndim
        return out.movedim((nd - 2, nd - 1), (wrap_dim(dim1, nd), wrap_dim(dim2, nd)))

    @_doc(
        "A 1-D tensor's square diagonal matrix, or a 2-D tensor's diagonal (``diagonal`` picks which).",
        ["diagonal (int): which diagonal. Default: 0."],
        "Tensor: the matrix or the diagonal.",
        ">>> nl.tensor([[1., 2.], [3., 4.]]).diag()\ntensor([1., 4.])",
    )
    def diag(self, diagonal: int = 0) -> Tensor:
        if self.ndim == 1:
            return self.diag_embed(diagonal)
        if self.ndim == 2:
            return self.diagonal(diagonal)
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{self.ndim}D")

    @_doc(
        "The flattened tensor as the diagonal of a square matrix.",
        ["offset (int): which diagonal. Default: 0."],
        "Tensor: the matrix.",
        ">>> nl.tensor([[1.], [2.]]).diagflat().shape\nnnlite.Size([2, 2])",
    )
    def diagflat(self, offset: int = 0) -> Tensor:
        return self.reshape(-1).diag_embed(offset)

    @_doc(
        "The sum of the main diagonal of a 2-D tensor.",
        [],
        "Tensor: the trace.",
        ">>> nl.tensor([[1., 2.], [3., 4.]]).trace()\ntensor(5.)",
    )
    def trace(self) -> Tensor:
        if self.ndim != 2:
            raise RuntimeError(
                "trace: expected a matrix, but got tensor with dim " + str(self.ndim)
            )
        return self.diagonal().sum()

    # ------------------------------------------------------------------ products
    @_doc(
        "The outer product of two 1-D tensors.",
        ["vec2 (Tensor): the second vector."],
        "Tensor: ``(len(self), len(vec2))``.",
        ">>> nl.tensor([1., 2.]).outer(nl.tensor([1., 10.]))\ntensor([[ 1., 10.],\n        [ 2., 20.]])",
    )
    def outer(self, vec2: Tensor) -> Tensor:
        return self.reshape(-1, 1) * vec2.reshape(1, -1)

    ger = outer

    @_doc(
        "The dot product of two 1-D tensors.",
        ["tensor (Tensor): the second vector."],
        "Tensor: a 0-d tensor.",
        ">>> nl.tensor([1., 2.]).dot(nl.tensor([3., 4.]))\ntensor(11.)",
    )
    def dot(self, tensor: Tensor) -> Tensor:
        if self.ndim != 1 or tensor.ndim != 1:
            raise RuntimeError(
                f"1D tensors expected, but got {self.ndim}D and {tensor.ndim}D tensors"
            )
        return self @ tensor

    @_doc(
        "The dot product of two 1-D tensors (conjugating ``self``, a no-op for real ones).",
        ["other (Tensor): the second vector."],
        "Tensor: a 0-d tensor.",
        ">>> nl.tensor([1., 2.]).vdot(nl.tensor([3., 4.]))\ntensor(11.)",
    )
    def vdot(self, other: Tensor) -> Tensor:
        return self.dot(other)

    @_doc(
        "The inner product over the last dimension.",
        ["other (Tensor): the other tensor."],
        "Tensor: the products.",
        ">>> nl.tensor([1., 2.]).inner(nl.tensor([3., 4.]))\ntensor(11.)",
    )
    def inner(self, other: Tensor) -> Tensor:
        if self.ndim == 0 or other.ndim == 0:
            return self * other
        return self.tensordot(other, dims=([-1], [-1]))

    @_doc(
        "Matrix-vector product.",
        ["vec (Tensor): the vector."],
        "Tensor: the product.",
        ">>> nl.eye(2).mv(nl.tensor([1., 2.]))\ntensor([1., 2.])",
    )
    def mv(self, vec: Tensor) -> Tensor:
        if self.ndim != 2 or vec.ndim != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.ndim}, {vec.ndim}")
        return self @ vec

    @_doc(
        "``beta * self + alpha * (mat1 @ mat2)``.",
        [
            "mat1 (Tensor): the first matrix.",
            "mat2 (Tensor): the second.",
            "beta (number): Default: 1.",
            "alpha (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(2, 2).addmm(nl.eye(2), nl.ones(2, 2), alpha=2)\ntensor([[2., 2.],\n        [2., 2.]])",
    )
    def addmm(self, mat1: Tensor, mat2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return _scaled_sum(self, mat1.mm(mat2), beta, alpha)

    @_doc(
        "``beta * self + alpha * (mat @ vec)``.",
        [
            "mat (Tensor): the matrix.",
            "vec (Tensor): the vector.",
            "beta (number): Default: 1.",
            "alpha (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(2).addmv(nl.eye(2), nl.tensor([1., 2.]))\ntensor([1., 2.])",
    )
    def addmv(self, mat: Tensor, vec: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return _scaled_sum(self, mat.mv(vec), beta, alpha)

    @_doc(
        "``beta * self + alpha * outer(vec1, vec2)``.",
        [
            "vec1 (Tensor): the first vector.",
            "vec2 (Tensor): the second.",
            "beta (number): Default: 1.",
            "alpha (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(2, 2).addr(nl.tensor([1., 2.]), nl.tensor([1., 1.]))\ntensor([[1., 1.],\n        [2., 2.]])",
    )
    def addr(self, vec1: Tensor, vec2: Tensor, *, beta: float = 1, alpha: float = 1) -> Tensor:
        return _scaled_sum(self, vec1.outer(vec2), beta, alpha)

    @_doc(
        "``beta * self + alpha * sum_b(batch1[b] @ batch2[b])``.",
        [
            "batch1 (Tensor): ``(b, n, m)``.",
            "batch2 (Tensor): ``(b, m, p)``.",
            "beta (number): Default: 1.",
            "alpha (number): Default: 1.",
        ],
        "Tensor: ``(n, p)``.",
        ">>> nl.zeros(2, 2).addbmm(nl.ones(3, 2, 1), nl.ones(3, 1, 2))\ntensor([[3., 3.],\n        [3., 3.]])",
    )
    def addbmm(
        self, batch1: Tensor, batch2: Tensor, *, beta: float = 1, alpha: float = 1
    ) -> Tensor:
        return _scaled_sum(self, batch1.bmm(batch2).sum(0), beta, alpha)

    @_doc(
        "``self + value * tensor1 * tensor2``.",
        [
            "tensor1 (Tensor): a factor.",
            "tensor2 (Tensor): the other factor.",
            "value (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.ones(2).addcmul(nl.tensor([1., 2.]), nl.tensor([3., 4.]), value=0.5)\ntensor([2.5000, 5.0000])",
    )
    def addcmul(self, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
        return self + value * tensor1 * tensor2

    @_doc(
        "``self + value * tensor1 / tensor2``.",
        [
            "tensor1 (Tensor): the numerator.",
            "tensor2 (Tensor): the denominator.",
            "value (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.ones(2).addcdiv(nl.tensor([1., 2.]), nl.tensor([2., 4.]))\ntensor([1.5000, 1.5000])",
    )
    def addcdiv(self, tensor1: Tensor, tensor2: Tensor, *, value: float = 1) -> Tensor:
        return self + value * tensor1 / tensor2

    @_doc(
        "Sums of products over the ``dims`` of this tensor and ``other``.",
        [
            "other (Tensor): the other tensor.",
            "dims (int or pair of lists): the last ``dims`` of this and first of ``other``, or the dimensions of each. Default: 2.",
        ],
        "Tensor: the contraction.",
        ">>> nl.ones(2, 3).tensordot(nl.ones(3, 4), dims=1).shape\nnnlite.Size([2, 4])",
    )
    def tensordot(self, other: Tensor, dims: Any = 2) -> Tensor:
        if isinstance(dims, (int, np.integer)):
            da = list(range(self.ndim - int(dims), self.ndim))
            db = list(range(int(dims)))
        else:
            da, db = ([d] if isinstance(d, int) else list(d) for d in dims)
        da = [wrap_dim(d, self.ndim) for d in da]
        db = [wrap_dim(d, other.ndim) for d in db]
        keep_a = [d for d in range(self.ndim) if d not in da]
        keep_b = [d for d in range(other.ndim) if d not in db]
        a = self.permute(*keep_a, *da).reshape(int(np.prod([self.shape[d] for d in keep_a])), -1)
        b = other.permute(*db, *keep_b).reshape(-1, int(np.prod([other.shape[d] for d in keep_b])))
        return (a @ b).reshape([self.shape[d] for d in keep_a] + [other.shape[d] for d in keep_b])

    @_doc(
        "The Kronecker product.",
        ["other (Tensor): the other tensor."],
        "Tensor: the block tensor.",
        ">>> nl.eye(2).kron(nl.ones(1, 2))\ntensor([[1., 1., 0., 0.],\n        [0., 0., 1., 1.]])",
    )
    def kron(self, other: Tensor) -> Tensor:
        nd = max(self.ndim, other.ndim)
        a = self.reshape((1,) * (nd - self.ndim) + tuple(self.shape))
        b = other.reshape((1,) * (nd - other.ndim) + tuple(other.shape))
        shape_a = [s for d in a.shape for s in (d, 1)]
        shape_b = [s for d in b.shape for s in (1, d)]
        out = a.reshape(shape_a) * b.reshape(shape_b)
        return out.reshape([x * y for x, y in zip(a.shape, b.shape)])

    @_doc(
        "The cross product of 3-vectors along ``dim`` (the first dimension of size 3 when omitted).",
        ["other (Tensor): the other vectors.", "dim (int, optional): the dimension of size 3."],
        "Tensor: the cross products.",
        ">>> nl.tensor([1., 0., 0.]).cross(nl.tensor([0., 1., 0.]))\ntensor([0., 0., 1.])",
    )
    def cross(self, other: Tensor, dim: int | None = None) -> Tensor:
        if dim is None:
            shape = np.broadcast_shapes(tuple(self.shape), tuple(other.shape))
            dim = next((i for i, s in enumerate(shape) if s == 3), None)
            if dim is None:
                raise RuntimeError("no dimension of size 3 in input")
        dim = wrap_dim(dim, self.ndim)
        if self.shape[dim] != 3 or other.shape[dim] != 3:
            raise RuntimeError(
                f"linalg.cross: inputs dimension {dim} must have length 3. Got {self.shape[dim]} and {other.shape[dim]}"
            )
        a1, a2 = self.roll(-1, dim), self.roll(-2, dim)
        b1, b2 = other.roll(-1, dim), other.roll(-2, dim)
        return a1 * b2 - a2 * b1

    # ------------------------------------------------------------------ selection and placement
    @_doc(
        "Elements at ``index`` of the flattened tensor.",
        ["index (Tensor): int64 positions."],
        "Tensor: of ``index``'s shape.",
        ">>> nl.tensor([[1., 2.], [3., 4.]]).take(nl.tensor([0, 3]))\ntensor([1., 4.])",
    )
    def take(self, index: Tensor) -> Tensor:
        return self.reshape(-1)[_array(index)]

    @_doc(
        "``gather`` with ``indices`` broadcast against this tensor (the flattened one without ``dim``).",
        ["indices (Tensor): int64 positions.", "dim (int, optional): the dimension."],
        "Tensor: the gathered values.",
        ">>> nl.tensor([[1., 5.], [4., 2.]]).take_along_dim(nl.tensor([[1], [0]]), 1)\ntensor([[5.],\n        [4.]])",
    )
    def take_along_dim(self, indices: Tensor, dim: int | None = None) -> Tensor:
        if dim is None:
            return self.reshape(-1).gather(0, _array(indices).reshape(-1))
        dim = wrap_dim(dim, self.ndim)
        idx = _array(indices)
        shape = list(
            np.broadcast_shapes(
                tuple(s for i, s in enumerate(self.shape) if i != dim),
                tuple(s for i, s in enumerate(idx.shape) if i != dim),
            )
        )
        full_self = list(shape)
        full_self.insert(dim, self.shape[dim])
        full_idx = list(shape)
        full_idx.insert(dim, idx.shape[dim])
        return self.expand(full_self).gather(dim, np.broadcast_to(idx, full_idx))

    def _index_source(self, dim: int, index: Any, source: Any) -> tuple[int, np.ndarray]:
        dim = wrap_dim(dim, self.ndim)
        idx = _array(index).reshape(-1)
        shape = [1] * max(self.ndim, 1)
        shape[dim] = idx.size
        full = np.broadcast_to(idx.reshape(shape), np.shape(_array(source)) or (idx.size,))
        return dim, np.ascontiguousarray(full)

    @_doc(
        "A copy with ``alpha * source`` added at ``index`` along ``dim``.",
        [
            _DIM,
            "index (Tensor): int64 positions.",
            "source (Tensor): the values.",
            "alpha (number): Default: 1.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(3).index_add(0, nl.tensor([0, 0]), nl.tensor([1., 2.]))\ntensor([3., 0., 0.])",
    )
    def index_add(self, dim: int, index: Tensor, source: Tensor, *, alpha: float = 1) -> Tensor:
        dim, idx = self._index_source(dim, index, source)
        return self.scatter_add(dim, idx, source if alpha == 1 else source * alpha)

    @_doc(
        "A copy with ``source`` written at ``index`` along ``dim``.",
        [_DIM, "index (Tensor): int64 positions.", "source (Tensor): the values."],
        "Tensor: the result.",
        ">>> nl.zeros(3).index_copy(0, nl.tensor([2]), nl.tensor([5.]))\ntensor([0., 0., 5.])",
    )
    def index_copy(self, dim: int, index: Tensor, source: Tensor) -> Tensor:
        dim, idx = self._index_source(dim, index, source)
        return self.scatter(dim, idx, source)

    @_doc(
        "A copy with ``value`` at ``index`` along ``dim``.",
        [_DIM, "index (Tensor): int64 positions.", "value (number or 0-d Tensor): the value."],
        "Tensor: the result.",
        ">>> nl.zeros(3).index_fill(0, nl.tensor([1]), 7.)\ntensor([0., 7., 0.])",
    )
    def index_fill(self, dim: int, index: Tensor, value: TensorOrScalar) -> Tensor:
        dim = wrap_dim(dim, self.ndim)
        mask = np.zeros(self.shape[dim] if self.ndim else 1, dtype=np.bool_)
        mask[_array(index).reshape(-1)] = True
        shape = [1] * self.ndim
        if self.ndim:
            shape[dim] = mask.size
        return self.masked_fill(mask.reshape(shape), value)

    @_doc(
        "A copy with ``source``'s elements, in order, where ``mask`` is True.",
        ["mask (Tensor of bool): where to write (broadcast).", "source (Tensor): the values."],
        "Tensor: the result.",
        ">>> nl.zeros(3).masked_scatter(nl.tensor([True, False, True]), nl.tensor([1., 2.]))\ntensor([1., 0., 2.])",
    )
    def masked_scatter(self, mask: Tensor, source: Tensor) -> Tensor:
        m = np.broadcast_to(_array(mask).astype(bool), tuple(self.shape))
        order = np.cumsum(m.reshape(-1)) - 1
        if m.any() and order[-1] >= source.numel():
            raise RuntimeError(
                "masked_scatter: expected source to have at least as many elements as ones in mask"
            )
        if not source.numel():
            return self.clone()
        picked = source.reshape(-1)[np.clip(order, 0, None).reshape(m.shape)]
        return picked.where(m, self)

    @_doc(
        "Elements of ``self`` where ``condition`` holds, else of ``other``.",
        ["condition (Tensor of bool): the choice.", "other (Tensor or number): the other values."],
        "Tensor: the result.",
        ">>> nl.tensor([1., 2.]).where(nl.tensor([True, False]), 0.)\ntensor([1., 0.])",
    )
    def where(self, condition: Tensor, other: TensorOrScalar) -> Tensor:
        out: Tensor = implementation("creation.where")(condition, self, other)
        return out

    @overload
    def nonzero(self, *, as_tuple: Literal[False] = False) -> Tensor: ...
    @overload
    def nonzero(self, *, as_tuple: Literal[True]) -> tuple[Tensor, ...]: ...
    @overload
    def nonzero(self, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]: ...

    @_doc(
        "The indices of the non-zero elements: ``(n, ndim)``, or one 1-D tensor per dimension.",
        ["as_tuple (bool): return a tuple of index tensors. Default: False."],
        "Tensor or tuple of Tensors: int64 indices.",
        ">>> nl.tensor([0., 3., 0., 4.]).nonzero()\ntensor([[1],\n        [3]])",
    )
    def nonzero(self, *, as_tuple: bool = False) -> Tensor | tuple[Tensor, ...]:
        found = np.nonzero(self._data if self.ndim else self._data.reshape(1))
        if as_tuple:
            return tuple(_make(i.astype(np.int64)) for i in found)
        return _make(np.stack(found, axis=1).astype(np.int64).reshape(-1, max(self.ndim, 0) or 0))

    @_doc(
        "``nonzero()`` as an ``(n, ndim)`` tensor.",
        [],
        "Tensor: int64 indices.",
        ">>> nl.tensor([[0., 1.]]).argwhere()\ntensor([[0, 1]])",
    )
    def argwhere(self) -> Tensor:
        return self.nonzero()

    # ------------------------------------------------------------------ searching and counting
    @_doc(
        "For each value, where it would be inserted into this sorted tensor's last dimension.",
        [
            "values (Tensor or number): the values.",
            "out_int32 (bool): int32 result. Default: False.",
            "right (bool): after equal elements. Default: False.",
            "side (str, optional): ``'left'`` or ``'right'``.",
            "sorter (Tensor, optional): indices that sort this tensor.",
        ],
        "Tensor: the insertion indices.",
        ">>> nl.tensor([1., 3., 5.]).searchsorted(nl.tensor([3., 6.]))\ntensor([1, 3])",
    )
    def searchsorted(
        self,
        values: TensorOrScalar | None = None,
        *,
        out_int32: bool = False,
        right: bool = False,
        side: str | None = None,
        sorter: Tensor | None = None,
        input: TensorOrScalar | None = None,
    ) -> Tensor:
        values = input if values is None else values  # PyTorch takes ``input=`` for the values
        if values is None:
            raise TypeError("searchsorted() missing 1 required argument: 'values'")
        # numpy rejects any other value
        side = cast('Literal["left", "right"]', side or ("right" if right else "left"))
        seq = self._data
        if sorter is not None:
            seq = np.take_along_axis(seq, _array(sorter), axis=-1)
        vals = _array(values)
        dtype = np.int32 if out_int32 else np.int64
        if seq.ndim == 1:
            return _make(np.searchsorted(seq, vals, side=side).astype(dtype))
        rows = seq.reshape(-1, seq.shape[-1])
        vrows = vals.reshape(rows.shape[0], -1)
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vrows)])
        return _make(out.reshape(vals.shape).astype(dtype))

    @_doc(
        "The bucket of each element among the sorted ``boundaries``.",
        [
            "boundaries (Tensor): sorted 1-D boundaries.",
            "out_int32 (bool): int32 result. Default: False.",
            "right (bool): Default: False.",
        ],
        "Tensor: the bucket indices.",
        ">>> nl.tensor([0.5, 2.]).bucketize(nl.tensor([1., 2., 3.]))\ntensor([0, 1])",
    )
    def bucketize(
        self, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
    ) -> Tensor:
        return boundaries.searchsorted(self, out_int32=out_int32, right=right)

    @_doc(
        "The unique elements (sorted), with the inverse indices and counts on request.",
        [
            "sorted (bool): sorted output (always). Default: True.",
            "return_inverse (bool): Default: False.",
            "return_counts (bool): Default: False.",
            "dim (int, optional): unique slices along this dimension.",
        ],
        "Tensor, or a tuple with the inverse and counts.",
        ">>> nl.tensor([2, 1, 2]).unique()\ntensor([1, 2])",
    )
    def unique(
        self,
        sorted: bool = True,
        return_inverse: bool = False,
        return_counts: bool = False,
        dim: int | None = None,
    ) -> Any:
        data = self._data
        if dim is None:
            values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
            inverse = inverse.reshape(data.shape)
        else:
            dim = wrap_dim(dim, self.ndim)
            values, inverse, counts = np.unique(
                data, return_inverse=True, return_counts=True, axis=dim
            )
            inverse = inverse.reshape(-1)
        return _unique_result(values, inverse, counts, return_inverse, return_counts)

    @_doc(
        "Each run of equal consecutive elements kept once.",
        [
            "return_inverse (bool): Default: False.",
            "return_counts (bool): Default: False.",
            "dim (int, optional): along this dimension.",
        ],
        "Tensor, or a tuple with the inverse and counts.",
        ">>> nl.tensor([1, 1, 2, 1]).unique_consecutive()\ntensor([1, 2, 1])",
    )
    def unique_consecutive(
        self, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
    ) -> Any:
        x = self.reshape(-1) if dim is None else self.movedim(wrap_dim(dim, self.ndim), 0)
        data = x._data
        n = data.shape[0]
        if n == 0:
            change = np.zeros(0, dtype=bool)
        else:
            rest = (data[1:] != data[:-1]).reshape(n - 1, -1).any(axis=1)
            change = np.concatenate([[True], rest])
        starts = np.flatnonzero(change)
        values = data[starts]
        if dim is not None:
            values = np.moveaxis(values, 0, wrap_dim(dim, self.ndim))
        inverse = (np.cumsum(change) - 1).reshape(self.shape if dim is None else (n,))
        counts = np.diff(np.append(starts, n))
        return _unique_result(values, inverse, counts, return_inverse, return_counts)

    @_doc(
        "How many times each non-negative integer occurs (``weights`` summed instead when given).",
        ["weights (Tensor, optional): one weight per element.", "minlength (int): Default: 0."],
        "Tensor: the counts.",
        ">>> nl.tensor([0, 2, 2]).bincount()\ntensor([1, 0, 2])",
    )
    def bincount(self, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
        if self.ndim != 1 or self._data.dtype.kind not in "iu":
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        if (self._data < 0).any():
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        w = None if weights is None else _array(weights)
        out = np.bincount(self._data, w, minlength)
        if w is not None and w.dtype == np.float32:
            out = out.astype(np.float32)
        return _make(out)

    @_doc(
        "A histogram of ``bins`` equal bins over ``[min, max]`` (the data's range when both are 0).",
        ["bins (int): Default: 100.", "min (number): Default: 0.", "max (number): Default: 0."],
        "Tensor: the counts, in this tensor's dtype.",
        ">>> nl.tensor([1., 2., 1.]).histc(bins=4, min=0, max=3)\ntensor([0., 2., 1., 0.])",
    )
    def histc(self, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
        data = self._data.reshape(-1)
        low, high = float(min), float(max)
        if low == high and data.size:
            low, high = float(data.min()), float(data.max())
        if low == high:
            low, high = low - 1, high + 1
        counts, _ = np.histogram(data, bins=bins, range=(low, high))
        return _make(counts.astype(self._data.dtype))

    # ------------------------------------------------------------------ rearranging
    @_doc(
        "Dimensions ``source`` moved to positions ``destination``, the others keeping their order.",
        [
            "source (int or tuple of ints): the dimensions to move.",
            "destination (int or tuple of ints): where to.",
        ],
        "Tensor: a view.",
        ">>> nl.zeros(2, 3, 4).movedim(0, -1).shape\nnnlite.Size([3, 4, 2])",
    )
    def movedim(
        self: _Self, source: int | Sequence[int], destination: int | Sequence[int]
    ) -> _Self | Tensor:
        src = [source] if isinstance(source, int) else list(source)
        dst = [destination] if isinstance(destination, int) else list(destination)
        if len(src) != len(dst):
            raise RuntimeError(
                f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of dims as destination ({dst} dims)"
            )
        nd = self.ndim
        src = [wrap_dim(d, nd) for d in src]
        dst = [wrap_dim(d, nd) for d in dst]
        order = [d for d in range(nd) if d not in src]
        for d, s in sorted(zip(dst, src)):
            order.insert(d, s)
        return self.permute(*order) if nd else self

    moveaxis = movedim

    @_doc(
        "Dimensions ``axis0`` and ``axis1`` swapped (``transpose``).",
        ["axis0 (int): a dimension.", "axis1 (int): the other."],
        "Tensor: a view.",
        ">>> nl.zeros(2, 3).swapaxes(0, 1).shape\nnnlite.Size([3, 2])",
    )
    def swapaxes(self: _Self, axis0: int, axis1: int) -> _Self | Tensor:
        return self.transpose(axis0, axis1)

    @_doc(
        "Dimensions ``dim0`` and ``dim1`` swapped (``transpose``).",
        ["dim0 (int): a dimension.", "dim1 (int): the other."],
        "Tensor: a view.",
        ">>> nl.zeros(2, 3).swapdims(0, 1).shape\nnnlite.Size([3, 2])",
    )
    def swapdims(self: _Self, dim0: int, dim1: int) -> _Self | Tensor:
        return self.transpose(dim0, dim1)

    @_doc(
        "Rotated by 90 degrees ``k`` times in the plane of ``dims``, from the first toward the second.",
        [
            "k (int): how many quarter turns. Default: 1.",
            "dims (pair of ints): the plane. Default: (0, 1).",
        ],
        "Tensor: the rotated tensor.",
        ">>> nl.tensor([[1, 2], [3, 4]]).rot90()\ntensor([[2, 4],\n        [1, 3]])",
    )
    def rot90(self: _Self, k: int = 1, dims: Sequence[int] = (0, 1)) -> _Self | Tensor:
        if len(dims) != 2:
            raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
        d0, d1 = dims
        k %= 4
        if k == 1:
            return self.flip(d1).transpose(d0, d1)
        if k == 2:
            return self.flip(d0, d1)
        if k == 3:
            return self.flip(d0).transpose(d0, d1)
        return self.clone()

    @_doc(
        "Flipped left to right (the second dimension).",
        [],
        "Tensor: the flipped tensor.",
        ">>> nl.tensor([[1, 2]]).fliplr()\ntensor([[2, 1]])",
    )
    def fliplr(self: _Self) -> _Self | Tensor:
        return self.flip(1)

    @_doc(
        "Flipped up to down (the first dimension).",
        [],
        "Tensor: the flipped tensor.",
        ">>> nl.tensor([[1], [2]]).flipud()\ntensor([[2],\n        [1]])",
    )
    def flipud(self: _Self) -> _Self | Tensor:
        return self.flip(0)

    @_doc(
        "Windows of ``size`` elements every ``step`` along ``dimension``, as a new last dimension.",
        [
            "dimension (int): the dimension.",
            "size (int): the window length.",
            "step (int): the stride.",
        ],
        "Tensor: the windows.",
        ">>> nl.arange(5.).unfold(0, 2, 2)\ntensor([[0., 1.],\n        [2., 3.]])",
    )
    def unfold(self, dimension: int, size: int, step: int) -> Tensor:
        dim = wrap_dim(dimension, self.ndim) if self.ndim else 0
        x = self if self.ndim else self.reshape(1)
        n = x.shape[dim]
        if size > n:
            raise RuntimeError(
                f"maximum size for tensor at dimension {dim} is {n} but size is {size}"
            )
        if step <= 0:
            raise RuntimeError(f"step is {step} but must be > 0")
        starts = np.arange(0, n - size + 1, step)
        windows = _last(x, dim)[..., starts[:, None] + np.arange(size)]
        return windows.movedim(-2, dim)

    @_doc(
        "The tensor split into ``indices_or_sections`` parts (a count, or the split positions) along ``dim``.",
        [
            "indices_or_sections (int or list of ints): how many parts, or where to cut.",
            "dim (int): Default: 0.",
        ],
        "tuple of Tensors: the parts (views).",
        ">>> [t.tolist() for t in nl.arange(5).tensor_split(2)]\n[[0, 1, 2], [3, 4]]",
    )
    def tensor_split(
        self,
        indices_or_sections: int | Sequence[int] | Tensor | None = None,
        dim: int = 0,
        *,
        sections: int | None = None,
        indices: Sequence[int] | None = None,
        tensor_indices_or_sections: Tensor | None = None,
    ) -> tuple[Tensor, ...]:
        # PyTorch's keyword names of its three overloads
        given = [
            v
            for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
            if v is not None
        ]
        if len(given) != 1:
            raise TypeError(
                "tensor_split() needs one of sections, indices or tensor_indices_or_sections"
            )
        indices_or_sections = given[0]
        dim = wrap_dim(dim, self.ndim)
        n = self.shape[dim]
        if isinstance(indices_or_sections, (int, np.integer)) or (
            isinstance(indices_or_sections, _op.Tensor) and indices_or_sections.ndim == 0
        ):
            parts = int(indices_or_sections)
            base, extra = divmod(n, parts)
            sizes = [base + 1] * extra + [base] * (parts - extra)
            cuts = np.cumsum([0] + sizes)
        else:
            cuts = [0] + [int(i) for i in indices_or_sections] + [n]
        out = []
        for a, b in zip(cuts[:-1], cuts[1:]):
            a, b = min(int(a), n), min(max(int(b), int(a)), n)
            out.append(self.narrow(dim, a, b - a))
        return tuple(out)

    def _split_along(
        self, sections: int | Sequence[int], dim: int, name: str
    ) -> tuple[Tensor, ...]:
        if self.ndim <= dim:
            raise RuntimeError(
                f"torch.{name} requires a tensor with at least {dim + 1} dimension, but got a tensor with {self.ndim} dimensions!"
            )
        if isinstance(sections, int) and self.shape[dim] % sections:
            raise RuntimeError(
                f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension {self.shape[dim]} is not divisible by the split_size {sections}!"
            )
        return self.tensor_split(sections, dim)

    @_doc(
        "``tensor_split`` along the columns (dimension 1; 0 for 1-D tensors).",
        ["sections (int or list of ints): parts or cut positions."],
        "tuple of Tensors: the parts.",
        ">>> len(nl.zeros(2, 4).hsplit(2))\n2",
    )
    def hsplit(self, sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        return self._split_along(sections, 1 if self.ndim > 1 else 0, "hsplit")

    @_doc(
        "``tensor_split`` along the rows (dimension 0).",
        ["sections (int or list of ints): parts or cut positions."],
        "tuple of Tensors: the parts.",
        ">>> len(nl.zeros(4, 2).vsplit(2))\n2",
    )
    def vsplit(self, sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        return self._split_along(sections, 0, "vsplit")

    @_doc(
        "``tensor_split`` along the depth (dimension 2).",
        ["sections (int or list of ints): parts or cut positions."],
        "tuple of Tensors: the parts.",
        ">>> len(nl.zeros(1, 1, 4).dsplit(2))\n2",
    )
    def dsplit(self, sections: int | Sequence[int]) -> tuple[Tensor, ...]:
        return self._split_along(sections, 2, "dsplit")

    @_doc(
        "The slices along ``dim``, that dimension removed.",
        ["dim (int): Default: 0."],
        "tuple of Tensors: the slices.",
        ">>> [t.tolist() for t in nl.tensor([[1, 2], [3, 4]]).unbind(1)]\n[[1, 3], [2, 4]]",
    )
    def unbind(self, dim: int = 0) -> tuple[Tensor, ...]:
        dim = wrap_dim(dim, self.ndim)
        return mark_multi_output(
            tuple(self.select(dim, i) for i in range(self.shape[dim])), "Unbind"
        )

    @_doc(
        "Broadcast to ``size`` (``expand``).",
        ["size (tuple of ints): the shape."],
        "Tensor: a view.",
        ">>> nl.tensor([1., 2.]).broadcast_to((2, 2)).shape\nnnlite.Size([2, 2])",
    )
    def broadcast_to(self: _Self, size: Sequence[int]) -> _Self | Tensor:
        return self.expand(*size)

    @_doc(
        "Repeated ``dims`` times per dimension (``repeat``, ones prepended to ``dims`` as needed).",
        ["dims (tuple of ints): the repeat counts."],
        "Tensor: the tiled copy.",
        ">>> nl.tensor([1, 2]).tile((2,))\ntensor([1, 2, 1, 2])",
    )
    def tile(self, dims: Sequence[int]) -> Tensor:
        dims = tuple(dims)
        dims = (1,) * (self.ndim - len(dims)) + dims
        return self.repeat(*dims)

    @_doc(
        "The flattened tensor.",
        [],
        "Tensor: 1-D.",
        ">>> nl.zeros(2, 3).ravel().shape\nnnlite.Size([6])",
    )
    def ravel(self) -> Tensor:
        return self.reshape(-1)

    @_doc(
        "The conjugate transpose of the last two dimensions (the transpose for real tensors).",
        [],
        "Tensor: a view.",
        ">>> nl.zeros(2, 3).adjoint().shape\nnnlite.Size([3, 2])",
    )
    def adjoint(self: _Self) -> _Self | Tensor:
        return self.transpose(-2, -1)

    # ------------------------------------------------------------------ predicates
    @_doc(
        "True where the element is +inf.",
        [],
        "Tensor: bool.",
        ">>> nl.tensor([float('inf'), 1.]).isposinf()\ntensor([ True, False])",
    )
    def isposinf(self) -> Tensor:
        return _make(np.isposinf(self._data))

    @_doc(
        "True where the element is -inf.",
        [],
        "Tensor: bool.",
        ">>> nl.tensor([float('-inf'), 1.]).isneginf()\ntensor([ True, False])",
    )
    def isneginf(self) -> Tensor:
        return _make(np.isneginf(self._data))

    @_doc(
        "True where the sign bit is set.",
        [],
        "Tensor: bool.",
        ">>> nl.tensor([-0., 1.]).signbit()\ntensor([ True, False])",
    )
    def signbit(self) -> Tensor:
        return _make(np.signbit(self._data))

    @_doc(
        "True where the element is in ``test_elements``.",
        [
            "test_elements (Tensor or number): the set.",
            "assume_unique (bool): Default: False.",
            "invert (bool): Default: False.",
        ],
        "Tensor: bool.",
        ">>> nl.tensor([1, 2, 3]).isin(nl.tensor([2]))\ntensor([False,  True, False])",
    )
    def isin(
        self, test_elements: TensorOrScalar, *, assume_unique: bool = False, invert: bool = False
    ) -> Tensor:
        return _make(
            np.isin(self._data, _array(test_elements), assume_unique=assume_unique, invert=invert)
        )

    @_doc(
        "Whether the dtype is signed.",
        [],
        "bool: True for signed types.",
        ">>> nl.tensor([1]).is_signed()\nTrue",
    )
    def is_signed(self) -> bool:
        return self._data.dtype.kind in "fic"

    @_doc(
        "Whether the single element is non-zero.",
        [],
        "bool: the truth value.",
        ">>> nl.tensor([2.]).is_nonzero()\nTrue",
    )
    def is_nonzero(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self.numel()
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self._data.reshape(-1)[0])

    @_doc(
        "Whether ``other`` has this tensor's shape.",
        ["other (Tensor): the other tensor."],
        "bool: the answer.",
        ">>> nl.zeros(2).is_same_size(nl.ones(2))\nTrue",
    )
    def is_same_size(self, other: Tensor) -> bool:
        return tuple(self.shape) == tuple(other.shape)

    @_doc(
        "Logical and, elementwise.",
        ["other (Tensor): the other operand."],
        "Tensor: bool.",
        ">>> nl.tensor([1, 0]).logical_and(nl.tensor([1, 1]))\ntensor([ True, False])",
    )
    def logical_and(self, other: TensorOrScalar) -> Tensor:
        return _make(np.logical_and(self._data, _array(other)))

    @_doc(
        "Logical or, elementwise.",
        ["other (Tensor): the other operand."],
        "Tensor: bool.",
        ">>> nl.tensor([1, 0]).logical_or(nl.tensor([0, 0]))\ntensor([ True, False])",
    )
    def logical_or(self, other: TensorOrScalar) -> Tensor:
        return _make(np.logical_or(self._data, _array(other)))

    @_doc(
        "Logical exclusive or, elementwise.",
        ["other (Tensor): the other operand."],
        "Tensor: bool.",
        ">>> nl.tensor([1, 0]).logical_xor(nl.tensor([1, 1]))\ntensor([False,  True])",
    )
    def logical_xor(self, other: TensorOrScalar) -> Tensor:
        return _make(np.logical_xor(self._data, _array(other)))

    @_doc(
        "Bitwise not (logical not for bool).",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([True, False]).bitwise_not()\ntensor([False,  True])",
    )
    def bitwise_not(self) -> Tensor:
        return ~self

    # ------------------------------------------------------------------ statistics
    @_doc(
        "``(std, mean)`` over ``dim``.",
        [
            "dim (int or tuple of ints, optional): the dimensions.",
            "unbiased (bool, optional): Bessel's correction.",
            _KEEPDIM,
            "correction (number, optional): the degrees of freedom subtracted.",
        ],
        "tuple of Tensors: ``(std, mean)``.",
        ">>> nl.tensor([1., 3.]).std_mean()\n(tensor(1.4142), tensor(2.))",
    )
    def std_mean(
        self,
        dim: _dims = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> tuple[Tensor, Tensor]:
        return self.std(dim, unbiased, keepdim, correction=correction), self.mean(dim, keepdim)

    @_doc(
        "``(var, mean)`` over ``dim``.",
        [
            "dim (int or tuple of ints, optional): the dimensions.",
            "unbiased (bool, optional): Bessel's correction.",
            _KEEPDIM,
            "correction (number, optional): the degrees of freedom subtracted.",
        ],
        "tuple of Tensors: ``(var, mean)``.",
        ">>> nl.tensor([1., 3.]).var_mean()\n(tensor(2.), tensor(2.))",
    )
    def var_mean(
        self,
        dim: _dims = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
    ) -> tuple[Tensor, Tensor]:
        return self.var(dim, unbiased, keepdim, correction=correction), self.mean(dim, keepdim)

    @_doc(
        "The ``q``-quantiles along ``dim`` (all elements by default), interpolated linearly.",
        [
            "q (float or Tensor): in [0, 1].",
            "dim (int, optional): the dimension.",
            _KEEPDIM,
            "interpolation (str): ``'linear'``, ``'lower'``, ``'higher'``, ``'midpoint'`` or ``'nearest'``.",
        ],
        "Tensor: the quantiles (``q``'s dimension first when ``q`` is 1-D).",
        ">>> nl.tensor([1., 2., 3., 4.]).quantile(0.5)\ntensor(2.5000)",
    )
    def quantile(
        self,
        q: float | Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=False)

    @_doc(
        "``quantile`` ignoring NaN.",
        [
            "q (float or Tensor): in [0, 1].",
            "dim (int, optional): the dimension.",
            _KEEPDIM,
            "interpolation (str): as ``quantile``.",
        ],
        "Tensor: the quantiles.",
        ">>> nl.tensor([1., float('nan'), 3.]).nanquantile(0.5)\ntensor(2.)",
    )
    def nanquantile(
        self,
        q: float | Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
    ) -> Tensor:
        return _quantile(self, q, dim, keepdim, interpolation, ignore_nan=True)


for _name in dict.fromkeys(_INPLACE):
    if not hasattr(TensorSurface, _name + "_"):
        setattr(TensorSurface, _name + "_", _inplace(_name))


def _product_last(x: Tensor) -> Tensor:
    """The product over the last dimension, by pairwise halving (each step one multiplication)."""
    if x.shape[-1] == 0:
        return x.sum(-1) + 1
    while x.shape[-1] > 1:
        n = x.shape[-1]
        half = n // 2
        paired = x[..., :half] * x[..., half : 2 * half]
        x = paired if n % 2 == 0 else _cat_last(paired, x[..., 2 * half :])
    return x[..., 0]


def _cat_last(a: Tensor, b: Tensor) -> Tensor:
    out: Tensor = implementation("creation.cat")([a, b], -1)
    return out


def _scaled_sum(base: Tensor, product: Tensor, beta: float, alpha: float) -> Tensor:
    product = product if alpha == 1 else product * alpha
    if beta == 0:  # as PyTorch: ``self`` is ignored, NaN in it included
        return product.expand(*np.broadcast_shapes(tuple(base.shape), tuple(product.shape)))
    return (base if beta == 1 else base * beta) + product


def _unique_result(
    values: np.ndarray,
    inverse: np.ndarray,
    counts: np.ndarray,
    return_inverse: bool,
    return_counts: bool,
) -> Any:
    out = [_make(values)]
    if return_inverse:
        out.append(_make(inverse.astype(np.int64)))
    if return_counts:
        out.append(_make(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


def _quantile(
    x: Tensor,
    q: float | Tensor,
    dim: int | None,
    keepdim: bool,
    interpolation: str,
    ignore_nan: bool,
) -> Tensor:
    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise RuntimeError(
            "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got "
            + interpolation
        )
    qs = _array(q).astype(np.float64)
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    if dim is None:
        src, d = x.reshape(-1), 0
    else:
        d = wrap_dim(dim, x.ndim)
        src = x
    sorted_values = src.sort(d).values
    last = _last(sorted_values, d)
    n = last.shape[-1]
    valid = n - (np.isnan(_last(src, d)._data).sum(-1, keepdims=True) if ignore_nan else 0)
    pos = qs.reshape(-1) * (np.maximum(valid, 1) - 1) if ignore_nan else qs.reshape(-1) * (n - 1)
    if interpolation == "lower":
        pos = np.floor(pos)
    elif interpolation == "higher":
        pos = np.ceil(pos)
    elif interpolation == "nearest":
        pos = np.round(pos)
    low = np.floor(pos).astype(np.int64)
    high = np.ceil(pos).astype(np.int64)
    frac = pos - low
    if interpolation == "midpoint":
        frac = np.where(high > low, 0.5, 0.0)
    shape = tuple(last.shape[:-1]) + (qs.size,)
    low, high = np.broadcast_to(low, shape), np.broadcast_to(high, shape)
    a, b = last.gather(-1, low), last.gather(-1, high)
    out = a + (b - a) * _make(np.broadcast_to(frac, shape).astype(x._data.dtype))
    if ignore_nan:
        out = out.masked_fill(np.broadcast_to(valid == 0, shape), float("nan"))
    elif np.isnan(last._data).any():
        out = out.masked_fill(
            np.broadcast_to(np.isnan(last._data).any(-1, keepdims=True), shape), float("nan")
        )
    out = out.movedim(-1, 0)  # q's dimension first, as PyTorch
    if keepdim:
        if dim is None:
            out = out.reshape((qs.size,) + (1,) * x.ndim)
        else:
            out = out.unsqueeze(d + 1)
    if qs.ndim == 0:
        out = out[0]
    return out


# Methods that also exist as functions ``nl.name(input, ...)``.
SURFACE_FUNCTION_NAMES = [
    "log1p",
    "expm1",
    "exp2",
    "log2",
    "log10",
    "tan",
    "asin",
    "arcsin",
    "acos",
    "arccos",
    "atan",
    "arctan",
    "sinh",
    "cosh",
    "asinh",
    "arcsinh",
    "acosh",
    "arccosh",
    "atanh",
    "arctanh",
    "erfc",
    "erfinv",
    "lgamma",
    "digamma",
    "floor",
    "ceil",
    "trunc",
    "fix",
    "round",
    "frac",
    "atan2",
    "arctan2",
    "hypot",
    "logaddexp",
    "logaddexp2",
    "xlogy",
    "logit",
    "sinc",
    "deg2rad",
    "rad2deg",
    "lerp",
    "clamp_min",
    "clamp_max",
    "float_power",
    "cumprod",
    "prod",
    "cummax",
    "cummin",
    "logcumsumexp",
    "kthvalue",
    "median",
    "nanmedian",
    "mode",
    "aminmax",
    "nansum",
    "nanmean",
    "count_nonzero",
    "diff",
    "diagonal",
    "diag_embed",
    "diag",
    "diagflat",
    "trace",
    "outer",
    "ger",
    "dot",
    "vdot",
    "inner",
    "mv",
    "addmm",
    "addmv",
    "addr",
    "addbmm",
    "addcmul",
    "addcdiv",
    "kron",
    "cross",
    "take",
    "take_along_dim",
    "index_add",
    "index_copy",
    "index_fill",
    "masked_scatter",
    "nonzero",
    "argwhere",
    "searchsorted",
    "unique",
    "unique_consecutive",
    "bincount",
    "histc",
    "movedim",
    "moveaxis",
    "swapaxes",
    "swapdims",
    "rot90",
    "fliplr",
    "flipud",
    "tensor_split",
    "hsplit",
    "vsplit",
    "dsplit",
    "unbind",
    "broadcast_to",
    "tile",
    "ravel",
    "adjoint",
    "isposinf",
    "isneginf",
    "signbit",
    "isin",
    "is_signed",
    "is_nonzero",
    "is_same_size",
    "logical_and",
    "logical_or",
    "logical_xor",
    "bitwise_not",
    "std_mean",
    "var_mean",
    "quantile",
    "nanquantile",
    "bucketize",
]


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The ``n``-th derivative of the digamma function at each element of ``input``.

    Args:
        n (int): the order, 0 or more.
        input (Tensor): the points.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.polygamma(1, nl.tensor([1.]))
        tensor([1.6449])
    """
    from .out_arg import write_out

    result = input.polygamma(n)
    return result if out is None else write_out("polygamma", result, out, (input,))


def tensordot(a: Tensor, b: Tensor, dims: Any = 2, out: Tensor | None = None) -> Tensor:
    """Sums of products over ``dims`` of ``a`` and ``b``.

    Args:
        a (Tensor): the first tensor.
        b (Tensor): the second.
        dims (int or pair of lists): the last ``dims`` of ``a`` and the first of ``b``, or the
            dimensions of each. Default: 2.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the contraction.

    Examples:
        >>> nl.tensordot(nl.ones(2, 3), nl.ones(3, 4), dims=1).shape
        nnlite.Size([2, 4])
    """
    from .out_arg import write_out

    result = a.tensordot(b, dims)
    return result if out is None else write_out("tensordot", result, out, (a, b))


class TensorSurfaceMore(_Base):
    """More methods of ``Tensor`` (mixed into ``TensorSurface``): linear algebra through
    ``nnlite.linalg``, integer and floating bit functions, scatter reductions and in-place random
    fills."""

    __slots__ = ()
    if TYPE_CHECKING:
        _data: np.ndarray

    @_doc(
        "The matrix inverse (``linalg.inv``).",
        [],
        "Tensor: the inverse.",
        ">>> nl.tensor([[2., 0.], [0., 4.]]).inverse()\ntensor([[0.5000, 0.0000],\n        [0.0000, 0.2500]])",
    )
    def inverse(self) -> Tensor:
        out: Tensor = implementation("linalg.inv")(self)
        return out

    @_doc(
        "The determinant (``linalg.det``).",
        [],
        "Tensor: the determinants.",
        ">>> nl.eye(2).det()\ntensor(1.)",
    )
    def det(self) -> Tensor:
        out: Tensor = implementation("linalg.det")(self)
        return out

    @_doc(
        "``log(det)``: NaN for a negative determinant, ``-inf`` for zero.",
        [],
        "Tensor: the result.",
        ">>> nl.eye(2).logdet()\ntensor(0.)",
    )
    def logdet(self) -> Tensor:
        sign: Tensor
        logabs: Tensor
        sign, logabs = implementation("linalg.slogdet")(self)
        return logabs + _make(
            np.where(sign._data < 0, np.nan, np.where(sign._data == 0, -np.inf, 0.0)).astype(
                self._data.dtype
            )
        )

    @_doc(
        "``(sign, logabsdet)`` of the determinant (``linalg.slogdet``).",
        [],
        "A named tuple ``(sign, logabsdet)``.",
        ">>> nl.eye(2).slogdet().logabsdet\ntensor(0.)",
    )
    def slogdet(self) -> Any:
        return implementation("linalg.slogdet")(self)

    @_doc(
        "The pseudo-inverse (``linalg.pinv``).",
        ["rcond (float): accepted. Default: 1e-15."],
        "Tensor: the pseudo-inverse.",
        ">>> nl.tensor([[1.], [1.]]).pinverse()\ntensor([[0.5000, 0.5000]])",
    )
    def pinverse(self, rcond: float = 1e-15) -> Tensor:
        out: Tensor = implementation("linalg.pinv")(self)
        return out

    @_doc(
        "The ``n``-th matrix power (``linalg.matrix_power``).",
        ["n (int): the power."],
        "Tensor: the power.",
        ">>> nl.eye(2).matrix_power(3)\ntensor([[1., 0.],\n        [0., 1.]])",
    )
    def matrix_power(self, n: int) -> Tensor:
        out: Tensor = implementation("linalg.matrix_power")(self, n)
        return out

    @_doc(
        "The matrix exponential (``linalg.matrix_exp``).",
        [],
        "Tensor: ``exp(self)``.",
        ">>> nl.zeros(1, 1).matrix_exp()\ntensor([[1.]])",
    )
    def matrix_exp(self) -> Tensor:
        out: Tensor = implementation("linalg.matrix_exp")(self)
        return out

    @_doc(
        "The Cholesky factor (``linalg.cholesky``).",
        ["upper (bool): the upper factor instead. Default: False."],
        "Tensor: the factor.",
        ">>> nl.tensor([[4.]]).cholesky()\ntensor([[2.]])",
    )
    def cholesky(self, upper: bool = False) -> Tensor:
        out: Tensor = implementation("linalg.cholesky")(self, upper=upper)
        return out

    @_doc(
        "The inverse of ``L @ L.mT`` from the Cholesky factor ``L`` (this tensor).",
        ["upper (bool): this is the upper factor. Default: False."],
        "Tensor: the inverse.",
        ">>> nl.tensor([[2.]]).cholesky_inverse()\ntensor([[0.2500]])",
    )
    def cholesky_inverse(self, upper: bool = False) -> Tensor:
        low = self.mT if upper else self
        out: Tensor = implementation("linalg.inv")(low @ low.mT)
        return out

    @_doc(
        "``X`` with ``(L @ L.mT) @ X = self`` given the Cholesky factor ``input2``.",
        ["input2 (Tensor): the factor.", "upper (bool): it is the upper factor. Default: False."],
        "Tensor: the solution.",
        ">>> nl.tensor([[4.]]).cholesky_solve(nl.tensor([[2.]]))\ntensor([[1.]])",
    )
    def cholesky_solve(self, input2: Tensor, upper: bool = False) -> Tensor:
        low = input2.mT if upper else input2
        out: Tensor = implementation("linalg.solve")(low @ low.mT, self)
        return out

    @_doc(
        "``(Q, R)`` (``linalg.qr``).",
        ["some (bool): reduced factors. Default: True."],
        "A named tuple ``(Q, R)``.",
        ">>> nl.eye(2).qr().R\ntensor([[1., 0.],\n        [0., 1.]])",
    )
    def qr(self, some: bool = True) -> Any:
        return implementation("linalg.qr")(self)

    @_doc(
        "``(U, S, V)`` with ``self = U diag(S) V.mT`` (``linalg.svd``).",
        [
            "some (bool): reduced factors (always). Default: True.",
            "compute_uv (bool): Default: True.",
        ],
        "A named tuple ``(U, S, V)``.",
        ">>> nl.tensor([[3., 0.], [0., 4.]]).svd().S\ntensor([4., 3.])",
    )
    def svd(self, some: bool = True, compute_uv: bool = True) -> _svd_result:
        U, S, Vh = implementation("linalg.svd")(self, full_matrices=False)
        return _svd_result((U, S, Vh.mT))

    @_doc(
        "The ``p``-norm of ``self - other``.",
        ["other (Tensor): the other tensor.", "p (float): Default: 2."],
        "Tensor: 0-d.",
        ">>> nl.tensor([0., 0.]).dist(nl.tensor([3., 4.]))\ntensor(5.)",
    )
    def dist(self, other: Tensor, p: float = 2) -> Tensor:
        return (self - other).norm(p)

    @_doc(
        "Sorted along the first dimension.",
        [],
        "Tensor: the sorted values.",
        ">>> nl.tensor([2., 1.]).msort()\ntensor([1., 2.])",
    )
    def msort(self) -> Tensor:
        return self.sort(0).values

    @_doc(
        "``self`` (unary plus).",
        [],
        "Tensor: this tensor.",
        ">>> nl.tensor([-1.]).positive()\ntensor([-1.])",
    )
    def positive(self) -> Tensor:
        out: Tensor = implementation("surface_functions.positive")(self)
        return out

    @_doc(
        "The covariance matrix of the variables in the rows.",
        [
            "correction (int): Default: 1.",
            "fweights (Tensor, optional): frequency weights.",
            "aweights (Tensor, optional): observation weights.",
        ],
        "Tensor: the covariance.",
        ">>> nl.tensor([[1., 2., 3.]]).cov()\ntensor(1.)",
    )
    def cov(
        self, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
    ) -> Tensor:
        out: Tensor = implementation("surface_functions.cov")(
            self, correction=correction, fweights=fweights, aweights=aweights
        )
        return out

    @_doc(
        "The correlation matrix of the variables in the rows.",
        [],
        "Tensor: the correlations.",
        ">>> nl.tensor([[1., 2.], [2., 1.]]).corrcoef()\ntensor([[ 1., -1.],\n        [-1.,  1.]])",
    )
    def corrcoef(self) -> Tensor:
        out: Tensor = implementation("surface_functions.corrcoef")(self)
        return out

    @_doc(
        "Elementwise maximum ignoring NaN.",
        ["other (Tensor): the other."],
        "Tensor: the result.",
        ">>> nl.tensor([float('nan')]).fmax(nl.tensor([1.]))\ntensor([1.])",
    )
    def fmax(self, other: Tensor) -> Tensor:
        out: Tensor = implementation("surface_functions.fmax")(self, other)
        return out

    @_doc(
        "Elementwise minimum ignoring NaN.",
        ["other (Tensor): the other."],
        "Tensor: the result.",
        ">>> nl.tensor([float('nan')]).fmin(nl.tensor([1.]))\ntensor([1.])",
    )
    def fmin(self, other: Tensor) -> Tensor:
        out: Tensor = implementation("surface_functions.fmin")(self, other)
        return out

    @_doc(
        "The Heaviside step with ``values`` at zero.",
        ["values (Tensor): the value at zero."],
        "Tensor: the result.",
        ">>> nl.tensor([0., 2.]).heaviside(nl.tensor([0.5]))\ntensor([0.5000, 1.0000])",
    )
    def heaviside(self, values: Tensor) -> Tensor:
        out: Tensor = implementation("surface_functions.heaviside")(self, values)
        return out

    @_doc(
        "Greatest common divisors, elementwise.",
        ["other (Tensor): the other integers."],
        "Tensor: the result.",
        ">>> nl.tensor([12, 9]).gcd(nl.tensor([8, 6]))\ntensor([4, 3])",
    )
    def gcd(self, other: Tensor) -> Tensor:
        return _make(np.gcd(self._data, _array(other)))

    @_doc(
        "Least common multiples, elementwise.",
        ["other (Tensor): the other integers."],
        "Tensor: the result.",
        ">>> nl.tensor([4, 3]).lcm(nl.tensor([6, 5]))\ntensor([12, 15])",
    )
    def lcm(self, other: Tensor) -> Tensor:
        return _make(np.lcm(self._data, _array(other)))

    @_doc(
        "``self * 2**other``.",
        ["other (Tensor): integer exponents."],
        "Tensor: the result.",
        ">>> nl.tensor([1.]).ldexp(nl.tensor([3]))\ntensor([8.])",
    )
    def ldexp(self, other: Tensor) -> Tensor:
        return self * (
            2.0 ** other.to(self.dtype) if self.is_floating_point() else 2.0 ** other.float()
        )

    @_doc(
        "Mantissas in [0.5, 1) and integer exponents, ``self = mantissa * 2**exponent``.",
        [],
        "A tuple ``(mantissa, exponent)``.",
        ">>> nl.tensor([8.]).frexp()\n(tensor([0.5000]), tensor([4], dtype=nnlite.int32))",
    )
    def frexp(self) -> tuple[Tensor, Tensor]:
        mantissa, exponent = np.frexp(self._data)
        return _make(mantissa), _make(exponent.astype(np.int32))

    @_doc(
        "``|self|`` with the sign of ``other``.",
        ["other (Tensor or number): the signs."],
        "Tensor: the result.",
        ">>> nl.tensor([1., 2.]).copysign(-1.)\ntensor([-1., -2.])",
    )
    def copysign(self, other: TensorOrScalar) -> Tensor:
        negative = np.signbit(
            np.broadcast_to(
                _array(other), np.broadcast_shapes(self._data.shape, np.shape(_array(other)))
            )
        )
        magnitude = (
            self.abs().expand(*negative.shape) if negative.shape != self._data.shape else self.abs()
        )
        result = magnitude.where(~negative, -magnitude)
        if isinstance(other, _op.Tensor) and other.requires_grad:
            # as PyTorch, ``other`` gets a (zero) gradient
            result = result + (other * 0).masked_fill(~other.isfinite(), 0.0)
        return result

    @_doc(
        "The next representable value after ``self`` toward ``other``.",
        ["other (Tensor): the direction."],
        "Tensor: the result.",
        ">>> nl.tensor([1.], dtype=nl.float64).nextafter(nl.tensor([2.], dtype=nl.float64)) > 1\ntensor([True])",
    )
    def nextafter(self, other: Tensor) -> Tensor:
        return _make(np.nextafter(self._data, _array(other)).astype(self._data.dtype))

    @_doc(
        "The modified Bessel function of the first kind, order 0.",
        [],
        "Tensor: the result.",
        ">>> nl.tensor([0.]).i0()\ntensor([1.])",
    )
    def i0(self) -> Tensor:
        return ew.BesselI0.apply(self)

    @_doc(
        "The multivariate log-gamma function of dimension ``p``.",
        ["p (int): the dimension."],
        "Tensor: the result.",
        ">>> nl.tensor([2.]).mvlgamma(1)\ntensor([0.])",
    )
    def mvlgamma(self, p: int) -> Tensor:
        out: Tensor = implementation("special.multigammaln")(self, p)
        return out

    @_doc(
        "Left shift of integers.",
        ["other (Tensor or int): the shift."],
        "Tensor: the result.",
        ">>> nl.tensor([1, 2]).bitwise_left_shift(2)\ntensor([4, 8])",
    )
    def bitwise_left_shift(self, other: TensorOrScalar) -> Tensor:
        return _make(np.left_shift(self._data, _array(other)).astype(self._data.dtype))

    @_doc(
        "Arithmetic right shift of integers.",
        ["other (Tensor or int): the shift."],
        "Tensor: the result.",
        ">>> nl.tensor([8, -8]).bitwise_right_shift(2)\ntensor([ 2, -2])",
    )
    def bitwise_right_shift(self, other: TensorOrScalar) -> Tensor:
        return _make(np.right_shift(self._data, _array(other)).astype(self._data.dtype))

    @_doc(
        "A copy with ``src`` reduced into it at ``index`` along ``dim``: ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``.",
        [
            _DIM,
            "index (Tensor): int64 positions.",
            "src (Tensor): the values.",
            "reduce (str): the reduction.",
            "include_self (bool): count this tensor's values. Default: True.",
        ],
        "Tensor: the result, differentiable for every reduction.",
        ">>> nl.zeros(2).scatter_reduce(0, nl.tensor([0, 0, 1]), nl.tensor([1., 3., 5.]), 'amax', include_self=False)\ntensor([3., 5.])",
    )
    def scatter_reduce(
        self, dim: int, index: Tensor, src: Tensor, reduce: str, *, include_self: bool = True
    ) -> Tensor:
        if reduce not in ("sum", "prod", "mean", "amax", "amin"):
            raise RuntimeError(
                f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
            )
        idx = _array(index)
        dim = wrap_dim(dim, self.ndim)
        if reduce in ("sum", "mean"):
            base = self if include_self else self.scatter(dim, idx, 0.0)
            total = base.scatter_add(dim, idx, src)
            if reduce == "sum":
                return total
            counts = np.zeros(self._data.shape, dtype=self._data.dtype)
            _scatter_counts(counts, dim, idx)
            counts = counts + (1 if include_self else 0)
            out = total / _make(np.maximum(counts, 1))
            return out if self.is_floating_point() else out.floor().to(self.dtype)
        data = self._data.copy()
        values = _array(src)
        touched = np.zeros(data.shape, dtype=bool)
        combine = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
        for position in np.ndindex(*idx.shape):
            target = list(position)
            target[dim] = idx[position]
            target = tuple(target)
            if not include_self and not touched[target]:
                data[target] = values[position]
            else:
                data[target] = combine(data[target], values[position])
            touched[target] = True
        differentiable = isinstance(src, _op.Tensor) and (self.requires_grad or src.requires_grad)
        if not (differentiable and is_grad_enabled() and self.is_floating_point()):
            return _make(data)
        part = src[tuple(slice(0, n) for n in idx.shape)]  # the part of src that index reaches
        targets = _flat_targets(idx, dim, self._data.shape)
        if reduce == "prod":
            return _scatter_prod(self, part, targets, touched, include_self)
        return _scatter_extreme(self, part, idx, dim, targets, data, touched, include_self)

    @_doc(
        "A copy with ``values`` written (or added) at the positions ``indices`` (a tuple of index tensors).",
        [
            "indices (tuple of Tensors): the positions.",
            "values (Tensor): the values.",
            "accumulate (bool): add instead. Default: False.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(3).index_put((nl.tensor([0, 0]),), nl.tensor([1., 2.]), accumulate=True)\ntensor([3., 0., 0.])",
    )
    def index_put(
        self, indices: Sequence[Tensor], values: Tensor, accumulate: bool = False
    ) -> Tensor:
        key = tuple(_array(i) for i in indices)
        flat = np.arange(self._data.size).reshape(self._data.shape)[key]
        values = (
            values
            if isinstance(values, _op.Tensor)
            else _make(np.asarray(values, self._data.dtype))
        )
        source = values.expand(*flat.shape) if tuple(values.shape) != flat.shape else values
        target = self.reshape(-1)
        if accumulate:
            return target.scatter_add(0, flat.reshape(-1), source.reshape(-1)).reshape(self.shape)
        return target.scatter(0, flat.reshape(-1), source.reshape(-1)).reshape(self.shape)

    @_doc(
        "A copy with ``source`` written at the flat positions ``index``.",
        [
            "index (Tensor): flat int64 positions.",
            "source (Tensor): the values.",
            "accumulate (bool): add instead. Default: False.",
        ],
        "Tensor: the result.",
        ">>> nl.zeros(2, 2).put(nl.tensor([3]), nl.tensor([9.]))\ntensor([[0., 0.],\n        [0., 9.]])",
    )
    def put(self, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
        flat = self.reshape(-1)
        positions = np.asarray(_array(index)).reshape(-1) % max(self._data.size, 1)
        if accumulate:
            return flat.scatter_add(0, positions, source.reshape(-1)).reshape(self.shape)
        return flat.scatter(0, positions, source.reshape(-1)).reshape(self.shape)

    @_doc(
        "Each slice along ``dim`` rescaled so that its ``p``-norm is at most ``maxnorm``.",
        ["p (float): the norm.", _DIM, "maxnorm (float): the bound."],
        "Tensor: the result.",
        ">>> nl.tensor([[3., 4.], [0.3, 0.4]]).renorm(2, 0, 1.)\ntensor([[0.6000, 0.8000],\n        [0.3000, 0.4000]])",
    )
    def renorm(self, p: float, dim: int, maxnorm: float) -> Tensor:
        dim = wrap_dim(dim, self.ndim)
        others = tuple(d for d in range(self.ndim) if d != dim)
        norms = self.norm(p, others, keepdim=True)
        # the scale depends on the slice's norm, so it carries a gradient (as PyTorch's)
        scale = maxnorm / (norms + 1e-7)
        out: Tensor = self * scale.where(norms._data > maxnorm, 1.0)
        return out

    @_doc(
        "The number of dimensions (``dim()``).",
        [],
        "int: the count.",
        ">>> nl.zeros(2, 3).ndimension()\n2",
    )
    def ndimension(self) -> int:
        return int(self._data.ndim)

    @property
    def nbytes(self) -> int:
        """The bytes the elements take.

        Examples:
            >>> nl.zeros(2, dtype=nl.float64).nbytes
            16
        """
        return int(self._data.nbytes)

    @property
    def itemsize(self) -> int:
        """The bytes one element takes.

        Examples:
            >>> nl.zeros(1).itemsize
            4
        """
        return int(self._data.itemsize)

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is.

        Examples:
            >>> nl.zeros(1).output_nr
            0
        """
        return int(getattr(self, "_output_nr", 0))

    @_doc(
        "Whether this tensor was made in inference mode (never in nnlite).",
        [],
        "bool: False.",
        ">>> nl.zeros(1).is_inference()\nFalse",
    )
    def is_inference(self) -> bool:
        return False

    @_doc(
        "A copy as int16.",
        ["memory_format: accepted."],
        "Tensor: int16.",
        ">>> nl.tensor([1.5]).short()\ntensor([1], dtype=nnlite.int16)",
    )
    def short(self, memory_format: Any = None) -> Tensor:
        from .dtypes import int16

        return self.to(int16)

    @_doc(
        "A copy as int8.",
        ["memory_format: accepted."],
        "Tensor: int8.",
        ">>> nl.tensor([1.5]).char()\ntensor([1], dtype=nnlite.int8)",
    )
    def char(self, memory_format: Any = None) -> Tensor:
        from .dtypes import int8

        return self.to(int8)

    @_doc(
        "0/1 samples with this tensor's probabilities (``nl.bernoulli``).",
        [
            "p (float, optional): one probability instead.",
            "generator (numpy.random.Generator, optional): the generator.",
        ],
        "Tensor: the samples.",
        ">>> nl.tensor([1.]).bernoulli()\ntensor([1.])",
    )
    def bernoulli(
        self, p: float | None = None, *, generator: np.random.Generator | None = None
    ) -> Tensor:
        out: Tensor = implementation("surface_functions.bernoulli")(self, p, generator=generator)
        return out

    @_doc(
        "The main diagonal (of the first two dimensions) filled with ``fill_value``, in place.",
        [
            "fill_value (number): the value.",
            "wrap (bool): continue below the square part of a tall matrix. Default: False.",
        ],
        "Tensor: this tensor.",
        ">>> nl.zeros(2, 2).fill_diagonal_(1.)\ntensor([[1., 0.],\n        [0., 1.]])",
    )
    def fill_diagonal_(self, fill_value: float, wrap: bool = False) -> Tensor:
        def fill(a: np.ndarray) -> None:
            if a.ndim == 2:
                np.fill_diagonal(a, fill_value, wrap=wrap)
            else:
                n = min(a.shape)
                a[(np.arange(n),) * a.ndim] = fill_value

        return self._array_inplace(fill)

    def _random_fill(
        self,
        draw: Callable[[np.random.Generator, tuple[int, ...]], np.ndarray],
        generator: np.random.Generator | None = None,
    ) -> Tensor:
        from .random import default_generator

        gen = generator or default_generator
        return self._array_inplace(lambda a: a.__setitem__(..., draw(gen, a.shape)))

    @_doc(
        "Filled with exponential samples of rate ``lambd``, in place.",
        ["lambd (float): the rate. Default: 1."],
        "Tensor: this tensor.",
        ">>> (nl.zeros(3).exponential_() >= 0).all()\ntensor(True)",
    )
    def exponential_(
        self, lambd: float = 1.0, *, generator: np.random.Generator | None = None
    ) -> Tensor:
        return self._random_fill(lambda g, s: g.exponential(1.0 / lambd, s), generator)

    @_doc(
        "Filled with Cauchy samples, in place.",
        ["median (float): Default: 0.", "sigma (float): Default: 1."],
        "Tensor: this tensor.",
        ">>> nl.zeros(3).cauchy_().shape\nnnlite.Size([3])",
    )
    def cauchy_(
        self,
        median: float = 0.0,
        sigma: float = 1.0,
        *,
        generator: np.random.Generator | None = None,
    ) -> Tensor:
        return self._random_fill(lambda g, s: median + sigma * g.standard_cauchy(s), generator)

    @_doc(
        "Filled with log-normal samples, in place.",
        ["mean (float): of the log. Default: 1.", "std (float): of the log. Default: 2."],
        "Tensor: this tensor.",
        ">>> (nl.zeros(3).log_normal_() > 0).all()\ntensor(True)",
    )
    def log_normal_(
        self, mean: float = 1.0, std: float = 2.0, *, generator: np.random.Generator | None = None
    ) -> Tensor:
        return self._random_fill(lambda g, s: g.lognormal(mean, std, s), generator)

    @_doc(
        "Filled with geometric samples (trials to the first success), in place.",
        ["p (float): the success probability."],
        "Tensor: this tensor.",
        ">>> (nl.zeros(3).geometric_(0.5) >= 1).all()\ntensor(True)",
    )
    def geometric_(self, p: float, *, generator: np.random.Generator | None = None) -> Tensor:
        return self._random_fill(lambda g, s: g.geometric(p, s), generator)

    @_doc(
        "Filled with integers from ``[from_, to)`` (``[0, to)`` with one argument), in place.",
        ["from_ (int): the low end, or the high end alone.", "to (int, optional): the high end."],
        "Tensor: this tensor.",
        ">>> nl.zeros(3).random_(1, 2)\ntensor([1., 1., 1.])",
    )
    def random_(
        self,
        from_: int = 0,
        to: int | None = None,
        *,
        generator: np.random.Generator | None = None,
        **keywords: Any,
    ) -> Tensor:
        from .creation_keywords import from_keyword

        from_ = from_keyword("random_", from_, keywords)
        if to is None:
            from_, to = 0, (from_ if from_ else 2**24)
        return self._random_fill(lambda g, s: g.integers(from_, to, s), generator)


class _svd_result(return_types._ReturnType):
    """What ``Tensor.svd`` returns: ``(U, S, V)``."""

    __slots__ = ()
    _field_names = ("U", "S", "V")

    @property
    def U(self) -> Tensor:
        value: Tensor = self[0]
        return value

    @property
    def S(self) -> Tensor:
        value: Tensor = self[1]
        return value

    @property
    def V(self) -> Tensor:
        value: Tensor = self[2]
        return value


_svd_result.__name__ = _svd_result.__qualname__ = "svd"


def _flat_targets(index: np.ndarray, dim: int, shape: tuple[int, ...]) -> np.ndarray:
    """The flat position in a tensor of ``shape`` that each element of ``index`` scatters to."""
    grid: list[np.ndarray] = list(np.indices(index.shape))
    grid[dim] = index
    return np.ravel_multi_index(tuple(grid), shape).reshape(-1)


def _scatter_prod(
    self: Tensor, part: Tensor, targets: np.ndarray, touched: np.ndarray, include_self: bool
) -> Tensor:
    """``scatter_reduce(..., 'prod')`` as a product of differentiable factors: the k-th value
    reaching each position (in scan order) forms the k-th factor, so the multiplications run in the
    forward's order (same bits) and zeros get their gradient by the product rule, to any order."""
    order = np.argsort(targets, kind="stable")
    ranked = targets[order]
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - np.searchsorted(ranked, ranked)
    flat, values = self.reshape(-1), part.reshape(-1)
    out = flat if include_self else flat.masked_fill(_make(touched.reshape(-1)), 1.0)
    ones = _make(np.ones(flat.shape[0], dtype=self._data.dtype))
    for k in range(int(rank.max(initial=-1)) + 1):
        chosen = np.flatnonzero(rank == k)
        out = out * ones.scatter(0, targets[chosen], values[chosen])
    return out.reshape(self.shape)


def _scatter_extreme(
    self: Tensor,
    part: Tensor,
    index: np.ndarray,
    dim: int,
    targets: np.ndarray,
    result: np.ndarray,
    touched: np.ndarray,
    include_self: bool,
) -> Tensor:
    """``result`` of ``scatter_reduce(..., 'amax' / 'amin')`` with PyTorch's gradient: shared
    evenly among the values equal to the result (self counted in the share even when
    ``include_self`` is False, as PyTorch does, but then given none)."""
    self_is = self._data == result
    src_is = part._data == np.take_along_axis(result, index, dim)
    ties = self_is.astype(result.dtype).reshape(-1)
    np.add.at(ties, targets[src_is.reshape(-1)], 1)
    ties = ties.reshape(result.shape)
    with np.errstate(divide="ignore"):
        self_share = np.where(self_is & (include_self | ~touched), 1 / ties, 0).astype(result.dtype)
        src_share = np.where(src_is, 1 / np.take_along_axis(ties, index, dim), 0)
    self_part = self.masked_fill(_make(self_share == 0), 0.0) * _make(self_share)
    src_part = part.masked_fill(_make(~src_is), 0.0) * _make(src_share.astype(result.dtype))
    shared = self_part.scatter_add(dim, index, src_part)  # the result, up to rounding
    # the exact result, with the gradient of ``shared``; infinite results are ``shared`` exactly
    with np.errstate(invalid="ignore"):
        exact = _make(result) + (shared - shared.detach())
    return exact.where(_make(np.isfinite(result)), shared)


def _scatter_counts(counts: np.ndarray, dim: int, index: np.ndarray) -> None:
    for position in np.ndindex(*index.shape):
        target = list(position)
        target[dim] = index[position]
        counts[tuple(target)] += 1


for _name in (
    "scatter_reduce",
    "index_put",
    "put",
    "renorm",
    "gcd",
    "lcm",
    "ldexp",
    "copysign",
    "nextafter",
    "i0",
    "mvlgamma",
    "bitwise_left_shift",
    "bitwise_right_shift",
    "heaviside",
):
    setattr(TensorSurfaceMore, _name + "_", _inplace(_name))
