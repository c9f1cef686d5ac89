"""Tensor's operator and math methods: each one a thin call into an op of ``autograd/ops``.

Kept apart from ``tensor.py`` so that the class body stays about state, and this file reads as
the table of what a Tensor can do.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

from . import op as _op
from . import ops, return_types
from .dtypes import to_numpy_dtype
from .fp_errors import silenced
from .ops.activation import log_softmax, softmax
from .ops.arithmetic import rounded_quotient
from .promotion import binary_result, result_type, scalar_type_name
from .sizes import shape_arg as _shape_arg
from .sizes import wrap_dim as _wrap_dim

if TYPE_CHECKING:
    from .._typing import DTypeLike, Number, TensorOrScalar, _dims, _size
    from .dtypes import dtype
    from .op import Op
    from .sizes import Size
    from .tensor import Tensor

_Self = TypeVar("_Self", bound="TensorMethods")


def _data(x: Any) -> Any:
    return x._data if isinstance(x, _op.Tensor) else x


# ---------------------------------------------------------------------- arithmetic operators
def _add(self: TensorMethods, other: TensorOrScalar, alpha: Number = 1) -> Tensor:
    return ops.Add.apply(self, other, alpha=alpha)


def _radd(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Add.apply(other, self)


def _sub(self: TensorMethods, other: TensorOrScalar, alpha: Number = 1) -> Tensor:
    return ops.Sub.apply(self, other, alpha=alpha)


def _rsub(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Sub.apply(other, self)


def _mul(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Mul.apply(self, other)


def _rmul(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Mul.apply(other, self)


def _truediv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Div.apply(self, other)


def _div(self: TensorMethods, other: TensorOrScalar, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return ops.Div.apply(self, other)
    return ops.DivRounded.apply(self, other, rounding_mode=rounding_mode)


def _rtruediv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Div.apply(other, self)


def _pow(self: TensorMethods, exponent: TensorOrScalar) -> Tensor:
    return ops.Pow.apply(self, exponent)


def _rpow(self: TensorMethods, base: TensorOrScalar) -> Tensor:
    return ops.RPow.apply(base, self)


def _matmul(self: TensorMethods, other: Tensor) -> Tensor:
    return ops.MatMul.apply(self, other)


def _rmatmul(self: TensorMethods, other: Tensor) -> Tensor:
    return ops.MatMul.apply(other, self)


def _neg(self: TensorMethods) -> Tensor:
    return ops.Neg.apply(self)


@silenced
def _floor_divide(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    # not differentiable in PyTorch either: the result is outside the graph
    return _op.make_tensor(rounded_quotient(self._data, _data(other), "floor"))


@silenced
def _rfloordiv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return _op.make_tensor(rounded_quotient(other, self._data, "floor"))


def _remainder(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Remainder.apply(self, other)


def _rmod(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Remainder.apply(other, self)


def _fmod(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Fmod.apply(self, other)


# ---------------------------------------------------------------------- pointwise math
def _clamp(
    self: TensorMethods, min: TensorOrScalar | None = None, max: TensorOrScalar | None = None
) -> Tensor:
    return ops.Clamp.apply(self, min=_data(min), max=_data(max))


def _maximum(self: TensorMethods, other: Tensor) -> Tensor:
    return ops.Maximum.apply(self, other)


def _minimum(self: TensorMethods, other: Tensor) -> Tensor:
    return ops.Minimum.apply(self, other)


# ---------------------------------------------------------------------- reductions
def _sum(
    self: TensorMethods, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    return ops.Sum.apply(
        self, dim=dim, keepdim=keepdim, dtype=None if dtype is None else _np_dtype(dtype)
    )


def _mean(
    self: TensorMethods, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    return ops.Mean.apply(
        self, dim=dim, keepdim=keepdim, dtype=None if dtype is None else _np_dtype(dtype)
    )


def _extreme(
    all_op: type[Op],
    dim_op: type[Op],
    arg: Callable[..., Any],
    result: type[return_types._ValuesIndices],
) -> Callable[..., Any]:
    def method(self: TensorMethods, dim: int | Tensor | None = None, keepdim: bool = False) -> Any:
        if isinstance(dim, _op.Tensor):  # max(other): elementwise
            return (ops.Maximum if all_op is ops.MaxAll else ops.Minimum).apply(self, dim)
        if dim is None:
            return all_op.apply(self)
        dim = _wrap_dim(dim, self._data.ndim)
        if self._data.ndim == 0:
            return result((self.clone(), _op.make_tensor(np.zeros((), np.int64))))
        indices = arg(self._data, axis=dim)
        values = dim_op.apply(self, dim=dim, keepdim=keepdim, indices=indices)
        return result(
            (values, _op.make_tensor(np.expand_dims(indices, dim) if keepdim else indices))
        )

    return method


_max = _extreme(ops.MaxAll, ops.MaxDim, np.argmax, return_types.max)
_min = _extreme(ops.MinAll, ops.MinDim, np.argmin, return_types.min)


def _extreme_over(self: TensorMethods, name: str, dim: _dims, keepdim: bool) -> Tensor:
    """``amax``/``amin``: the largest/smallest values over one dimension, several, or all."""
    if self._data.size:  # ties share the gradient (max(dim) gives it to the first winner only)
        dims = None if dim is None or (not isinstance(dim, int) and not dim) else dim
        if isinstance(dims, int):
            dims = _wrap_dim(dims, self._data.ndim)
        elif dims is not None:
            dims = [_wrap_dim(d, self._data.ndim) for d in dims]
        op = ops.Amax if name == "max" else ops.Amin
        return op.apply(self, dim=dims, keepdim=keepdim)
    reduce = getattr(self, name)
    if isinstance(dim, int):
        return reduce(dim, keepdim).values
    # the highest dimension first, so that without keepdim the others keep their numbers
    dims = sorted({_wrap_dim(d, self._data.ndim) for d in dim or ()}, reverse=True)
    if not dims:  # as PyTorch: no dimension given means all of them
        return reduce()
    out: Tensor = reduce(dims[0], keepdim).values
    for d in dims[1:]:
        out = getattr(out, name)(d, keepdim).values
    return out


def _arg(fn: Callable[..., Any]) -> Callable[[TensorMethods, int | None, bool], Tensor]:
    def method(self: TensorMethods, dim: int | None = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return _op.make_tensor(np.asarray(fn(self._data), dtype=np.int64))
        return _op.make_tensor(
            fn(self._data, axis=_wrap_dim(dim, self._data.ndim), keepdims=keepdim).astype(np.int64)
        )

    return method


def _var(
    self: TensorMethods,
    dim: _dims | bool = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    correction: Number | None = None,
) -> Tensor:
    if isinstance(dim, bool):  # var(unbiased) positional form
        dim, unbiased = None, dim
    if correction is None:
        correction = 0 if unbiased is False else 1
    return ops.Var.apply(self, dim=dim, correction=correction, keepdim=keepdim)


def _std(
    self: TensorMethods,
    dim: _dims | bool = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    correction: Number | None = None,
) -> Tensor:
    return _var(self, dim, unbiased, keepdim, correction).sqrt()


def _logsumexp(self: TensorMethods, dim: _dims, keepdim: bool = False) -> Tensor:
    return ops.LogSumExp.apply(self, dim=dim, keepdim=keepdim)


def _softmax(self: Tensor, dim: int) -> Tensor:
    return softmax(self, dim)


def _log_softmax(self: Tensor, dim: int) -> Tensor:
    return log_softmax(self, dim)


# ---------------------------------------------------------------------- shape
def _view(self: TensorMethods, *shape: Any) -> Tensor:
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list)):
        return _view_as_dtype(self, to_numpy_dtype(shape[0]))
    shape = _infer_shape(_shape_arg(shape), self._data.size)
    if (
        not self._data.flags.c_contiguous
        and self._data.ndim > 0
        and self._data.size > 1
        and not _viewable(self._data, shape)
    ):
        # numpy would copy silently; PyTorch refuses a view its strides cannot express
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return _shared_view(self, ops.Reshape.apply(self, shape=shape))


def _view_as_dtype(self: TensorMethods, dtype: np.dtype[Any]) -> Tensor:
    """``view(dtype)``: the same bytes read as another type (no conversion), sharing memory."""
    if dtype == self._data.dtype:
        return _shared_view(self, ops.Reshape.apply(self, shape=self._data.shape))
    out = _op.make_tensor(self._data.view(dtype))
    out._vc = self._vc
    return out


def _viewable(array: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether ``array`` (not contiguous) can take ``shape`` without a copy, as PyTorch's strides allow
    (splitting the last dimension of a column slice, say)."""
    try:
        np.reshape(array, shape, copy=False)
    except ValueError:
        return False
    return True


def _reshape(self: TensorMethods, *shape: Any) -> Tensor:
    shape = _infer_shape(_shape_arg(shape), self._data.size)
    if shape == self._data.shape:
        return _shared_view(self, ops.Reshape.apply(self, shape=shape))
    return _shared_view(self, ops.Reshape.apply(self, shape=shape))


def _infer_shape(shape: tuple[int, ...], size: int) -> tuple[int, ...]:
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        if known == 0 or size % known:
            raise RuntimeError(
                f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {size}"
            )
        shape = tuple(size // known if s == -1 else s for s in shape)
    return shape


def _shared_view(base: TensorMethods, out: Tensor) -> Tensor:
    """Outputs that are numpy views share the base's version counter, as PyTorch views do.

    Shape ops either return a view of their input or a fresh array; a fresh array from reshape
    or transpose has no ``base``, so checking it is enough (and far cheaper than comparing memory).
    """
    if out._data.base is not None:
        out._vc = base._vc
    return out


def _flatten(self: TensorMethods, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = self._data.ndim
    if nd == 0:
        return self.reshape(1)
    s, e = _wrap_dim(start_dim, nd), _wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shape = self._data.shape
    return (
        self.reshape(shape[:s] + (-1,) + shape[e + 1 :])
        if self._data.size
        else self.reshape(shape[:s] + (int(np.prod(shape[s : e + 1])),) + shape[e + 1 :])
    )


def _unflatten(self: TensorMethods, dim: int, sizes: _size) -> Tensor:
    dim = _wrap_dim(dim, self._data.ndim)
    shape = self._data.shape
    return self.reshape(shape[:dim] + tuple(sizes) + shape[dim + 1 :])


def _squeeze(self: TensorMethods, dim: _dims = None) -> Tensor:
    shape = self._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
    else:
        dims = {_wrap_dim(d, len(shape)) for d in ((dim,) if isinstance(dim, int) else dim)}
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
    return (
        self.reshape(new)
        if new != shape
        else _shared_view(self, ops.Reshape.apply(self, shape=shape))
    )


def _unsqueeze(self: TensorMethods, dim: int) -> Tensor:
    nd = self._data.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})"
        )
    dim %= nd
    shape = self._data.shape
    return self.reshape(shape[:dim] + (1,) + shape[dim:])


def _permute(self: TensorMethods, *dims: Any) -> Tensor:
    dims = _shape_arg(dims)
    nd = self._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    return _shared_view(self, ops.Permute.apply(self, dims=tuple(_wrap_dim(d, nd) for d in dims)))


def _transpose(self: _Self, dim0: int, dim1: int) -> _Self | Tensor:
    nd = self._data.ndim
    if nd == 0:
        return self
    dims = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    dims[a], dims[b] = dims[b], dims[a]
    return _shared_view(self, ops.Permute.apply(self, dims=tuple(dims)))


def _t(self: _Self) -> _Self | Tensor:
    if self._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
        )
    return self.transpose(0, 1) if self._data.ndim == 2 else self


def _T(self: _Self) -> _Self | Tensor:
    nd = self._data.ndim
    if nd < 2:
        return self
    return _shared_view(
        self, ops.Permute.apply(self, dims=(1, 0) if nd == 2 else tuple(range(nd - 1, -1, -1)))
    )


def _mT(self: _Self) -> _Self | Tensor:
    return self.transpose(-2, -1)


def _expand(self: _Self, *sizes: Any) -> _Self | Tensor:
    sizes = _shape_arg(sizes)
    lead = len(sizes) - self._data.ndim
    if lead < 0:
        raise RuntimeError(
            f"expand(nnlite.{self.dtype._tensor_type}{{[{', '.join(map(str, self.shape))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) "
            f"must be greater or equal to the number of dimensions in the tensor "
            f"({self._data.ndim})"
        )
    shape = tuple(self._data.shape[i - lead] if s == -1 else s for i, s in enumerate(sizes))
    if shape == self._data.shape:
        return self
    return _shared_view(self, ops.Expand.apply(self, shape=shape))


def _expand_as(self: _Self, other: Tensor) -> _Self | Tensor:
    return self.expand(other.shape)


def _sum_to_size(self: _Self, *size: Any) -> _Self | Tensor:
    size = _shape_arg(size)
    if size == self._data.shape:
        return self
    return ops.SumToSize.apply(self, shape=size)


def _narrow(self: TensorMethods, dim: int, start: int, length: int) -> Tensor:
    dim = _wrap_dim(dim, self._data.ndim)
    index = (slice(None),) * dim + (slice(start, start + length),)
    return self[index]


def _select(self: TensorMethods, dim: int, index: int) -> Tensor:
    dim = _wrap_dim(dim, self._data.ndim)
    return self[(slice(None),) * dim + (index,)]


def _chunk(self: TensorMethods, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    size = self.size(dim)
    step = -(-size // chunks)
    return tuple(self.narrow(dim, s, min(step, size - s)) for s in range(0, size, step))


def _split(
    self: TensorMethods, split_size_or_sections: int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    size = self.size(dim)
    if isinstance(split_size_or_sections, int):
        sections = [
            min(split_size_or_sections, size - s) for s in range(0, size, split_size_or_sections)
        ]
    else:
        sections = list(split_size_or_sections)
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sections}"
            )
    out, start = [], 0
    for n in sections:
        out.append(self.narrow(dim, start, n))
        start += n
    return tuple(out)


def _gather(self: TensorMethods, dim: int, index: Tensor | np.ndarray) -> Tensor:
    dim = _wrap_dim(dim, self._data.ndim)
    return ops.GatherAlong.apply(self, dim=dim, index=_data(index))


def _repeat(self: TensorMethods, *sizes: Any) -> Tensor:
    sizes = _shape_arg(sizes)
    # repeat = expand over new interleaved axes, then reshape: differentiable through both
    lead = len(sizes) - self._data.ndim
    x = self.reshape((1,) * lead + self._data.shape)
    inter = []
    target = []
    for r, s in zip(sizes, x.shape):
        inter += [1, s]
        target += [r, s]
    out = x.reshape(tuple(inter)).expand(tuple(target))
    out = out.reshape(tuple(r * s for r, s in zip(sizes, x.shape)))
    # as PyTorch, a new tensor: never a (read-only, broadcast) view of this one's memory
    out._data = np.array(out._data)
    out._vc = [0]
    return out


def _type_as(self: TensorMethods, other: Tensor) -> Tensor:
    return self.to(other.dtype)


def _masked_fill(self: TensorMethods, mask: Tensor | np.ndarray, value: TensorOrScalar) -> Tensor:
    return ops.Where.apply(np.asarray(_data(mask)).astype(bool, copy=False), value, self)


def _np_dtype(d: DTypeLike) -> np.dtype[Any]:
    return to_numpy_dtype(d)


def _all(self: TensorMethods, dim: _dims = None, keepdim: bool = False) -> Tensor:
    return _op.make_tensor(np.all(self._data, axis=_axis(dim), keepdims=keepdim))


def _any(self: TensorMethods, dim: _dims = None, keepdim: bool = False) -> Tensor:
    return _op.make_tensor(np.any(self._data, axis=_axis(dim), keepdims=keepdim))


def _axis(dim: _dims) -> int | tuple[int, ...] | None:
    """A ``dim`` argument as numpy's ``axis`` (which takes a tuple, not a list, of axes)."""
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


def _inplace_method(op: type[Op], **fixed: Any) -> Callable[..., Tensor]:
    def method(self: TensorMethods, *args: Any, **kwargs: Any) -> Tensor:
        return self._inplace(op, *args, **fixed, **kwargs)

    return method


def _inplace_from(method_name: str) -> Callable[..., Tensor]:
    def method(self: TensorMethods, *args: Any, **kwargs: Any) -> Tensor:
        self._check_inplace()
        result = getattr(self, method_name)(*args, **kwargs)
        return (
            self._inplace(ops.CopyFrom, result)
            if result._grad_fn is not None
            else self._array_inplace(lambda a: np.copyto(a, result._data, casting="unsafe"))
        )

    return method


def _unary(op: type[Op]) -> Callable[[TensorMethods], Tensor]:
    def method(self: TensorMethods) -> Tensor:
        return op.apply(self)

    method.__name__ = op.__name__.lower()
    return method


def _elementwise(ufunc: np.ufunc) -> Callable[[TensorMethods, Any], Tensor]:
    """A method computing ``ufunc`` on the data, outside autograd (comparisons, masks)."""

    def method(self: TensorMethods, other: Any) -> Tensor:
        return _op.make_tensor(ufunc(self._data, _data(other)))

    return method


def _bitwise(ufunc: np.ufunc, name: str) -> Callable[[TensorMethods, Any], Tensor]:
    """``&``, ``|``, ``^``: bitwise on integers, logical on bools, refused for floats (as PyTorch)."""

    def method(self: TensorMethods, other: Any) -> Tensor:
        a, b = self._data, _data(other)
        want = result_type(a, b)
        if want.kind not in "biu":
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{scalar_type_name(want)}'"
            )
        return _op.make_tensor(binary_result(ufunc(a, b), a, b))

    method.__name__ = name
    return method


def _predicate(ufunc: np.ufunc) -> Callable[[TensorMethods], Tensor]:
    def method(self: TensorMethods) -> Tensor:
        return _op.make_tensor(ufunc(self._data))

    return method


class TensorMethods:
    """The math, shape and in-place methods of ``Tensor`` (a mixin: ``Tensor`` holds the state).

    Each method is a thin call into one op of ``autograd/ops``.
    """

    __slots__ = ()

    if TYPE_CHECKING:  # what the methods below use of the state ``Tensor`` holds
        _data: np.ndarray
        _vc: list[int]
        _grad_fn: Any

        @property
        def shape(self) -> Size: ...
        @property
        def dtype(self) -> dtype: ...
        @overload
        def size(self, dim: None = None) -> Size: ...
        @overload
        def size(self, dim: int) -> int: ...
        def size(self, dim: int | None = None) -> Size | int: ...
        def to(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def clone(self, memory_format: Any = None) -> Tensor: ...
        def __getitem__(self, index: Any) -> Tensor: ...
        def _check_inplace(self) -> None: ...
        def _inplace(self, fn: type[Op], *args: Any, **params: Any) -> Tensor: ...
        def _array_inplace(self, update: Callable[[np.ndarray], object]) -> Tensor: ...

    # arithmetic operators
    __add__ = add = _add
    __radd__ = _radd
    __sub__ = sub = _sub
    __rsub__ = _rsub
    __mul__ = mul = _mul
    __rmul__ = _rmul
    __truediv__ = true_divide = divide = _truediv
    div = _div
    __rtruediv__ = _rtruediv
    __pow__ = pow = _pow
    __rpow__ = _rpow
    __matmul__ = matmul = mm = _matmul
    __rmatmul__ = _rmatmul
    __neg__ = neg = _neg
    __floordiv__ = floor_divide = _floor_divide
    __rfloordiv__ = _rfloordiv
    __mod__ = remainder = _remainder
    __rmod__ = _rmod
    fmod = _fmod

    def __pos__(self: _Self) -> _Self:
        return self

    # comparisons and logic (not differentiable)
    # elementwise, as PyTorch: a Tensor where object's protocol has a bool
    __eq__ = eq = _elementwise(np.equal)  # type: ignore[assignment]
    __ne__ = ne = _elementwise(np.not_equal)  # type: ignore[assignment]
    __lt__ = lt = _elementwise(np.less)
    __le__ = le = _elementwise(np.less_equal)
    __gt__ = gt = _elementwise(np.greater)
    __ge__ = ge = _elementwise(np.greater_equal)
    __and__ = __rand__ = bitwise_and = _bitwise(np.bitwise_and, "bitwise_and")
    __or__ = __ror__ = bitwise_or = _bitwise(np.bitwise_or, "bitwise_or")
    __xor__ = __rxor__ = bitwise_xor = _bitwise(np.bitwise_xor, "bitwise_xor")
    logical_not = _predicate(np.logical_not)
    isnan = _predicate(np.isnan)
    isinf = _predicate(np.isinf)
    isfinite = _predicate(np.isfinite)

    def __invert__(self) -> Tensor:
        if self._data.dtype.kind not in "biu":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _op.make_tensor(
            np.logical_not(self._data) if self._data.dtype == bool else ~self._data
        )

    def equal(self, other: Tensor) -> bool:
        return self.shape == other.shape and bool(np.array_equal(self._data, other._data))

    def allclose(self, other: TensorOrScalar, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
        return bool(np.allclose(self._data, _data(other), rtol, atol))

    # pointwise math
    exp = _unary(ops.Exp)
    log = _unary(ops.Log)
    sqrt = _unary(ops.Sqrt)
    abs = __abs__ = _unary(ops.Abs)
    sign = _unary(ops.Sign)
    relu = _unary(ops.Relu)
    sigmoid = _unary(ops.Sigmoid)
    tanh = _unary(ops.Tanh)
    clamp = clip = _clamp
    maximum = _maximum
    minimum = _minimum

    def square(self) -> Tensor:
        return ops.Mul.apply(self, self)

    def rsqrt(self) -> Tensor:
        return self.sqrt().reciprocal()

    def reciprocal(self) -> Tensor:
        return ops.Div.apply(1.0, self)

    # reductions
    sum = _sum
    mean = _mean
    var = _var
    std = _std
    logsumexp = _logsumexp

    # max()/min() of all elements, elementwise against a Tensor, or (values, indices) along dim
    @overload
    def max(self) -> Tensor: ...
    @overload
    def max(self, dim: Tensor) -> Tensor: ...
    @overload
    def max(self, dim: int, keepdim: bool = False) -> return_types.max: ...
    def max(self, dim: int | Tensor | None = None, keepdim: bool = False) -> Any:
        """The largest element; or the elementwise maximum with a Tensor ``dim``; or the named
        tuple ``(values, indices)`` of the largest elements along the int ``dim``.

        Args:
            dim (int or Tensor, optional): the dimension to reduce, or the other tensor.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor, or a named tuple ``(values, indices)`` when ``dim`` is an int.

        Examples:
            >>> nl.tensor([[1., 5.], [4., 2.]]).max(1)
            nnlite.return_types.max(
            values=tensor([5., 4.]),
            indices=tensor([1, 0]))
        """
        return _max(self, dim, keepdim)

    @overload
    def min(self) -> Tensor: ...
    @overload
    def min(self, dim: Tensor) -> Tensor: ...
    @overload
    def min(self, dim: int, keepdim: bool = False) -> return_types.min: ...
    def min(self, dim: int | Tensor | None = None, keepdim: bool = False) -> Any:
        """The smallest element; or the elementwise minimum with a Tensor ``dim``; or the named
        tuple ``(values, indices)`` of the smallest elements along the int ``dim``.

        Args:
            dim (int or Tensor, optional): the dimension to reduce, or the other tensor.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor, or a named tuple ``(values, indices)`` when ``dim`` is an int.

        Examples:
            >>> nl.tensor([[1., 5.], [4., 2.]]).min()
            tensor(1.)
        """
        return _min(self, dim, keepdim)

    def amax(self, dim: _dims = None, keepdim: bool = False) -> Tensor:
        return _extreme_over(self, "max", dim, keepdim)

    def amin(self, dim: _dims = None, keepdim: bool = False) -> Tensor:
        return _extreme_over(self, "min", dim, keepdim)

    argmax = _arg(np.argmax)
    argmin = _arg(np.argmin)
    all = _all
    any = _any
    softmax = _softmax
    log_softmax = _log_softmax

    # shape
    view = _view
    reshape = _reshape
    flatten = _flatten
    unflatten = _unflatten
    squeeze = _squeeze
    unsqueeze = _unsqueeze
    permute = _permute
    transpose = _transpose
    t = _t
    if TYPE_CHECKING:

        @property
        def T(self) -> Tensor: ...
        @property
        def mT(self) -> Tensor: ...
    else:
        T = property(_T)
        mT = property(_mT)
    expand = _expand
    expand_as = _expand_as

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other.shape)

    sum_to_size = _sum_to_size
    narrow = _narrow
    select = _select
    chunk = _chunk
    split = _split
    gather = _gather
    repeat = _repeat
    type_as = _type_as
    masked_fill = _masked_fill

    # in place
    add_ = __iadd__ = _inplace_method(ops.Add)
    sub_ = __isub__ = _inplace_method(ops.Sub)
    mul_ = __imul__ = _inplace_method(ops.Mul)
    div_ = __itruediv__ = _inplace_method(ops.Div)
    remainder_ = __imod__ = _inplace_method(ops.Remainder)
    fmod_ = _inplace_method(ops.Fmod)
    pow_ = _inplace_method(ops.Pow)
    neg_ = _inplace_method(ops.Neg)
    exp_ = _inplace_method(ops.Exp)
    log_ = _inplace_method(ops.Log)
    sqrt_ = _inplace_method(ops.Sqrt)
    abs_ = _inplace_method(ops.Abs)
    relu_ = _inplace_method(ops.Relu)
    sigmoid_ = _inplace_method(ops.Sigmoid)
    tanh_ = _inplace_method(ops.Tanh)
    clamp_ = _inplace_from("clamp")
    masked_fill_ = _inplace_from("masked_fill")
