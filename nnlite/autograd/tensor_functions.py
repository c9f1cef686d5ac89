"""More Tensor methods: sorting, selection, scatter, triangles, rearranging, running sums, norms,
trigonometry and sampling. A second mixin of ``Tensor`` beside ``TensorMethods``; most methods here
are composites of existing ops (indexing, ``gather``, ``where``), so their gradients need no code.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from . import op as _op
from . import return_types
from .ops.cumulative import CumSum
from .ops.scatter import Scatter, check_scatter
from .ops.special import Cos, Erf, Sin
from .promotion import scalar_type_name
from .random import default_generator
from .sizes import wrap_dim

if TYPE_CHECKING:
    from .._typing import DTypeLike, TensorOrScalar, _dims
    from .tensor import Tensor

    # the math and shape methods these build on, which ``Tensor`` has from its other mixin
    from .tensor_methods import TensorMethods as _Base
else:
    _Base = object

_Self = TypeVar("_Self", bound="TensorFunctions")

__all__ = ["TensorFunctions", "FUNCTION_NAMES"]


def _array(x: Any) -> np.ndarray:
    return x._data if isinstance(x, _op.Tensor) else np.asarray(x)


def _index_along(ndim: int, dim: int, index: Any) -> tuple[Any, ...]:
    return (slice(None),) * dim + (index,)


def _triangle_mask(shape: tuple[int, ...], diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    keep = np.tri(rows, cols, diagonal, dtype=bool)
    return keep if lower else ~np.tri(rows, cols, diagonal - 1, dtype=bool)


class TensorFunctions(_Base):
    """Mixin of ``Tensor``: see the module docstring."""

    __slots__ = ()

    # ------------------------------------------------------------------ elementwise
    def sin(self) -> Tensor:
        """The sine of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0.]).sin()
            tensor([0.])
        """
        return Sin.apply(self)

    def cos(self) -> Tensor:
        """The cosine of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0.]).cos()
            tensor([1.])
        """
        return Cos.apply(self)

    def erf(self) -> Tensor:
        """The error function of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0.]).erf()
            tensor([0.])
        """
        return Erf.apply(self)

    def nan_to_num(
        self, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
    ) -> Tensor:
        """NaN, +inf and -inf replaced (default: 0 and the dtype's largest and smallest values).

        Args:
            nan (number): the value for NaN. Default: 0.
            posinf (number, optional): the value for +inf. Default: the dtype's largest.
            neginf (number, optional): the value for -inf. Default: the dtype's smallest.

        Returns:
            Tensor: a copy with finite values.

        Examples:
            >>> nl.tensor([float("nan"), float("inf"), 1.]).nan_to_num(posinf=9.)
            tensor([0., 9., 1.])
        """
        info = np.finfo(self._data.dtype) if self._data.dtype.kind == "f" else None
        if info is None:
            return self.clone()
        posinf = info.max if posinf is None else posinf
        neginf = info.min if neginf is None else neginf
        data = self._data
        out = self.masked_fill(np.isnan(data), nan)
        out = out.masked_fill(np.isposinf(data), posinf)
        return out.masked_fill(np.isneginf(data), neginf)

    def isclose(
        self,
        other: TensorOrScalar,
        rtol: float = 1e-05,
        atol: float = 1e-08,
        equal_nan: bool = False,
    ) -> Tensor:
        """Whether each element is close to ``other``'s: ``|self - other| <= atol + rtol *
        |other|``.

        Args:
            other (Tensor or number): the second operand (broadcast).
            rtol (float): the relative tolerance. Default: 1e-05.
            atol (float): the absolute tolerance. Default: 1e-08.
            equal_nan (bool): count two NaNs as close. Default: False.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([1., 2.]).isclose(nl.tensor([1., 2.1]))
            tensor([ True, False])
        """
        return _op.make_tensor(
            np.isclose(self._data, _array(other), rtol=rtol, atol=atol, equal_nan=equal_nan)
        )

    # ------------------------------------------------------------------ running sums and norms
    def cumsum(self, dim: int, dtype: DTypeLike | None = None) -> Tensor:
        """Cumulative sum along ``dim``.

        Args:
            dim (int): the dimension.
            dtype (nl.dtype, optional): compute and return in this type.

        Returns:
            Tensor: the running sums, of this tensor's shape.

        Examples:
            >>> nl.tensor([1., 2., 3.]).cumsum(0)
            tensor([1., 3., 6.])
        """
        x = self if dtype is None else self.to(dtype)
        return CumSum.apply(x, dim=wrap_dim(dim, x._data.ndim))

    def norm(
        self,
        p: float | str | None = "fro",
        dim: _dims = None,
        keepdim: bool = False,
        dtype: DTypeLike | None = None,
    ) -> Tensor:
        """The ``p``-norm over ``dim`` (all elements by default); ``"fro"`` is the 2-norm.

        Args:
            p (number or str): the order: ``"fro"``, 2, 1, ``inf``, ``-inf``, 0 or any real.
                Default: ``"fro"``.
            dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
            keepdim (bool): keep reduced dimensions with size 1. Default: False.
            dtype (nl.dtype, optional): compute and return in this type.

        Returns:
            Tensor: the norm.

        Examples:
            >>> nl.tensor([3., -4.]).norm(), nl.tensor([3., -4.]).norm(1)
            (tensor(5.), tensor(7.))
        """
        x = self if dtype is None else self.to(dtype)
        if x._data.dtype.kind not in "fc":
            raise RuntimeError(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                f"Got {scalar_type_name(x._data.dtype)}"
            )
        if p in ("fro", None):
            p = 2
        if p == "nuc":
            raise RuntimeError("norm(): the nuclear norm is not supported by nnlite")
        if isinstance(p, str):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        a = x.abs()
        if p == float("inf"):
            return a.amax(dim, keepdim) if dim is not None else a.max()
        if p == float("-inf"):
            return a.amin(dim, keepdim) if dim is not None else a.min()
        if p == 0:
            return (a != 0).to(x.dtype).sum(dim, keepdim)
        if p == 1:
            return a.sum(dim, keepdim)
        if p == 2:
            squares = x.square().sum(dim, keepdim)
            # the gradient of sqrt at 0 is infinite; PyTorch's norm gives 0 there: mask the zero norms
            zero = squares._data == 0
            if zero.any():
                squares = squares.masked_fill(zero, 1.0)
                return squares.sqrt().masked_fill(zero, 0.0)
            return squares.sqrt()
        return (a**p).sum(dim, keepdim) ** (1.0 / p)

    # ------------------------------------------------------------------ sorting and selection
    def sort(
        self, dim: int = -1, descending: bool = False, stable: bool = False
    ) -> return_types.sort:
        """``(values, indices)`` sorted along ``dim``; ``values`` carries the gradient.

        Args:
            dim (int): the dimension to sort. Default: -1.
            descending (bool): largest first. Default: False.
            stable (bool): keep the order of equal elements (the sort always does). Default: False.

        Returns:
            A named tuple ``(values, indices)``.

        Examples:
            >>> nl.tensor([3., 1., 2.]).sort(descending=True)
            nnlite.return_types.sort(
            values=tensor([3., 2., 1.]),
            indices=tensor([0, 2, 1]))
        """
        dim = wrap_dim(dim, self._data.ndim)
        if self._data.ndim == 0:
            return return_types.sort((self.clone(), _op.make_tensor(np.zeros((), np.int64))))
        keys = -self._data if descending and self._data.dtype.kind != "b" else self._data
        order = np.argsort(keys, axis=dim, kind="stable")
        if descending and self._data.dtype.kind == "b":
            order = np.flip(np.argsort(self._data, axis=dim, kind="stable"), dim)
        order = order.astype(np.int64)
        return return_types.sort((self.gather(dim, order), _op.make_tensor(order)))

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        """The indices that sort the tensor along ``dim``.

        Args:
            dim (int): the dimension to sort. Default: -1.
            descending (bool): largest first. Default: False.
            stable (bool): keep the order of equal elements (the sort always does). Default: False.

        Returns:
            Tensor: int64 indices.

        Examples:
            >>> nl.tensor([3., 1., 2.]).argsort()
            tensor([1, 2, 0])
        """
        return self.sort(dim, descending, stable).indices

    def topk(
        self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
    ) -> return_types.topk:
        """The ``k`` largest (or smallest) elements along ``dim`` and their indices.

        Args:
            k (int): how many elements.
            dim (int): the dimension. Default: -1.
            largest (bool): the largest (True) or the smallest. Default: True.
            sorted (bool): return them in order (they always are). Default: True.

        Returns:
            A named tuple ``(values, indices)``.

        Examples:
            >>> nl.tensor([1., 5., 3.]).topk(2)
            nnlite.return_types.topk(
            values=tensor([5., 3.]),
            indices=tensor([1, 2]))
        """
        dim = wrap_dim(dim, self._data.ndim)
        size = self._data.shape[dim] if self._data.ndim else 1
        if not 0 <= k <= size:
            raise RuntimeError("selected index k out of range")
        values, indices = self.sort(dim, descending=largest, stable=True)
        keep = _index_along(self._data.ndim, dim, slice(0, k))
        return return_types.topk((values[keep], indices[keep]))

    def index_select(self, dim: int, index: Tensor) -> Tensor:
        """The slices at the positions ``index`` along ``dim``.

        Args:
            dim (int): the dimension.
            index (Tensor): 1-D int64 positions.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.arange(6).reshape(2, 3).index_select(1, nl.tensor([0, 2]))
            tensor([[0, 2],
                    [3, 5]])
        """
        index = _array(index)
        if index.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        if index.dtype.kind not in "iu":
            raise IndexError("index_select(): Expected dtype int32/int64 for index")
        dim = wrap_dim(dim, self._data.ndim)
        return self[_index_along(self._data.ndim, dim, index.reshape(-1))]

    def masked_select(self, mask: Tensor) -> Tensor:
        """The elements where ``mask`` is True (both broadcast), as a 1-D tensor.

        Args:
            mask (Tensor of bool): which elements to keep.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([1., 2., 3.]).masked_select(nl.tensor([True, False, True]))
            tensor([1., 3.])
        """
        mask = _array(mask)
        if mask.dtype != np.bool_:
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        shape = np.broadcast_shapes(self._data.shape, mask.shape)
        return self.expand(shape)[np.broadcast_to(mask, shape)]

    # ------------------------------------------------------------------ scatter
    def _scatter(
        self, name: str, dim: int, index: Tensor, src: Tensor | float, add: bool
    ) -> Tensor:
        index = _array(index)
        dim = wrap_dim(dim, self._data.ndim)
        check_scatter(
            name,
            self._data.shape,
            dim,
            index,
            np.shape(_array(src)) if isinstance(src, _op.Tensor) else None,
        )
        return Scatter.apply(self, src, dim=dim, index=index, add=add)

    def scatter(
        self,
        dim: int,
        index: Tensor,
        src: Tensor | float | None = None,
        value: float | None = None,
        reduce: str | None = None,
    ) -> Tensor:
        """A copy with ``src`` (or ``value``) written at ``index`` along ``dim``.

        For ``dim=0``: ``out[index[i][j]][j] = src[i][j]``.

        Args:
            dim (int): the dimension.
            index (Tensor): int64 positions along ``dim``.
            src (Tensor, optional): the values to write.
            value (number, optional): one value to write instead of ``src``.
            reduce (str, optional): ``"add"`` adds instead of writing.

        Returns:
            Tensor: the written copy.

        Examples:
            >>> nl.zeros(3).scatter(0, nl.tensor([2, 0]), nl.tensor([5., 6.]))
            tensor([6., 0., 5.])
        """
        if reduce is not None:
            if reduce not in ("add", "multiply"):
                raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
            if reduce == "multiply":
                raise RuntimeError("scatter(reduce='multiply') is not supported by nnlite")
        source = value if src is None else src
        if source is None:
            raise TypeError("scatter() missing 1 required argument: 'src' or 'value'")
        return self._scatter("scatter", dim, index, source, reduce == "add")

    def scatter_add(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        """A copy with ``src`` added at ``index`` along ``dim`` (repeated indices accumulate).

        Args:
            dim (int): the dimension.
            index (Tensor): int64 positions along ``dim``.
            src (Tensor): the values to add.

        Returns:
            Tensor: the summed copy.

        Examples:
            >>> nl.zeros(3).scatter_add(0, nl.tensor([0, 0, 2]), nl.tensor([5., 6., 1.]))
            tensor([11.,  0.,  1.])
        """
        return self._scatter("scatter_add", dim, index, src, True)

    def scatter_(
        self,
        dim: int,
        index: Tensor,
        src: Tensor | float | None = None,
        value: float | None = None,
        reduce: str | None = None,
    ) -> Tensor:
        """In-place ``scatter``: write ``src`` (or ``value``) into this tensor at ``index`` along
        ``dim``.

        Args:
            dim (int): the dimension.
            index (Tensor): int64 positions along ``dim``.
            src (Tensor, optional): the values to write.
            value (number, optional): one value to write instead of ``src``.
            reduce (str, optional): ``"add"`` adds instead of writing.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(3).scatter_(0, nl.tensor([2, 0]), nl.tensor([5., 6.]))
            tensor([6., 0., 5.])
        """
        return self._inplace_result(self.scatter(dim, index, src, value, reduce))

    def scatter_add_(self, dim: int, index: Tensor, src: Tensor) -> Tensor:
        """In-place ``scatter_add``: add ``src`` into this tensor at ``index`` along ``dim``.

        Args:
            dim (int): the dimension.
            index (Tensor): int64 positions along ``dim``.
            src (Tensor): the values to add.

        Returns:
            Tensor: this tensor.

        Examples:
            >>> nl.zeros(3).scatter_add_(0, nl.tensor([0, 0]), nl.tensor([5., 6.]))
            tensor([11.,  0.,  0.])
        """
        return self._inplace_result(self.scatter_add(dim, index, src))

    def _inplace_result(self, result: Tensor) -> Tensor:
        from .ops.pointwise import CopyFrom

        self._check_inplace()
        if result._grad_fn is not None:
            return self._inplace(CopyFrom, result)
        return self._array_inplace(lambda a: np.copyto(a, result._data, casting="unsafe"))

    # ------------------------------------------------------------------ triangles and rearranging
    def tril(self, diagonal: int = 0) -> Tensor:
        """Elements on and below the ``diagonal``-th diagonal of the last two dimensions; zeros
        above.

        Args:
            diagonal (int): 0 is the main diagonal, positive above it, negative below. Default: 0.

        Returns:
            Tensor: the lower triangle.

        Examples:
            >>> nl.ones(2, 2).tril()
            tensor([[1., 0.],
                    [1., 1.]])
        """
        if self._data.ndim < 2:
            raise RuntimeError("tril: input tensor must have at least 2 dimensions")
        return self.masked_fill(~_triangle_mask(self._data.shape, diagonal, True), 0)

    def triu(self, diagonal: int = 0) -> Tensor:
        """Elements on and above the ``diagonal``-th diagonal of the last two dimensions; zeros
        below.

        Args:
            diagonal (int): 0 is the main diagonal, positive above it, negative below. Default: 0.

        Returns:
            Tensor: the upper triangle.

        Examples:
            >>> nl.ones(2, 2).triu(1)
            tensor([[0., 1.],
                    [0., 0.]])
        """
        if self._data.ndim < 2:
            raise RuntimeError("triu: input tensor must have at least 2 dimensions")
        return self.masked_fill(~_triangle_mask(self._data.shape, diagonal, False), 0)

    def flip(self: _Self, *dims: Any, **kwargs: Any) -> _Self | Tensor:
        """The elements in reverse order along each of ``dims`` (a copy).

        Args:
            *dims (ints or a tuple of ints): the dimensions to reverse.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.arange(4).flip(0)
            tensor([3, 2, 1, 0])
        """
        if "dims" in kwargs:  # PyTorch's keyword: flip(dims=(0,))
            dims = (kwargs.pop("dims"),)
        if kwargs:
            raise TypeError(f"flip() got an unexpected keyword argument '{next(iter(kwargs))}'")
        dims = dims[0] if len(dims) == 1 and isinstance(dims[0], (tuple, list)) else dims
        out = self
        for d in dims:
            d = wrap_dim(d, self._data.ndim)
            out = out[_index_along(self._data.ndim, d, np.arange(self._data.shape[d] - 1, -1, -1))]
        return out

    def roll(
        self: _Self, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
    ) -> _Self | Tensor:
        """The elements shifted cyclically by ``shifts`` along ``dims`` (the flattened tensor by
        default).

        Args:
            shifts (int or tuple of ints): how far to shift each dimension.
            dims (int or tuple of ints, optional): the dimensions to shift.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.arange(4).roll(1)
            tensor([3, 0, 1, 2])
        """
        if dims is None:
            return self.flatten().roll(shifts, 0).view(self.shape)
        shifts = shifts if isinstance(shifts, (tuple, list)) else (shifts,)
        dims = dims if isinstance(dims, (tuple, list)) else (dims,)
        if len(shifts) != len(dims):
            raise RuntimeError(
                f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}"
            )
        out = self
        for shift, d in zip(shifts, dims):
            d = wrap_dim(d, self._data.ndim)
            n = self._data.shape[d]
            out = out[_index_along(self._data.ndim, d, (np.arange(n) - shift) % n)] if n else out
        return out

    def repeat_interleave(
        self, repeats: int | Tensor, dim: int | None = None, output_size: int | None = None
    ) -> Tensor:
        """Each element repeated ``repeats`` times (an int or one count per element) along ``dim``.

        Args:
            repeats (int or Tensor): the repeat count, or one per element along ``dim``.
            dim (int, optional): the dimension; the flattened tensor when omitted.
            output_size (int, optional): accepted for compatibility.

        Returns:
            Tensor: the repeated elements.

        Examples:
            >>> nl.tensor([1, 2]).repeat_interleave(2)
            tensor([1, 1, 2, 2])
        """
        if dim is None:
            return self.flatten().repeat_interleave(repeats, 0)
        dim = wrap_dim(dim, self._data.ndim)
        counts = _array(repeats)
        if np.any(counts < 0):
            raise RuntimeError("repeats can not be negative")
        positions = np.repeat(np.arange(self._data.shape[dim]), counts)
        return self[_index_along(self._data.ndim, dim, positions)]

    # ------------------------------------------------------------------ batched products
    def bmm(self, mat2: Tensor) -> Tensor:
        """Batched matrix product of ``(b, n, m)`` and ``(b, m, p)`` tensors.

        Args:
            mat2 (Tensor): ``(b, m, p)`` matrices.

        Returns:
            Tensor: ``(b, n, p)``.

        Examples:
            >>> nl.ones(2, 3, 4).bmm(nl.ones(2, 4, 5)).shape
            nnlite.Size([2, 3, 5])
        """
        a, b = self._data, _array(mat2)
        if a.ndim != 3 or b.ndim != 3:
            raise RuntimeError(
                "batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor"
            )
        if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: "
                f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}]."
            )
        return self @ mat2

    def baddbmm(self, batch1: Tensor, batch2: Tensor, beta: float = 1, alpha: float = 1) -> Tensor:
        """``beta * self + alpha * (batch1 @ batch2)``.

        Args:
            batch1 (Tensor): ``(b, n, m)`` matrices.
            batch2 (Tensor): ``(b, m, p)`` matrices.
            beta (number): the multiplier of ``self`` (0 ignores it, NaN included). Default: 1.
            alpha (number): the multiplier of the product. Default: 1.

        Returns:
            Tensor: ``(b, n, p)``.

        Examples:
            >>> nl.zeros(2, 3, 5).baddbmm(nl.ones(2, 3, 4), nl.ones(2, 4, 5), alpha=0.5)[0, 0]
            tensor([2., 2., 2., 2., 2.])
        """
        product = batch1.bmm(batch2)
        product = product if alpha == 1 else product * alpha
        if beta == 0:  # as PyTorch: self is ignored, NaN in it included
            return product
        return (self if beta == 1 else self * beta) + product

    # ------------------------------------------------------------------ sampling
    def multinomial(
        self, num_samples: int, replacement: bool = False, generator: Any = None
    ) -> Tensor:
        """Indices drawn from the rows of this tensor of non-negative weights.

        Args:
            num_samples (int): how many indices to draw per row.
            replacement (bool): draw with replacement. Default: False.
            generator (numpy.random.Generator, optional): draw from this generator instead.

        Returns:
            Tensor: int64 indices, ``(num_samples,)`` or ``(rows, num_samples)``.

        Examples:
            >>> nl.tensor([0., 10., 0.]).multinomial(2, replacement=True)
            tensor([1, 1])
        """
        weights = self._data.astype(np.float64)
        if weights.ndim not in (1, 2):
            raise RuntimeError("prob_dist must be 1 or 2 dim")
        rows = weights.reshape(-1, weights.shape[-1])
        if not np.all(np.isfinite(rows)) or np.any(rows < 0):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if np.any(rows.sum(1) <= 0):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > rows.shape[1]:
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
            )
        rng = generator if generator is not None else default_generator
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for r, row in enumerate(rows):
            if replacement:
                out[r] = rng.choice(row.size, size=num_samples, replace=True, p=row / row.sum())
            else:
                # sequential draws without replacement, each proportional to the remaining weights
                out[r] = (
                    rng.choice(row.size, size=num_samples, replace=False, p=row / row.sum())
                    if np.count_nonzero(row) >= num_samples
                    else _draw_with_zeros(rng, row, num_samples)
                )
        return _op.make_tensor(out.reshape(weights.shape[:-1] + (num_samples,)))


def _draw_with_zeros(rng: np.random.Generator, row: np.ndarray, num_samples: int) -> np.ndarray:
    """Without replacement when fewer categories have weight than samples: once the weighted ones
    are drawn, the rest come from the zero-weight categories (PyTorch does the same)."""
    positive = np.flatnonzero(row)
    first = rng.choice(
        positive.size, size=positive.size, replace=False, p=row[positive] / row[positive].sum()
    )
    zeros = rng.permutation(np.flatnonzero(row == 0))
    return np.concatenate([positive[first], zeros])[:num_samples]


# Methods that also exist as functions ``nl.name(input, ...)``.
FUNCTION_NAMES = [
    "sin",
    "cos",
    "erf",
    "nan_to_num",
    "isclose",
    "cumsum",
    "norm",
    "sort",
    "argsort",
    "topk",
    "index_select",
    "masked_select",
    "scatter",
    "scatter_add",
    "tril",
    "triu",
    "flip",
    "roll",
    "repeat_interleave",
    "bmm",
    "baddbmm",
    "multinomial",
]


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D tensors; ``indexing="ij"`` (matrix) or ``"xy"`` (Cartesian).

    Args:
        *tensors (Tensor): 1-D tensors (or one list of them).
        indexing (str, optional): ``"ij"`` or ``"xy"``; omitting it warns and uses ``"ij"``, as
            PyTorch does.

    Returns:
        tuple of Tensors: one grid per input, each of shape ``(len(t0), len(t1), ...)`` for ``"ij"``.

    Examples:
        >>> xs, ys = nl.meshgrid(nl.arange(3), nl.arange(2), indexing="ij")
        >>> xs.shape
        nnlite.Size([3, 2])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        import warnings

        warnings.warn(
            "nnlite.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'nnlite.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    if any(t.ndim > 1 for t in tensors):
        raise RuntimeError("nnlite.meshgrid: Expected 0D or 1D tensor in the tensor list")
    flat = [t.reshape(-1) for t in tensors]
    swap = indexing == "xy" and len(flat) >= 2
    if swap:
        flat[0], flat[1] = flat[1], flat[0]
    shape = tuple(t.shape[0] for t in flat)
    grids = [
        t.reshape(tuple(-1 if i == k else 1 for i in range(len(flat)))).expand(shape)
        for k, t in enumerate(flat)
    ]
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)
