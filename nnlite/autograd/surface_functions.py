"""``torch``-level functions that are not a method of one tensor: stacking helpers, index grids,
pairwise distances, sampling, numeric limits, constants, PyTorch's aliases and the global flags
that CPU scripts set. Composites of Tensor methods, so their gradients need no code."""

from __future__ import annotations

import builtins
import itertools
import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import op as _op
from .creation import cat, stack, tensor
from .creation_keywords import creation_keywords
from .dtypes import float32, to_numpy_dtype
from .dtypes import int64 as _int64
from .providers import implementation, provide
from .random import default_generator
from .tensor import Tensor
from .tensor_surface import _doc

if TYPE_CHECKING:
    from .._typing import Device, DTypeLike, TensorOrScalar
    from .sizes import Size

__all__ = [
    "e", "pi", "inf", "nan", "newaxis",
    "atleast_1d", "atleast_2d", "atleast_3d", "hstack", "vstack", "dstack", "column_stack",
    "row_stack", "concatenate", "block_diag", "cartesian_prod", "combinations",
    "broadcast_tensors", "broadcast_shapes", "tril_indices", "triu_indices", "vander", "logspace",
    "scalar_tensor", "cdist", "dist", "chain_matmul", "trapezoid", "trapz", "cov", "corrcoef",
    "fmax", "fmin", "heaviside", "normal", "bernoulli", "poisson", "randint_like", "finfo", "iinfo",
    "is_floating_point", "is_nonzero", "is_same_size", "is_signed", "can_cast", "unravel_index",
    "absolute", "negative", "positive", "multiply", "subtract", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "rsub", "msort", "seed",
    "use_deterministic_algorithms", "are_deterministic_algorithms_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
    "get_deterministic_debug_mode", "set_float32_matmul_precision", "get_float32_matmul_precision",
    "set_num_interop_threads", "get_num_interop_threads", "set_flush_denormal", "set_warn_always",
    "is_warn_always_enabled", "fill", "range", "split_with_sizes", "cumulative_trapezoid",
    "hann_window", "hamming_window", "bartlett_window", "blackman_window", "kaiser_window",
    "frobenius_norm", "nuclear_norm", "asarray", "is_inference", "get_device",
]  # fmt: skip

e = math.e
pi = math.pi
inf = math.inf
nan = math.nan
newaxis = None


def _tensors(tensors: Any) -> list[Tensor]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return [t if isinstance(t, Tensor) else tensor(t) for t in tensors]


def _at_least(n: int, tensors: Any) -> Any:
    out = []
    for t in _tensors(tensors):
        while t.ndim < n:
            t = t.unsqueeze(0) if t.ndim < 2 or n == 2 else t.unsqueeze(-1)
        out.append(t)
    return (
        out[0]
        if len(out) == 1 and not (len(tensors) == 1 and isinstance(tensors[0], (list, tuple)))
        else tuple(out)
    )


@_doc(
    "Tensors with at least one dimension.",
    ["*tensors (Tensor): the tensors (or one sequence)."],
    "Tensor or tuple of Tensors.",
    ">>> nl.atleast_1d(nl.tensor(1.)).shape\nnnlite.Size([1])",
)
def atleast_1d(*tensors: Any) -> Any:
    return _at_least(1, tensors)


@_doc(
    "Tensors with at least two dimensions (a 1-D tensor becomes a row).",
    ["*tensors (Tensor): the tensors (or one sequence)."],
    "Tensor or tuple of Tensors.",
    ">>> nl.atleast_2d(nl.tensor([1., 2.])).shape\nnnlite.Size([1, 2])",
)
def atleast_2d(*tensors: Any) -> Any:
    return _at_least(2, tensors)


@_doc(
    "Tensors with at least three dimensions.",
    ["*tensors (Tensor): the tensors (or one sequence)."],
    "Tensor or tuple of Tensors.",
    ">>> nl.atleast_3d(nl.tensor([1., 2.])).shape\nnnlite.Size([1, 2, 1])",
)
def atleast_3d(*tensors: Any) -> Any:
    out = []
    for t in _tensors(tensors):
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return (
        out[0]
        if len(out) == 1 and not (len(tensors) == 1 and isinstance(tensors[0], (list, tuple)))
        else tuple(out)
    )


@_doc(
    "Concatenated column-wise (along dimension 1; 0 for 1-D tensors).",
    [
        "tensors (sequence of Tensors): the tensors.",
        "out (Tensor, optional): ignored unless given.",
    ],
    "Tensor: the result.",
    ">>> nl.hstack([nl.tensor([1]), nl.tensor([2])])\ntensor([1, 2])",
)
def hstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    ts = atleast_1d(list(tensors))
    return cat(ts, 0 if ts[0].ndim == 1 else 1, out=out)


@_doc(
    "Concatenated row-wise, 1-D tensors as rows.",
    [
        "tensors (sequence of Tensors): the tensors.",
        "out (Tensor, optional): a tensor to write into.",
    ],
    "Tensor: the result.",
    ">>> nl.vstack([nl.tensor([1, 2]), nl.tensor([3, 4])]).shape\nnnlite.Size([2, 2])",
)
def vstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    return cat(atleast_2d(list(tensors)), 0, out=out)


row_stack = vstack


@_doc(
    "Concatenated depth-wise (dimension 2).",
    [
        "tensors (sequence of Tensors): the tensors.",
        "out (Tensor, optional): a tensor to write into.",
    ],
    "Tensor: the result.",
    ">>> nl.dstack([nl.tensor([1, 2]), nl.tensor([3, 4])]).shape\nnnlite.Size([1, 2, 2])",
)
def dstack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    return cat(atleast_3d(list(tensors)), 2, out=out)


@_doc(
    "1-D tensors as columns, side by side.",
    [
        "tensors (sequence of Tensors): the tensors.",
        "out (Tensor, optional): a tensor to write into.",
    ],
    "Tensor: the result.",
    ">>> nl.column_stack([nl.tensor([1, 2]), nl.tensor([3, 4])])\ntensor([[1, 3],\n        [2, 4]])",
)
def column_stack(tensors: Sequence[Tensor], *, out: Tensor | None = None) -> Tensor:
    cols = [t.reshape(-1, 1) if t.ndim <= 1 else t for t in _tensors([tensors])]
    return cat(cols, 1, out=out)


@_doc(
    "``cat`` under NumPy's name.",
    [
        "tensors (sequence of Tensors): the tensors.",
        "dim (int): Default: 0.",
        "out (Tensor, optional): a tensor to write into.",
    ],
    "Tensor: the result.",
    ">>> nl.concatenate([nl.tensor([1]), nl.tensor([2])])\ntensor([1, 2])",
)
def concatenate(
    tensors: Sequence[Tensor], dim: int = 0, *, out: Tensor | None = None, axis: int | None = None
) -> Tensor:
    return cat(tensors, dim if axis is None else axis, out=out)


@_doc(
    "A block-diagonal matrix of the given matrices.",
    ["*tensors (Tensor): 0-, 1- or 2-D blocks."],
    "Tensor: the matrix.",
    ">>> nl.block_diag(nl.tensor([[1]]), nl.tensor([[2, 3]]))\ntensor([[1, 0, 0],\n        [0, 2, 3]])",
)
def block_diag(*tensors: Tensor) -> Tensor:
    blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    cols = sum(b.shape[1] for b in blocks)
    rows = []
    left = 0
    for b in blocks:
        pad_l = _zeros_like_rows(b, left)
        pad_r = _zeros_like_rows(b, cols - left - b.shape[1])
        rows.append(cat([pad_l, b, pad_r], 1))
        left += b.shape[1]
    return cat(rows, 0) if rows else tensor(np.zeros((0, 0), np.float32))


def _zeros_like_rows(b: Tensor, width: int) -> Tensor:
    return _op.make_tensor(np.zeros((b.shape[0], width), dtype=b._data.dtype))


@_doc(
    "The Cartesian product of 1-D tensors, one row per combination.",
    ["*tensors (Tensor): 1-D tensors."],
    "Tensor: ``(prod of lengths, len(tensors))``.",
    ">>> nl.cartesian_prod(nl.tensor([1, 2]), nl.tensor([3]))\ntensor([[1, 3],\n        [2, 3]])",
)
def cartesian_prod(*tensors: Tensor) -> Tensor:
    if len(tensors) == 1:
        return tensors[0]
    from .tensor_functions import meshgrid

    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


@_doc(
    "The length-``r`` combinations of a 1-D tensor's elements.",
    ["input (Tensor): 1-D.", "r (int): Default: 2.", "with_replacement (bool): Default: False."],
    "Tensor: ``(count, r)``.",
    ">>> nl.combinations(nl.tensor([1, 2, 3]))\ntensor([[1, 2],\n        [1, 3],\n        [2, 3]])",
)
def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(pick(builtins.range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    if idx.size == 0:
        return input[np.zeros((0, r), dtype=np.int64)]
    return input[idx]


@_doc(
    "The tensors broadcast to one shape.",
    ["*tensors (Tensor): the tensors."],
    "tuple of Tensors: views.",
    ">>> [t.shape for t in nl.broadcast_tensors(nl.ones(2, 1), nl.ones(3))]\n[nnlite.Size([2, 3]), nnlite.Size([2, 3])]",
)
def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    ts = _tensors(tensors)
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in ts))
    return tuple(t.expand(*shape) for t in ts)


@_doc(
    "The shape the given shapes broadcast to.",
    ["*shapes (int or tuple of ints): the shapes."],
    "nl.Size: the broadcast shape.",
    ">>> nl.broadcast_shapes((2, 1), (3,))\nnnlite.Size([2, 3])",
)
def broadcast_shapes(*shapes: int | Sequence[int]) -> Size:
    from .sizes import Size

    try:
        return Size(
            np.broadcast_shapes(*((s,) if isinstance(s, int) else tuple(s) for s in shapes))
        )
    except ValueError:
        raise RuntimeError(
            f"Shape mismatch: objects cannot be broadcast to a single shape: {shapes}"
        ) from None


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype: Any) -> Tensor:
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return _op.make_tensor(np.stack([r, c]).astype(to_numpy_dtype(dtype)))


@_doc(
    "The (row, column) indices of the lower triangle of a ``row`` x ``col`` matrix.",
    [
        "row (int): rows.",
        "col (int): columns.",
        "offset (int): the diagonal. Default: 0.",
        "dtype (nl.dtype): Default: int64.",
    ],
    "Tensor: ``(2, N)``.",
    ">>> nl.tril_indices(2, 2)\ntensor([[0, 1, 1],\n        [0, 0, 1]])",
)
@creation_keywords("layout", "pin_memory")
def tril_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: DTypeLike = _int64,
    device: Device = None,
) -> Tensor:
    return _triangle_indices(row, col, offset, True, dtype)


@_doc(
    "The (row, column) indices of the upper triangle of a ``row`` x ``col`` matrix.",
    [
        "row (int): rows.",
        "col (int): columns.",
        "offset (int): the diagonal. Default: 0.",
        "dtype (nl.dtype): Default: int64.",
    ],
    "Tensor: ``(2, N)``.",
    ">>> nl.triu_indices(2, 2)\ntensor([[0, 0, 1],\n        [0, 1, 1]])",
)
@creation_keywords("layout", "pin_memory")
def triu_indices(
    row: int,
    col: int,
    offset: int = 0,
    *,
    dtype: DTypeLike = _int64,
    device: Device = None,
) -> Tensor:
    return _triangle_indices(row, col, offset, False, dtype)


@_doc(
    "The Vandermonde matrix: columns are powers of ``x`` (decreasing unless ``increasing``).",
    [
        "x (Tensor): 1-D.",
        "N (int, optional): columns. Default: ``len(x)``.",
        "increasing (bool): Default: False.",
    ],
    "Tensor: ``(len(x), N)``.",
    ">>> nl.vander(nl.tensor([1, 2]), N=3)\ntensor([[1, 1, 1],\n        [4, 2, 1]])",
)
def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    n = x.shape[0] if N is None else N
    powers = builtins.range(n) if increasing else builtins.range(n - 1, -1, -1)
    cols = [x**p if p else x * 0 + 1 for p in powers]
    return stack(cols, 1) if cols else x.reshape(-1, 0)


@_doc(
    "``steps`` points from ``base**start`` to ``base**end``, evenly spaced in the exponent.",
    [
        "start (number): the first exponent.",
        "end (number): the last.",
        "steps (int): how many.",
        "base (float): Default: 10.",
        "dtype (nl.dtype, optional): Default: float32.",
        "requires_grad (bool): Default: False.",
    ],
    "Tensor: the points.",
    ">>> nl.logspace(0, 2, 3)\ntensor([  1.,  10., 100.])",
)
@creation_keywords("out", "layout", "pin_memory")
def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    values = np.logspace(start, end, steps, base=base)
    return tensor(values, dtype=dtype or float32, requires_grad=requires_grad)


@_doc(
    "A 0-d tensor holding ``s``.",
    ["s (number): the value.", "dtype (nl.dtype, optional): Default: float32."],
    "Tensor: 0-d.",
    ">>> nl.scalar_tensor(3)\ntensor(3.)",
)
@creation_keywords("layout", "pin_memory")
def scalar_tensor(
    s: float,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return tensor(float(s), dtype=dtype or float32, requires_grad=requires_grad)


@_doc(
    "The ``p``-norm distances between each row of ``x1`` and each row of ``x2``.",
    [
        "x1 (Tensor): ``(..., P, M)``.",
        "x2 (Tensor): ``(..., R, M)``.",
        "p (float): Default: 2.",
        "compute_mode (str, optional): accepted for compatibility.",
    ],
    "Tensor: ``(..., P, R)``.",
    ">>> nl.cdist(nl.tensor([[0., 0.]]), nl.tensor([[3., 4.]]))\ntensor([[5.]])",
)
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(
            f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}"
        )
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return diff.norm(p, -1)


@_doc(
    "The ``p``-norm of ``input - other``.",
    ["input (Tensor): a tensor.", "other (Tensor): the other.", "p (float): Default: 2."],
    "Tensor: 0-d.",
    ">>> nl.dist(nl.tensor([0., 0.]), nl.tensor([3., 4.]))\ntensor(5.)",
)
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    return (input - other).norm(p)


@_doc(
    "The product of a chain of matrices.",
    ["*matrices (Tensor): 2-D tensors."],
    "Tensor: the product.",
    ">>> nl.chain_matmul(nl.eye(2), nl.ones(2, 1)).shape\nnnlite.Size([2, 1])",
)
def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor:
    result = matrices[0]
    for m in matrices[1:]:
        result = result @ m
    return result


@_doc(
    "The trapezoid rule along ``dim`` (spacing ``dx`` or sample points ``x``).",
    [
        "y (Tensor): the values.",
        "x (Tensor, optional): the sample points.",
        "dx (float, optional): the spacing. Default: 1.",
        "dim (int): Default: -1.",
    ],
    "Tensor: the integral.",
    ">>> nl.trapezoid(nl.tensor([1., 2., 3.]))\ntensor(4.)",
)
def trapezoid(
    y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    n = y.shape[dim]
    mid = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) / 2
    if x is not None:
        steps = x.diff(dim=dim if x.ndim == y.ndim else -1)
        return (mid * steps).sum(dim)
    return mid.sum(dim) * (1.0 if dx is None else dx)


trapz = trapezoid


@_doc(
    "The covariance matrix of the variables in the rows of ``input``.",
    [
        "input (Tensor): ``(variables, observations)`` or 1-D.",
        "correction (int): Default: 1.",
        "fweights (Tensor, optional): integer frequency weights.",
        "aweights (Tensor, optional): observation weights.",
    ],
    "Tensor: the covariance.",
    ">>> nl.cov(nl.tensor([[1., 2., 3.]]))\ntensor(1.)",
)
def cov(
    input: Tensor,
    *,
    correction: int = 1,
    fweights: Tensor | None = None,
    aweights: Tensor | None = None,
) -> Tensor:
    x = input if input.ndim == 2 else input.reshape(1, -1)
    w = None
    if fweights is not None:
        w = fweights.to(x.dtype)
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        n = x.shape[1]
        mean = x.mean(1, keepdim=True)
        c = x - mean
        out = (c @ c.t()) / (n - correction)
    else:
        total = w.sum()
        mean = (x * w).sum(1, keepdim=True) / total
        c = x - mean
        if correction == 0:
            norm = total
        elif aweights is None:
            norm = total - correction
        else:
            norm = total - correction * (w * aweights).sum() / total
        out = (c * w) @ c.t() / norm
    return out.reshape(()) if input.ndim < 2 or x.shape[0] == 1 else out


@_doc(
    "The Pearson correlation matrix of the variables in the rows of ``input``.",
    ["input (Tensor): ``(variables, observations)``."],
    "Tensor: the correlations.",
    ">>> nl.corrcoef(nl.tensor([[1., 2., 3.], [3., 2., 1.]]))\ntensor([[ 1., -1.],\n        [-1.,  1.]])",
)
def corrcoef(input: Tensor) -> Tensor:
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal().sqrt()
    return (c / d.unsqueeze(1) / d.unsqueeze(0)).clamp(-1, 1)


def _nan_aware(pick: np.ufunc) -> Callable[..., Tensor]:
    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        a, b = input._data, other._data if isinstance(other, Tensor) else np.asarray(other)
        take_a = pick(a, b) | np.isnan(b)
        from .creation import where

        return where(take_a, input, other)

    return fn


fmax = _doc(
    "The elementwise maximum, NaN ignored where the other is a number.",
    ["input (Tensor): a tensor.", "other (Tensor): the other."],
    "Tensor: the result.",
    ">>> nl.fmax(nl.tensor([1., float('nan')]), nl.tensor([2., 0.]))\ntensor([2., 0.])",
)(_nan_aware(np.greater_equal))
fmin = _doc(
    "The elementwise minimum, NaN ignored where the other is a number.",
    ["input (Tensor): a tensor.", "other (Tensor): the other."],
    "Tensor: the result.",
    ">>> nl.fmin(nl.tensor([1., float('nan')]), nl.tensor([2., 0.]))\ntensor([1., 0.])",
)(_nan_aware(np.less_equal))
fmax.__name__, fmin.__name__ = "fmax", "fmin"


@_doc(
    "The Heaviside step: 0 below zero, 1 above, ``values`` at zero.",
    ["input (Tensor): the points.", "values (Tensor): the value at zero."],
    "Tensor: the result.",
    ">>> nl.heaviside(nl.tensor([-1., 0., 2.]), nl.tensor([0.5]))\ntensor([0.0000, 0.5000, 1.0000])",
)
def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor:
    return _op.make_tensor(
        np.heaviside(input._data, values._data).astype(np.result_type(input._data, values._data))
    )


@_doc(
    "Samples of normal distributions (``mean`` and ``std`` numbers or tensors).",
    [
        "mean (float or Tensor): the means.",
        "std (float or Tensor): the standard deviations. Default: 1.",
        "size (tuple of ints, optional): the shape when both are numbers.",
        "generator (numpy.random.Generator, optional): the generator.",
    ],
    "Tensor: the samples.",
    ">>> nl.normal(0., 1., size=(2,)).shape\nnnlite.Size([2])",
)
def normal(
    mean: float | Tensor = 0.0,
    std: float | Tensor = 1.0,
    size: Sequence[int] | None = None,
    *,
    generator: np.random.Generator | None = None,
    out: Tensor | None = None,
    dtype: DTypeLike | None = None,
    requires_grad: bool = False,
) -> Tensor:
    rng = generator if generator is not None else default_generator
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if (np.asarray(s) < 0).any():
        raise RuntimeError("normal expects all elements of std >= 0.0")
    shape = tuple(size) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    kind = next(
        (t._data.dtype for t in (mean, std) if isinstance(t, Tensor)),
        to_numpy_dtype(dtype or float32),
    )
    return tensor(rng.normal(m, s, shape).astype(kind), requires_grad=requires_grad)


@_doc(
    "0/1 samples with the probabilities in ``input``.",
    [
        "input (Tensor): probabilities.",
        "p (float, optional): one probability for all instead.",
        "generator (numpy.random.Generator, optional): the generator.",
    ],
    "Tensor: of ``input``'s shape and dtype.",
    ">>> nl.bernoulli(nl.tensor([0., 1.]))\ntensor([0., 1.])",
)
def bernoulli(
    input: Tensor,
    p: float | None = None,
    *,
    generator: np.random.Generator | None = None,
    out: Tensor | None = None,
) -> Tensor:
    rng = generator if generator is not None else default_generator
    probs = input._data if p is None else np.full(input._data.shape, p)
    return _op.make_tensor((rng.random(probs.shape) < probs).astype(input._data.dtype))


@_doc(
    "Poisson samples with the rates in ``input``.",
    ["input (Tensor): the rates.", "generator (numpy.random.Generator, optional): the generator."],
    "Tensor: of ``input``'s shape and dtype.",
    ">>> nl.poisson(nl.zeros(2))\ntensor([0., 0.])",
)
def poisson(input: Tensor, generator: np.random.Generator | None = None) -> Tensor:
    rng = generator if generator is not None else default_generator
    return _op.make_tensor(rng.poisson(input._data).astype(input._data.dtype))


@_doc(
    "Random integers in ``[low, high)`` of ``input``'s shape.",
    ["input (Tensor): the shape and dtype.", "low (int): Default: 0.", "high (int): the bound."],
    "Tensor: the integers.",
    ">>> nl.randint_like(nl.zeros(2), 1, 2)\ntensor([1., 1.])",
)
def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    dtype: DTypeLike | None = None,
    requires_grad: bool = False,
    **unused: Any,
) -> Tensor:
    if high is None:
        low, high = 0, low
    kind = input._data.dtype if dtype is None else to_numpy_dtype(dtype)
    return _op.make_tensor(default_generator.integers(low, high, input._data.shape).astype(kind))


class _Limits:
    """Numeric limits of a dtype, PyTorch's field names."""

    _shown: tuple[str, ...] = ()

    def __init__(self, info: Any, dtype: Any) -> None:
        self.bits = int(info.bits)
        self.max = info.max.item() if hasattr(info.max, "item") else info.max
        self.min = info.min.item() if hasattr(info.min, "item") else info.min
        self.dtype = str(dtype).split(".")[-1]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k):g}" for k in self._shown)
        return f"{type(self).__name__}({fields}, dtype={self.dtype})"


class finfo(_Limits):
    """Limits of a floating dtype, as ``torch.finfo``: ``eps``, ``tiny``, ``max``, ``min``,
    ``resolution``, ``bits``.

    Args:
        type (nl.dtype, optional): a floating dtype. Default: the default dtype.

    Examples:
        >>> nl.finfo(nl.float32).eps
        1.1920928955078125e-07
    """

    def __init__(self, type: DTypeLike | None = None) -> None:
        from .promotion import get_default_dtype

        dtype = get_default_dtype() if type is None else type
        info = np.finfo(to_numpy_dtype(dtype))
        super().__init__(info, dtype)
        self.eps = float(info.eps)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = 10.0**-info.precision

    _shown = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")


class iinfo(_Limits):
    """Limits of an integer dtype, as ``torch.iinfo``: ``max``, ``min``, ``bits``.

    Args:
        type (nl.dtype): an integer dtype.

    Examples:
        >>> nl.iinfo(nl.int8).max
        127
    """

    def __init__(self, type: DTypeLike) -> None:
        super().__init__(np.iinfo(to_numpy_dtype(type)), type)

    _shown = ("min", "max")


@_doc(
    "Whether the tensor's dtype is floating.",
    ["input (Tensor): the tensor."],
    "bool: the answer.",
    ">>> nl.is_floating_point(nl.ones(1))\nTrue",
)
def is_floating_point(input: Tensor) -> bool:
    return input.is_floating_point()


@_doc(
    "Whether a one-element tensor is non-zero.",
    ["input (Tensor): the tensor."],
    "bool: the answer.",
    ">>> nl.is_nonzero(nl.tensor([1]))\nTrue",
)
def is_nonzero(input: Tensor) -> bool:
    return input.is_nonzero()


@_doc(
    "Whether two tensors have the same shape.",
    ["input (Tensor): a tensor.", "other (Tensor): the other."],
    "bool: the answer.",
    ">>> nl.is_same_size(nl.ones(2), nl.zeros(2))\nTrue",
)
def is_same_size(input: Tensor, other: Tensor) -> bool:
    return input.is_same_size(other)


@_doc(
    "Whether the tensor's dtype is signed.",
    ["input (Tensor): the tensor."],
    "bool: the answer.",
    ">>> nl.is_signed(nl.tensor([1]))\nTrue",
)
def is_signed(input: Tensor) -> bool:
    return input.is_signed()


@_doc(
    "Whether type promotion allows casting ``from_`` to ``to``.",
    ["from_ (nl.dtype): the source type.", "to (nl.dtype): the target."],
    "bool: the answer.",
    ">>> nl.can_cast(nl.float64, nl.int32)\nFalse",
)
def can_cast(from_: DTypeLike, to: DTypeLike) -> bool:
    a, b = to_numpy_dtype(from_), to_numpy_dtype(to)
    return bool(np.can_cast(a, b, "same_kind"))


@_doc(
    "Flat indices as coordinates in ``shape``.",
    ["indices (Tensor): flat int64 indices.", "shape (tuple of ints): the shape."],
    "tuple of Tensors: one per dimension.",
    ">>> nl.unravel_index(nl.tensor(5), (2, 3))\n(tensor(1), tensor(2))",
)
def unravel_index(indices: Tensor, shape: int | Sequence[int]) -> tuple[Tensor, ...]:
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return tuple(
        _op.make_tensor(np.asarray(c, dtype=np.int64))
        for c in np.unravel_index(indices._data, shape)
    )


def _alias(name: str, method: str, summary: str) -> Callable[..., Tensor]:
    def fn(input: Tensor, *args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
        result: Tensor = getattr(input, method)(*args, **kwargs)
        if out is None:
            return result
        from .out_arg import write_out

        return write_out(name, result, out, (input, *args))

    fn.__name__ = name
    fn.__doc__ = (
        f"{summary} (``{method}`` under PyTorch's other name).\n\nArgs:\n    input (Tensor): the input.\n"
        f"    *args: as ``Tensor.{method}``.\n    out (Tensor, optional): a tensor to write into.\n\n"
        f"Returns:\n    Tensor: the result.\n\nExamples:\n    >>> nl.{name}(nl.tensor([2.]), nl.tensor([1.])).shape\n    nnlite.Size([1])\n"
    )
    return fn


absolute = _alias("absolute", "abs", "Absolute values")
absolute.__doc__ = (absolute.__doc__ or "").replace(
    "nl.absolute(nl.tensor([2.]), nl.tensor([1.]))", "nl.absolute(nl.tensor([-2.]))"
)
negative = _alias("negative", "neg", "Negation")
negative.__doc__ = (negative.__doc__ or "").replace(
    "nl.negative(nl.tensor([2.]), nl.tensor([1.]))", "nl.negative(nl.tensor([2.]))"
)
multiply = _alias("multiply", "mul", "Product")
subtract = _alias("subtract", "sub", "Difference")
greater = _alias("greater", "gt", "Greater than")
greater_equal = _alias("greater_equal", "ge", "Greater or equal")
less = _alias("less", "lt", "Less than")
less_equal = _alias("less_equal", "le", "Less or equal")
not_equal = _alias("not_equal", "ne", "Not equal")


@_doc(
    "``input`` itself (unary plus).",
    ["input (Tensor): the input."],
    "Tensor: ``input``.",
    ">>> nl.positive(nl.tensor([-1.]))\ntensor([-1.])",
)
def positive(input: Tensor) -> Tensor:
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@_doc(
    "``other - alpha * input`` (subtraction, reversed).",
    [
        "input (Tensor): subtracted.",
        "other (Tensor or number): the minuend.",
        "alpha (number): Default: 1.",
    ],
    "Tensor: the result.",
    ">>> nl.rsub(nl.tensor([1.]), 3)\ntensor([2.])",
)
def rsub(input: Tensor, other: TensorOrScalar, *, alpha: float = 1) -> Tensor:
    return other - (input if alpha == 1 else input * alpha)


@_doc(
    "Sorted along the first dimension.",
    ["input (Tensor): the input."],
    "Tensor: the sorted values.",
    ">>> nl.msort(nl.tensor([[2., 1.], [1., 3.]]))\ntensor([[1., 1.],\n        [2., 3.]])",
)
def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    return input.sort(0).values


@_doc(
    "Seeds the generator from the clock and returns the seed.",
    [],
    "int: the seed.",
    ">>> isinstance(nl.seed(), int)\nTrue",
)
def seed() -> int:
    from .random import manual_seed

    value = int(np.random.default_rng().integers(2**63))
    manual_seed(value)
    return value


_flags: dict[str, Any] = {
    "deterministic": False,
    "warn_only": False,
    "matmul": "highest",
    "interop": 1,
    "warn_always": False,
}


@_doc(
    "Turn deterministic algorithms on or off (nnlite's CPU kernels always are).",
    ["mode (bool): the setting.", "warn_only (bool): Default: False."],
    "None",
    ">>> nl.use_deterministic_algorithms(True)\n>>> nl.are_deterministic_algorithms_enabled()\nTrue\n>>> nl.use_deterministic_algorithms(False)",
)
def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    _flags["deterministic"], _flags["warn_only"] = bool(mode), bool(warn_only)


@_doc(
    "Whether ``use_deterministic_algorithms(True)`` is set.",
    [],
    "bool: the setting.",
    ">>> nl.are_deterministic_algorithms_enabled()\nFalse",
)
def are_deterministic_algorithms_enabled() -> bool:
    return bool(_flags["deterministic"])


@_doc(
    "Whether deterministic mode only warns.",
    [],
    "bool: the setting.",
    ">>> nl.is_deterministic_algorithms_warn_only_enabled()\nFalse",
)
def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return bool(_flags["warn_only"])


@_doc(
    "``use_deterministic_algorithms`` by level: 0 off, 1 warn, 2 error.",
    ["debug_mode (int or str): ``0``/``'default'``, ``1``/``'warn'``, ``2``/``'error'``."],
    "None",
    ">>> nl.set_deterministic_debug_mode(0)",
)
def set_deterministic_debug_mode(debug_mode: int | str) -> None:
    level = (
        {"default": 0, "warn": 1, "error": 2}.get(debug_mode, debug_mode)
        if isinstance(debug_mode, str)
        else debug_mode
    )
    if level not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(level > 0, warn_only=level == 1)


@_doc(
    "The deterministic debug level (0, 1 or 2).",
    [],
    "int: the level.",
    ">>> nl.get_deterministic_debug_mode()\n0",
)
def get_deterministic_debug_mode() -> int:
    return 0 if not _flags["deterministic"] else (1 if _flags["warn_only"] else 2)


@_doc(
    "Record the float32 matmul precision (``'highest'``, ``'high'``, ``'medium'``); numpy's BLAS always computes in full float32.",
    ["precision (str): the setting."],
    "None",
    ">>> nl.set_float32_matmul_precision('high')\n>>> nl.get_float32_matmul_precision()\n'high'\n>>> nl.set_float32_matmul_precision('highest')",
)
def set_float32_matmul_precision(precision: str) -> None:
    if precision not in ("highest", "high", "medium"):
        raise RuntimeError(f"Invalid precision: {precision}")
    _flags["matmul"] = precision


@_doc(
    "The recorded float32 matmul precision.",
    [],
    "str: the setting.",
    ">>> nl.get_float32_matmul_precision()\n'highest'",
)
def get_float32_matmul_precision() -> str:
    return str(_flags["matmul"])


@_doc(
    "Record the inter-op thread count (nnlite runs ops one after another).",
    ["num (int): the count."],
    "None",
    ">>> nl.set_num_interop_threads(1)",
)
def set_num_interop_threads(num: int) -> None:
    if num <= 0:
        raise RuntimeError("Expected positive number of threads")
    _flags["interop"] = int(num)


@_doc(
    "The recorded inter-op thread count.",
    [],
    "int: the count.",
    ">>> nl.get_num_interop_threads()\n1",
)
def get_num_interop_threads() -> int:
    return int(_flags["interop"])


@_doc(
    "Flushing denormals is not available through numpy: returns False, as PyTorch on a CPU without it.",
    ["mode (bool): the request."],
    "bool: False.",
    ">>> nl.set_flush_denormal(True)\nFalse",
)
def set_flush_denormal(mode: bool) -> bool:
    return False


@_doc(
    "Make once-only warnings always warn.",
    ["b (bool): the setting."],
    "None",
    ">>> nl.set_warn_always(False)",
)
def set_warn_always(b: bool) -> None:
    _flags["warn_always"] = bool(b)


@_doc(
    "Whether ``set_warn_always(True)`` is set.",
    [],
    "bool: the setting.",
    ">>> nl.is_warn_always_enabled()\nFalse",
)
def is_warn_always_enabled() -> bool:
    return bool(_flags["warn_always"])


@_doc(
    "A copy of ``input`` filled with ``value``.",
    ["input (Tensor): the shape and dtype.", "value (number): the value."],
    "Tensor: the filled copy.",
    ">>> nl.fill(nl.zeros(2), 3.)\ntensor([3., 3.])",
)
def fill(input: Tensor, value: TensorOrScalar) -> Tensor:
    return _op.make_tensor(np.full(input._data.shape, value, dtype=input._data.dtype))


@_doc(
    "``start, start + step, ...`` up to and including ``end`` (deprecated in PyTorch; use ``arange``).",
    [
        "start (number): Default: 0.",
        "end (number): the last value.",
        "step (number): Default: 1.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the values.",
    ">>> nl.range(1, 3)\ntensor([1., 2., 3.])",
)
def range(
    start: float = 0,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: DTypeLike | None = None,
    requires_grad: bool = False,
    **unused: Any,
) -> Tensor:
    if end is None:
        start, end = 0, start
    count = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(max(count, 0))
    return tensor(values, dtype=dtype or float32, requires_grad=requires_grad)


@_doc(
    "``split`` with a list of sizes.",
    [
        "input (Tensor): the tensor.",
        "split_sizes (list of ints): the sizes.",
        "dim (int): Default: 0.",
    ],
    "tuple of Tensors: the parts.",
    ">>> [t.shape[0] for t in nl.split_with_sizes(nl.zeros(5), [2, 3])]\n[2, 3]",
)
def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    return input.split(list(split_sizes), dim)


@_doc(
    "The running trapezoid rule along ``dim``.",
    [
        "y (Tensor): the values.",
        "x (Tensor, optional): the sample points.",
        "dx (float, optional): the spacing.",
        "dim (int): Default: -1.",
    ],
    "Tensor: one fewer element along ``dim``.",
    ">>> nl.cumulative_trapezoid(nl.tensor([1., 2., 3.]))\ntensor([1.5000, 4.0000])",
)
def cumulative_trapezoid(
    y: Tensor, x: Tensor | None = None, *, dx: float | None = None, dim: int = -1
) -> Tensor:
    n = y.shape[dim]
    mid = (y.narrow(dim, 1, n - 1) + y.narrow(dim, 0, n - 1)) / 2
    if x is not None:
        mid = mid * x.diff(dim=dim if x.ndim == y.ndim else -1)
    elif dx is not None:
        mid = mid * dx
    return mid.cumsum(dim)


def _window(
    values: Any, periodic: bool, window_length: int, dtype: Any, requires_grad: bool
) -> Tensor:
    n = window_length + 1 if periodic and window_length > 1 else window_length
    w = values(n) if n > 1 else np.ones(n)
    if periodic and window_length > 1:
        w = w[:-1]
    return tensor(np.asarray(w), dtype=dtype or float32, requires_grad=requires_grad)


@_doc(
    "The Hann window.",
    [
        "window_length (int): the length.",
        "periodic (bool): for spectral analysis. Default: True.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the window.",
    ">>> nl.hann_window(4)\ntensor([0.0000, 0.5000, 1.0000, 0.5000])",
)
@creation_keywords("layout", "pin_memory")
def hann_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _window(np.hanning, periodic, window_length, dtype, requires_grad)


@_doc(
    "The Hamming window (``alpha - beta cos``).",
    [
        "window_length (int): the length.",
        "periodic (bool): Default: True.",
        "alpha (float): Default: 0.54.",
        "beta (float): Default: 0.46.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the window.",
    ">>> nl.hamming_window(3, periodic=False)\ntensor([0.0800, 1.0000, 0.0800])",
)
@creation_keywords("layout", "pin_memory")
def hamming_window(
    window_length: int,
    periodic: bool = True,
    alpha: float = 0.54,
    beta: float = 0.46,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    def values(n: int) -> np.ndarray:
        return alpha - beta * np.cos(2 * np.pi * np.arange(n) / (n - 1))

    return _window(values, periodic, window_length, dtype, requires_grad)


@_doc(
    "The Bartlett (triangular) window.",
    [
        "window_length (int): the length.",
        "periodic (bool): Default: True.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the window.",
    ">>> nl.bartlett_window(5, periodic=False)\ntensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])",
)
@creation_keywords("layout", "pin_memory")
def bartlett_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _window(np.bartlett, periodic, window_length, dtype, requires_grad)


@_doc(
    "The Blackman window.",
    [
        "window_length (int): the length.",
        "periodic (bool): Default: True.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the window.",
    ">>> nl.blackman_window(3, periodic=False)[1]\ntensor(1.)",
)
@creation_keywords("layout", "pin_memory")
def blackman_window(
    window_length: int,
    periodic: bool = True,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _window(np.blackman, periodic, window_length, dtype, requires_grad)


@_doc(
    "The Kaiser window with shape parameter ``beta``.",
    [
        "window_length (int): the length.",
        "periodic (bool): Default: True.",
        "beta (float): Default: 12.",
        "dtype (nl.dtype, optional): Default: float32.",
    ],
    "Tensor: the window.",
    ">>> nl.kaiser_window(3, periodic=False, beta=0.)\ntensor([1., 1., 1.])",
)
@creation_keywords("layout", "pin_memory")
def kaiser_window(
    window_length: int,
    periodic: bool = True,
    beta: float = 12.0,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    return _window(lambda n: np.kaiser(n, beta), periodic, window_length, dtype, requires_grad)


@_doc(
    "The Frobenius norm over ``dim``.",
    [
        "input (Tensor): the input.",
        "dim (tuple of ints): Default: the last two.",
        "keepdim (bool): Default: False.",
    ],
    "Tensor: the norm.",
    ">>> nl.frobenius_norm(nl.ones(2, 2))\ntensor(2.)",
)
def frobenius_norm(
    input: Tensor,
    dim: int | Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    out: Tensor | None = None,
) -> Tensor:
    return input.norm("fro", dim, keepdim)


@_doc(
    "The nuclear norm (sum of singular values) of a matrix.",
    ["input (Tensor): ``(m, n)``.", "keepdim (bool): Default: False."],
    "Tensor: the norm.",
    ">>> nl.nuclear_norm(nl.eye(2))\ntensor(2.)",
)
def nuclear_norm(input: Tensor, keepdim: bool = False, *, out: Tensor | None = None) -> Tensor:
    norm: Tensor = implementation("linalg.matrix_norm")(input, "nuc", keepdim=keepdim)
    return norm


@_doc(
    "``obj`` as a tensor, sharing memory when it can (``as_tensor`` with ``copy=``).",
    [
        "obj: a tensor, array or Python data.",
        "dtype (nl.dtype, optional): the type.",
        "copy (bool, optional): always copy (True) or never (False).",
        "requires_grad (bool): Default: False.",
    ],
    "Tensor: the tensor.",
    ">>> nl.asarray([1, 2])\ntensor([1, 2])",
)
def asarray(
    obj: Any,
    *,
    dtype: DTypeLike | None = None,
    device: Device = None,
    copy: bool | None = None,
    requires_grad: bool = False,
) -> Tensor:
    from .creation import as_tensor

    result = as_tensor(obj, dtype=dtype)
    if copy:
        result = result.clone()
    elif copy is False and isinstance(obj, np.ndarray) and not np.shares_memory(result._data, obj):
        raise ValueError("asarray(copy=False): the data cannot be shared without a copy")
    return result.requires_grad_() if requires_grad else result


@_doc(
    "Whether ``input`` was made in inference mode (never in nnlite).",
    ["input (Tensor): the tensor."],
    "bool: False.",
    ">>> nl.is_inference(nl.zeros(1))\nFalse",
)
def is_inference(input: Tensor) -> bool:
    return False


@_doc(
    "The device index of ``input``: -1, the CPU.",
    ["input (Tensor): the tensor."],
    "int: -1.",
    ">>> nl.get_device(nl.zeros(1))\n-1",
)
def get_device(input: Tensor) -> int:
    return -1


def _functional(name: str) -> Callable[..., Any]:
    return implementation(f"nn.functional.{name}")


def _nn_alias(
    name: str,
    summary: str,
    example: str,
    drop: tuple[str, ...] = (),
    rename: dict[str, str] | None = None,
) -> Callable[..., Any]:
    """``torch.<name>``: the function of ``nn.functional`` under PyTorch's top-level name."""

    def fn(*args: Any, **kwargs: Any) -> Any:
        for key in drop:  # PyTorch's backend switches, last positionally: nothing to switch here
            kwargs.pop(key, None)
        if drop and len(args) > 5:
            args = args[:5]
        for old, new in (rename or {}).items():
            if old in kwargs:
                kwargs[new] = kwargs.pop(old)
        return _functional(name)(*args, **kwargs)

    fn.__name__ = name
    fn.__doc__ = (
        f"{summary} (``nn.functional.{name}`` under PyTorch's top-level name).\n\nArgs:\n"
        f"    *args: as ``nn.functional.{name}``.\n    **kwargs: as ``nn.functional.{name}``.\n\n"
        f"Returns:\n    Tensor: the result.\n\nExamples:\n    {example}\n"
    )
    return fn


conv1d = _nn_alias(
    "conv1d",
    "1-D convolution",
    ">>> nl.conv1d(nl.ones(1, 1, 3), nl.ones(1, 1, 2)).shape\n    nnlite.Size([1, 1, 2])",
)
conv2d = _nn_alias(
    "conv2d",
    "2-D convolution",
    ">>> nl.conv2d(nl.ones(1, 1, 3, 3), nl.ones(1, 1, 2, 2)).shape\n    nnlite.Size([1, 1, 2, 2])",
)
conv_transpose2d = _nn_alias(
    "conv_transpose2d",
    "2-D transposed convolution",
    ">>> nl.conv_transpose2d(nl.ones(1, 1, 2, 2), nl.ones(1, 1, 2, 2)).shape\n    nnlite.Size([1, 1, 3, 3])",
)
pixel_shuffle = _nn_alias(
    "pixel_shuffle",
    "Channels to space",
    ">>> nl.pixel_shuffle(nl.ones(1, 4, 1, 1), 2).shape\n    nnlite.Size([1, 1, 2, 2])",
)
pixel_unshuffle = _nn_alias(
    "pixel_unshuffle",
    "Space to channels",
    ">>> nl.pixel_unshuffle(nl.ones(1, 1, 2, 2), 2).shape\n    nnlite.Size([1, 4, 1, 1])",
)
prelu = _nn_alias(
    "prelu",
    "PReLU with the slopes ``weight``",
    ">>> nl.prelu(nl.tensor([-1., 1.]), nl.tensor([0.5]))\n    tensor([-0.5000,  1.0000])",
)
pairwise_distance = _nn_alias(
    "pairwise_distance",
    "The ``p``-norm distance of matching rows",
    ">>> nl.pairwise_distance(nl.zeros(1, 2), nl.tensor([[3., 4.]])).shape\n    nnlite.Size([1])",
)
cosine_similarity = _nn_alias(
    "cosine_similarity",
    "The cosine of the angle between matching vectors",
    ">>> nl.cosine_similarity(nl.tensor([[1., 0.]]), nl.tensor([[1., 0.]]))\n    tensor([1.])",
)
max_pool2d = _nn_alias(
    "max_pool2d",
    "2-D max pooling",
    ">>> nl.max_pool2d(nl.ones(1, 1, 2, 2), 2).shape\n    nnlite.Size([1, 1, 1, 1])",
)
layer_norm = _nn_alias(
    "layer_norm",
    "Layer normalisation",
    ">>> nl.layer_norm(nl.tensor([[1., 3.]]), (2,))\n    tensor([[-1.0000,  1.0000]])",
    drop=("cudnn_enable",),
)
group_norm = _nn_alias(
    "group_norm",
    "Group normalisation",
    ">>> nl.group_norm(nl.tensor([[1., 3.]]), 1).shape\n    nnlite.Size([1, 2])",
    drop=("cudnn_enabled",),
)
dropout = _nn_alias(
    "dropout",
    "Dropout (``train`` is ``training``)",
    ">>> nl.dropout(nl.ones(2), 0.5, False)\n    tensor([1., 1.])",
    rename={"train": "training"},
)
__all__ += [
    "conv1d", "conv2d", "conv_transpose2d", "pixel_shuffle", "pixel_unshuffle", "prelu",
    "pairwise_distance", "cosine_similarity", "max_pool2d", "layer_norm", "group_norm", "dropout",
]  # fmt: skip


# what Tensor's methods call by name (autograd/providers.py explains why)
provide("surface_functions", {name: globals()[name] for name in __all__})
