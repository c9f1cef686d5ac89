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
from .view_inplace import mark_multi_output, mark_view

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
    """``self + alpha * other``, elementwise with broadcasting.

    Args:
        other (Tensor or number): the second operand (broadcast).
        alpha (number): the multiplier of ``other``. Default: 1.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2.]).add(nl.tensor([10., 20.]), alpha=2)
        tensor([21., 42.])
    """
    return ops.Add.apply(self, other, alpha=alpha)


def _radd(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Add.apply(other, self)


def _sub(self: TensorMethods, other: TensorOrScalar, alpha: Number = 1) -> Tensor:
    """``self - alpha * other``, elementwise with broadcasting.

    Args:
        other (Tensor or number): the second operand (broadcast).
        alpha (number): the multiplier of ``other``. Default: 1.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([5., 6.]).sub(1)
        tensor([4., 5.])
    """
    return ops.Sub.apply(self, other, alpha=alpha)


def _rsub(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Sub.apply(other, self)


def _mul(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    """``self * other``, elementwise with broadcasting.

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2.]).mul(nl.tensor([[1.], [3.]]))
        tensor([[1., 2.],
                [3., 6.]])
    """
    return ops.Mul.apply(self, other)


def _rmul(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Mul.apply(other, self)


def _mm(self: TensorMethods, mat2: Tensor) -> Tensor:
    """The matrix product ``self @ mat2``.

    Args:
        mat2 (Tensor): the second matrix.

    Returns:
        Tensor: the product.

    Examples:
        >>> nl.eye(2).mm(nl.tensor([[1., 2.], [3., 4.]]))
        tensor([[1., 2.],
                [3., 4.]])
    """
    return _matmul(self, mat2)


def _truediv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    """``self / other``, elementwise true division (``div`` without ``rounding_mode``).

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1, 3]).true_divide(2)
        tensor([0.5000, 1.5000])
    """
    return ops.Div.apply(self, other)


def _div(self: TensorMethods, other: TensorOrScalar, *, rounding_mode: str | None = None) -> Tensor:
    """``self / other``, elementwise, with broadcasting; integer and bool operands give the
        default float dtype. With ``rounding_mode`` the quotient is rounded and keeps the operands'
        type (integer division by zero then raises).

    Args:
        other (Tensor or number): the second operand (broadcast).
        rounding_mode (str, optional): None (true division), ``'trunc'`` (toward zero) or
            ``'floor'`` (toward -inf). Default: None.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1, 3]).div(2)
        tensor([0.5000, 1.5000])
        >>> nl.tensor([-7, 7]).div(2, rounding_mode="trunc")
        tensor([-3,  3])
    """
    if rounding_mode is None:
        return ops.Div.apply(self, other)
    return ops.DivRounded.apply(self, other, rounding_mode=rounding_mode)


def _rtruediv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Div.apply(other, self)


def _pow(self: TensorMethods, exponent: TensorOrScalar) -> Tensor:
    """``self ** exponent``, elementwise.

    Args:
        exponent (Tensor or number): the power (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([2., 3.]).pow(2)
        tensor([4., 9.])
    """
    return ops.Pow.apply(self, exponent)


def _rpow(self: TensorMethods, base: TensorOrScalar) -> Tensor:
    return ops.RPow.apply(base, self)


def _matmul(self: TensorMethods, other: Tensor) -> Tensor:
    """Matrix product with numpy's rules: 1-D operands are vectors, batch dimensions broadcast.

    Args:
        other (Tensor): the right operand.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.ones(2, 3).matmul(nl.ones(3, 4)).shape
        nnlite.Size([2, 4])
    """
    return ops.MatMul.apply(self, other)


def _rmatmul(self: TensorMethods, other: Tensor) -> Tensor:
    return ops.MatMul.apply(other, self)


def _neg(self: TensorMethods) -> Tensor:
    """``-self``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., -2.]).neg()
        tensor([-1.,  2.])
    """
    return ops.Neg.apply(self)


@silenced
def _floor_divide(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    # not differentiable in PyTorch either: the result is outside the graph
    """``self // other``: the quotient rounded toward -inf, in the operands' type (not
    differentiable, as in PyTorch).

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([-7, 7]).floor_divide(2)
        tensor([-4,  3])
    """
    return _op.make_tensor(rounded_quotient(self._data, _data(other), "floor"))


@silenced
def _rfloordiv(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return _op.make_tensor(rounded_quotient(other, self._data, "floor"))


def _remainder(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    """``self % other``: the remainder of the floor division, with the sign of ``other`` (Python's
    ``%``).

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([-7, 7]).remainder(3)
        tensor([2, 1])
    """
    return ops.Remainder.apply(self, other)


def _rmod(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    return ops.Remainder.apply(other, self)


def _fmod(self: TensorMethods, other: TensorOrScalar) -> Tensor:
    """The remainder of the division rounded toward zero, with the sign of ``self`` (C's ``fmod``).

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([-7, 7]).fmod(3)
        tensor([-1,  1])
    """
    return ops.Fmod.apply(self, other)


# ---------------------------------------------------------------------- pointwise math
def _clamp(
    self: TensorMethods, min: TensorOrScalar | None = None, max: TensorOrScalar | None = None
) -> Tensor:
    """Each element limited to ``[min, max]``.

    Args:
        min (number or Tensor, optional): the lower bound.
        max (number or Tensor, optional): the upper bound.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([-2., 0.5, 3.]).clamp(min=0., max=1.)
        tensor([0.0000, 0.5000, 1.0000])
    """
    return ops.Clamp.apply(self, min=_data(min), max=_data(max))


def _maximum(self: TensorMethods, other: Tensor) -> Tensor:
    """The larger of ``self`` and ``other`` at each position (broadcast).

    Args:
        other (Tensor): the second operand.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 5.]).maximum(nl.tensor([3., 2.]))
        tensor([3., 5.])
    """
    return ops.Maximum.apply(self, other)


def _minimum(self: TensorMethods, other: Tensor) -> Tensor:
    """The smaller of ``self`` and ``other`` at each position (broadcast).

    Args:
        other (Tensor): the second operand.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 5.]).minimum(nl.tensor([3., 2.]))
        tensor([1., 2.])
    """
    return ops.Minimum.apply(self, other)


# ---------------------------------------------------------------------- reductions
def _sum(
    self: TensorMethods, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    """The sum of the elements, over ``dim`` or over all of them.

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the result.

    Examples:
        >>> x = nl.tensor([[1., 2.], [3., 4.]])
        >>> x.sum(), x.sum(dim=0)
        (tensor(10.), tensor([4., 6.]))
    """
    return ops.Sum.apply(
        self, dim=dim, keepdim=keepdim, dtype=None if dtype is None else _np_dtype(dtype)
    )


def _mean(
    self: TensorMethods, dim: _dims = None, keepdim: bool = False, dtype: DTypeLike | None = None
) -> Tensor:
    """The mean of the elements, over ``dim`` or over all of them.

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([[1., 2.], [3., 4.]]).mean(dim=1, keepdim=True)
        tensor([[1.5000],
                [3.5000]])
    """
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
    out: Tensor
    if isinstance(dim, int):
        out = reduce(dim, keepdim).values
        return out
    # the highest dimension first, so that without keepdim the others keep their numbers
    dims = sorted({_wrap_dim(d, self._data.ndim) for d in dim or ()}, reverse=True)
    if not dims:  # as PyTorch: no dimension given means all of them
        out = reduce()
        return out
    out = reduce(dims[0], keepdim).values
    for d in dims[1:]:
        out = getattr(out, name)(d, keepdim).values
    return out


def _arg(
    fn: Callable[..., Any], *, doc: str
) -> Callable[[TensorMethods, int | None, bool], Tensor]:
    def method(self: TensorMethods, dim: int | None = None, keepdim: bool = False) -> Tensor:
        if dim is None:
            return _op.make_tensor(np.asarray(fn(self._data), dtype=np.int64))
        return _op.make_tensor(
            fn(self._data, axis=_wrap_dim(dim, self._data.ndim), keepdims=keepdim).astype(np.int64)
        )

    method.__doc__ = doc
    return method


def _var(
    self: TensorMethods,
    dim: _dims | bool = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    correction: Number | None = None,
) -> Tensor:
    """The variance of the elements (Bessel-corrected by default).

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.
        unbiased (bool, optional): divide by ``n - 1`` (True, the default) or ``n``.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        correction (int, optional): divide by ``n - correction``; overrides ``unbiased``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2., 3., 4.]).var()
        tensor(1.6667)
    """
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
    """The standard deviation of the elements (Bessel-corrected by default).

    Args:
        dim (int or tuple of ints, optional): the dimensions to reduce; all when omitted.
        unbiased (bool, optional): divide by ``n - 1`` (True, the default) or ``n``.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.
        correction (int, optional): divide by ``n - correction``; overrides ``unbiased``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2., 3., 4.]).std()
        tensor(1.2910)
    """
    return _var(self, dim, unbiased, keepdim, correction).sqrt()


def _logsumexp(self: TensorMethods, dim: _dims, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(self)))`` over ``dim``, computed without overflow.

    Args:
        dim (int or tuple of ints): the dimensions to reduce.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2.]).logsumexp(0)
        tensor(2.3133)
    """
    return ops.LogSumExp.apply(self, dim=dim, keepdim=keepdim)


def _softmax(self: Tensor, dim: int) -> Tensor:
    """``exp(self)`` normalised to sum to 1 along ``dim``.

    Args:
        dim (int): the dimension.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([[1., 2.], [3., 4.]]).softmax(dim=1)
        tensor([[0.2689, 0.7311],
                [0.2689, 0.7311]])
    """
    return softmax(self, dim)


def _log_softmax(self: Tensor, dim: int) -> Tensor:
    """The logarithm of ``softmax`` along ``dim``, computed stably.

    Args:
        dim (int): the dimension.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([0., 0.]).log_softmax(dim=0)
        tensor([-0.6931, -0.6931])
    """
    return log_softmax(self, dim)


# ---------------------------------------------------------------------- shape
def _view(self: TensorMethods, *shape: Any) -> Tensor:
    """The same data seen with another shape (one size may be -1); the data must allow it.

    Args:
        *shape (ints or a tuple of ints): the new shape, of the same number of elements.

    Returns:
        Tensor: a view sharing this tensor's data.

    Examples:
        >>> nl.arange(6).view(2, -1)
        tensor([[0, 1, 2],
                [3, 4, 5]])
    """
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
    """Whether ``array`` (not contiguous) can take ``shape`` without a copy, as PyTorch's strides
    allow
    (splitting the last dimension of a column slice, say)."""
    try:
        np.reshape(array, shape, copy=False)
    except ValueError:
        return False
    return True


def _reshape(self: TensorMethods, *shape: Any) -> Tensor:
    """The elements with another shape (one size may be -1): a view when possible, else a copy.

    Args:
        *shape (ints or a tuple of ints): the new shape, of the same number of elements.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.arange(6).reshape(3, 2).shape
        nnlite.Size([3, 2])
    """
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
        mark_view(base, out)
    return out


def _flatten(self: TensorMethods, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Dimensions ``start_dim`` to ``end_dim`` merged into one.

    Args:
        start_dim (int): the first dimension to merge. Default: 0.
        end_dim (int): the last dimension to merge. Default: -1.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.zeros(2, 3, 4).flatten(1).shape
        nnlite.Size([2, 12])
    """
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
    """Dimension ``dim`` split into ``sizes`` (one of them may be -1).

    Args:
        dim (int): the dimension.
        sizes (tuple of ints): the new sizes, whose product is the size of ``dim``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.zeros(2, 12).unflatten(1, (3, 4)).shape
        nnlite.Size([2, 3, 4])
    """
    dim = _wrap_dim(dim, self._data.ndim)
    shape = self._data.shape
    return self.reshape(shape[:dim] + tuple(sizes) + shape[dim + 1 :])


def _squeeze(self: TensorMethods, dim: _dims = None) -> Tensor:
    """Dimensions of size 1 removed (only ``dim`` when given).

    Args:
        dim (int or tuple of ints, optional): the dimension(s) to remove if of size 1.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.zeros(2, 1, 3, 1).squeeze().shape
        nnlite.Size([2, 3])
    """
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
    """A dimension of size 1 inserted at ``dim``.

    Args:
        dim (int): where the new dimension goes (negative counts from the end).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.zeros(2, 3).unsqueeze(1).shape
        nnlite.Size([2, 1, 3])
    """
    nd = self._data.ndim + 1
    if not -nd <= dim < nd:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], but got {dim})"
        )
    dim %= nd
    shape = self._data.shape
    return self.reshape(shape[:dim] + (1,) + shape[dim:])


def _permute(self: TensorMethods, *dims: Any) -> Tensor:
    """The dimensions reordered: dimension ``i`` of the result is ``dims[i]`` of this one.

    Args:
        *dims (ints or a tuple of ints): a permutation of the dimensions.

    Returns:
        Tensor: a view with the dimensions reordered.

    Examples:
        >>> nl.zeros(2, 3, 4).permute(2, 0, 1).shape
        nnlite.Size([4, 2, 3])
    """
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
    """Dimensions ``dim0`` and ``dim1`` swapped.

    Args:
        dim0 (int): a dimension.
        dim1 (int): the dimension to swap it with.

    Returns:
        Tensor: a view with the two dimensions swapped.

    Examples:
        >>> nl.zeros(2, 3, 4).transpose(0, 2).shape
        nnlite.Size([4, 3, 2])
    """
    nd = self._data.ndim
    if nd == 0:
        return self
    dims = list(range(nd))
    a, b = _wrap_dim(dim0, nd), _wrap_dim(dim1, nd)
    dims[a], dims[b] = dims[b], dims[a]
    return _shared_view(self, ops.Permute.apply(self, dims=tuple(dims)))


def _t(self: _Self) -> _Self | Tensor:
    """The transpose of a tensor of at most 2 dimensions.

    Returns:
        Tensor: a view with the two dimensions swapped (1-D and 0-D are returned as is).

    Examples:
        >>> nl.tensor([[1, 2, 3]]).t()
        tensor([[1],
                [2],
                [3]])
    """
    if self._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
        )
    return self.transpose(0, 1) if self._data.ndim == 2 else self


def _T(self: _Self) -> _Self | Tensor:
    """All dimensions reversed (the transpose of a matrix).

    Examples:
        >>> nl.zeros(2, 3).T.shape
        nnlite.Size([3, 2])
    """
    nd = self._data.ndim
    if nd < 2:
        return self
    return _shared_view(
        self, ops.Permute.apply(self, dims=(1, 0) if nd == 2 else tuple(range(nd - 1, -1, -1)))
    )


def _mT(self: _Self) -> _Self | Tensor:
    """The last two dimensions swapped (a batch of transposed matrices).

    Examples:
        >>> nl.zeros(5, 2, 3).mT.shape
        nnlite.Size([5, 3, 2])
    """
    return self.transpose(-2, -1)


def _expand(self: _Self, *sizes: Any) -> _Self | Tensor:
    """A view with size-1 dimensions repeated to ``sizes`` (-1 keeps a size), without a copy.

    Args:
        *sizes (ints or a tuple of ints): the new shape; new leading dimensions are allowed.

    Returns:
        Tensor: a broadcast view of this tensor.

    Examples:
        >>> nl.tensor([[1], [2]]).expand(2, 3)
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """
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
    """``self.expand(other.shape)``.

    Args:
        other (Tensor): gives the shape.

    Returns:
        Tensor: a broadcast view of this tensor.

    Examples:
        >>> nl.tensor([1, 2]).expand_as(nl.zeros(2, 2))
        tensor([[1, 2],
                [1, 2]])
    """
    return self.expand(other.shape)


def _sum_to_size(self: _Self, *size: Any) -> _Self | Tensor:
    """Summed over broadcast dimensions down to ``size`` (the inverse of ``expand``).

    Args:
        *size (ints or a tuple of ints): a shape this tensor's shape broadcasts from.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.arange(6).reshape(2, 3).sum_to_size(1, 3)
        tensor([[3, 5, 7]])
    """
    size = _shape_arg(size)
    if size == self._data.shape:
        return self
    return ops.SumToSize.apply(self, shape=size)


def _narrow(self: TensorMethods, dim: int, start: int, length: int) -> Tensor:
    """Elements ``start`` to ``start + length`` of dimension ``dim``.

    Args:
        dim (int): the dimension.
        start (int): the first index.
        length (int): how many indices.

    Returns:
        Tensor: a view of the slice.

    Examples:
        >>> nl.arange(6).narrow(0, 2, 3)
        tensor([2, 3, 4])
    """
    dim = _wrap_dim(dim, self._data.ndim)
    index = (slice(None),) * dim + (slice(start, start + length),)
    return self[index]


def _select(self: TensorMethods, dim: int, index: int) -> Tensor:
    """The slice at ``index`` of dimension ``dim``, that dimension removed.

    Args:
        dim (int): the dimension.
        index (int): the position along it.

    Returns:
        Tensor: a view with one dimension fewer.

    Examples:
        >>> nl.arange(6).reshape(2, 3).select(1, 0)
        tensor([0, 3])
    """
    dim = _wrap_dim(dim, self._data.ndim)
    return self[(slice(None),) * dim + (index,)]


def _chunk(self: TensorMethods, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """Split into ``chunks`` pieces of equal size along ``dim`` (the last may be smaller).

    Args:
        chunks (int): the number of pieces.
        dim (int): the dimension to split. Default: 0.

    Returns:
        tuple of Tensors: views of the pieces.

    Examples:
        >>> nl.arange(5).chunk(2)
        (tensor([0, 1, 2]), tensor([3, 4]))
    """
    size = self.size(dim)
    step = -(-size // chunks)
    return mark_multi_output(
        tuple(self.narrow(dim, s, min(step, size - s)) for s in range(0, size, step)), "Split"
    )


def _split(
    self: TensorMethods, split_size: int | Sequence[int], dim: int = 0
) -> tuple[Tensor, ...]:
    """Split along ``dim`` into pieces of a size, or of the sizes listed.

    Args:
        split_size (int or list of ints): a piece size, or every piece's size.
        dim (int): the dimension to split. Default: 0.

    Returns:
        tuple of Tensors: views of the pieces.

    Examples:
        >>> nl.arange(5).split(2)
        (tensor([0, 1]), tensor([2, 3]), tensor([4]))
        >>> nl.arange(5).split([1, 4])
        (tensor([0]), tensor([1, 2, 3, 4]))
    """
    size = self.size(dim)
    if isinstance(split_size, int):
        sections = [min(split_size, size - s) for s in range(0, size, split_size)]
    else:
        sections = list(split_size)
        if sum(sections) != size:
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                f"size at dimension {dim}), but got split_sizes={sections}"
            )
    out, start = [], 0
    for n in sections:
        out.append(self.narrow(dim, start, n))
        start += n
    return mark_multi_output(tuple(out), "Split")


def _gather(self: TensorMethods, dim: int, index: Tensor | np.ndarray) -> Tensor:
    """Values picked along ``dim`` at ``index``: ``out[i][j] = self[i][index[i][j]]`` for dim 1.

    Args:
        dim (int): the dimension.
        index (Tensor): int64 indices, of this tensor's number of dimensions.

    Returns:
        Tensor: a tensor of ``index``'s shape.

    Examples:
        >>> nl.tensor([[1., 2.], [3., 4.]]).gather(1, nl.tensor([[1], [0]]))
        tensor([[2.],
                [3.]])
    """
    dim = _wrap_dim(dim, self._data.ndim)
    return ops.GatherAlong.apply(self, dim=dim, index=_data(index))


def _repeat(self: TensorMethods, *sizes: Any) -> Tensor:
    """The tensor tiled ``sizes[i]`` times along dimension ``i`` (a copy).

    Args:
        *sizes (ints or a tuple of ints): the repeat count of each dimension.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.arange(3).repeat(2)
        tensor([0, 1, 2, 0, 1, 2])
    """
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
    """This tensor converted to ``other``'s dtype.

    Args:
        other (Tensor): gives the dtype.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1, 2]).type_as(nl.zeros(1))
        tensor([1., 2.])
    """
    return self.to(other.dtype)


def _masked_fill(self: TensorMethods, mask: Tensor | np.ndarray, value: TensorOrScalar) -> Tensor:
    """A copy with ``value`` where ``mask`` is True (the mask broadcasts).

    Args:
        mask (Tensor of bool): where to write.
        value (number or Tensor): what to write.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1., 2., 3.]).masked_fill(nl.tensor([True, False, True]), 0.)
        tensor([0., 2., 0.])
    """
    return ops.Where.apply(np.asarray(_data(mask)).astype(bool, copy=False), value, self)


def _np_dtype(d: DTypeLike) -> np.dtype[Any]:
    out: np.dtype[Any] = to_numpy_dtype(d)
    return out


def _all(self: TensorMethods, dim: _dims = None, keepdim: bool = False) -> Tensor:
    """Whether every element is true (non-zero), over ``dim`` or all elements.

    Args:
        dim (int, optional): the dimension to reduce; all elements when omitted.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.

    Returns:
        Tensor: a bool tensor.

    Examples:
        >>> nl.tensor([[1., 0.], [1., 1.]]).all(dim=1)
        tensor([False,  True])
    """
    return _op.make_tensor(np.all(self._data, axis=_axis(dim), keepdims=keepdim))


def _any(self: TensorMethods, dim: _dims = None, keepdim: bool = False) -> Tensor:
    """Whether some element is true (non-zero), over ``dim`` or all elements.

    Args:
        dim (int, optional): the dimension to reduce; all elements when omitted.
        keepdim (bool): keep the reduced dimension with size 1. Default: False.

    Returns:
        Tensor: a bool tensor.

    Examples:
        >>> nl.tensor([[1., 0.], [0., 0.]]).any(dim=1)
        tensor([ True, False])
    """
    return _op.make_tensor(np.any(self._data, axis=_axis(dim), keepdims=keepdim))


def _axis(dim: _dims) -> int | tuple[int, ...] | None:
    """A ``dim`` argument as numpy's ``axis`` (which takes a tuple, not a list, of axes)."""
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


def _inplace_doc(name: str, call: str, result: str, args: Sequence[str] | None = None) -> str:
    """The docstring of the in-place method ``name_``: ``name`` written into this tensor, with
    ``args`` (``name``'s unless given) and an example that runs ``x.<call>`` on
    ``x = nl.tensor([1., 2.])`` and shows ``result``."""
    args = args or [f"*args, **kwargs: as for ``{name}``."]
    return (
        f"In-place ``{name}``: writes the result into this tensor (not allowed on a leaf that\n"
        "requires grad).\n\nArgs:\n"
        + "".join(f"    {line}\n" for line in args)
        + "\nReturns:\n    Tensor: this tensor.\n\nExamples:\n"
        + f"    >>> x = nl.tensor([1., 2.])\n    >>> _ = x.{call}\n    >>> x\n    {result}"
    )


def _inplace_method(op: type[Op], *, doc: str) -> Callable[..., Tensor]:
    def method(self: TensorMethods, *args: Any, **kwargs: Any) -> Tensor:
        return self._inplace(op, *args, **kwargs)

    method.__doc__ = doc
    return method


def _inplace_from(method_name: str, *, doc: str) -> Callable[..., Tensor]:
    def method(self: TensorMethods, *args: Any, **kwargs: Any) -> Tensor:
        self._check_inplace()
        result = getattr(self, method_name)(*args, **kwargs)
        return (
            self._inplace(ops.CopyFrom, result)
            if result._grad_fn is not None
            else self._array_inplace(lambda a: np.copyto(a, result._data, casting="unsafe"))
        )

    method.__doc__ = doc
    return method


def _unary(op: type[Op], *, doc: str) -> Callable[[TensorMethods], Tensor]:
    def method(self: TensorMethods) -> Tensor:
        return op.apply(self)

    method.__name__ = op.__name__.lower()
    method.__doc__ = doc
    return method


def _elementwise(
    ufunc: np.ufunc, symbol: str, result: str
) -> Callable[[TensorMethods, Any], Tensor]:
    """The comparison ``self <symbol> other`` by ``ufunc`` on the data, outside autograd; its
    docstring's example compares ``[1., 2., 3.]`` with 2, giving ``result``."""

    def method(self: TensorMethods, other: Any) -> Tensor:
        return _op.make_tensor(ufunc(self._data, _data(other)))

    method.__doc__ = f"""``self {symbol} other``, elementwise with broadcasting; outside autograd.

    Args:
        other (Tensor or number): the second operand (broadcast).

    Returns:
        Tensor: a bool tensor.

    Examples:
        >>> nl.tensor([1., 2., 3.]).{_COMPARISON_NAMES[symbol]}(2)
        {result}
    """
    return method


# the method name of each comparison operator
_COMPARISON_NAMES = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


def _bitwise(
    ufunc: np.ufunc, name: str, symbol: str, result: str
) -> Callable[[TensorMethods, Any], Tensor]:
    """``&``, ``|``, ``^``: bitwise on integers, logical on bools, refused for floats (as
    PyTorch); the docstring's example combines ``[1, 2]`` with ``[3, 1]``, giving ``result``."""

    def method(self: TensorMethods, other: Any) -> Tensor:
        a, b = self._data, _data(other)
        want = result_type(a, b)
        if want.kind not in "biu":
            raise NotImplementedError(
                f"\"{name}_cpu\" not implemented for '{scalar_type_name(want)}'"
            )
        return _op.make_tensor(binary_result(ufunc(a, b), a, b))

    method.__name__ = name
    method.__doc__ = f"""``self {symbol} other``: bitwise on integer tensors, logical on bool tensors
    (float tensors are refused, as in PyTorch).

    Args:
        other (Tensor or int or bool): the second operand (broadcast).

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.tensor([1, 2]).{name}(nl.tensor([3, 1]))
        {result}
    """
    return method


def _predicate(ufunc: np.ufunc, *, doc: str) -> Callable[[TensorMethods], Tensor]:
    def method(self: TensorMethods) -> Tensor:
        return _op.make_tensor(ufunc(self._data))

    method.__doc__ = doc
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
    __truediv__ = true_divide = _truediv
    div = divide = _div
    __rtruediv__ = _rtruediv
    __pow__ = pow = _pow
    __rpow__ = _rpow
    __matmul__ = matmul = _matmul
    mm = _mm
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
    __eq__ = eq = _elementwise(np.equal, "==", "tensor([False,  True, False])")  # type: ignore[assignment]
    __ne__ = ne = _elementwise(np.not_equal, "!=", "tensor([ True, False,  True])")  # type: ignore[assignment]
    __lt__ = lt = _elementwise(np.less, "<", "tensor([ True, False, False])")
    __le__ = le = _elementwise(np.less_equal, "<=", "tensor([ True,  True, False])")
    __gt__ = gt = _elementwise(np.greater, ">", "tensor([False, False,  True])")
    __ge__ = ge = _elementwise(np.greater_equal, ">=", "tensor([False,  True,  True])")
    __and__ = __rand__ = bitwise_and = _bitwise(
        np.bitwise_and, "bitwise_and", "&", "tensor([1, 0])"
    )
    __or__ = __ror__ = bitwise_or = _bitwise(np.bitwise_or, "bitwise_or", "|", "tensor([3, 3])")
    __xor__ = __rxor__ = bitwise_xor = _bitwise(
        np.bitwise_xor, "bitwise_xor", "^", "tensor([2, 3])"
    )
    logical_not = _predicate(
        np.logical_not,
        doc="""``not`` of each element (zero is False); outside autograd.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([0., 2.]).logical_not()
            tensor([ True, False])
        """,
    )
    isnan = _predicate(
        np.isnan,
        doc="""Whether each element is NaN; outside autograd.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([1., float('nan')]).isnan()
            tensor([False,  True])
        """,
    )
    isinf = _predicate(
        np.isinf,
        doc="""Whether each element is +inf or -inf; outside autograd.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([1., float('inf')]).isinf()
            tensor([False,  True])
        """,
    )
    isfinite = _predicate(
        np.isfinite,
        doc="""Whether each element is finite; outside autograd.

        Returns:
            Tensor: a bool tensor.

        Examples:
            >>> nl.tensor([1., float('inf')]).isfinite()
            tensor([ True, False])
        """,
    )

    def __invert__(self) -> Tensor:
        if self._data.dtype.kind not in "biu":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _op.make_tensor(
            np.logical_not(self._data) if self._data.dtype == bool else ~self._data
        )

    def equal(self, other: Tensor) -> bool:
        """Whether both tensors have the same shape and elements.

        Args:
            other (Tensor): the tensor to compare with.

        Returns:
            bool: True when shapes and all elements agree.

        Examples:
            >>> nl.tensor([1., 2.]).equal(nl.tensor([1., 2.]))
            True
        """
        return self.shape == other.shape and bool(np.array_equal(self._data, other._data))

    def allclose(
        self, other: TensorOrScalar, rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False
    ) -> bool:
        """Whether every element is close to ``other``'s: ``|self - other| <= atol + rtol *
        |other|``.

        Args:
            other (Tensor or number): the second operand (broadcast).
            rtol (float): the relative tolerance. Default: 1e-05.
            atol (float): the absolute tolerance. Default: 1e-08.
            equal_nan (bool): count NaNs in the same place as equal. Default: False.

        Returns:
            bool: True when all elements are close.

        Examples:
            >>> nl.tensor([1., 2.]).allclose(nl.tensor([1., 2.000001]))
            True
        """
        return bool(np.allclose(self._data, _data(other), rtol, atol, equal_nan))

    # pointwise math
    exp = _unary(
        ops.Exp,
        doc="""``e ** self`` of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0., 1.]).exp()
            tensor([1.0000, 2.7183])
        """,
    )
    log = _unary(
        ops.Log,
        doc="""The natural logarithm of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([1., 0.5]).log()
            tensor([ 0.0000, -0.6931])
        """,
    )
    sqrt = _unary(
        ops.Sqrt,
        doc="""The square root of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([4., 9.]).sqrt()
            tensor([2., 3.])
        """,
    )
    abs = __abs__ = _unary(
        ops.Abs,
        doc="""The absolute value of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([-1.5, 2.]).abs()
            tensor([1.5000, 2.0000])
        """,
    )
    sign = _unary(
        ops.Sign,
        doc="""-1, 0 or 1 by the sign of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([-2., 0., 3.]).sign()
            tensor([-1.,  0.,  1.])
        """,
    )
    relu = _unary(
        ops.Relu,
        doc="""``max(self, 0)`` of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([-1., 2.]).relu()
            tensor([0., 2.])
        """,
    )
    sigmoid = _unary(
        ops.Sigmoid,
        doc="""``1 / (1 + exp(-self))`` of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0.]).sigmoid()
            tensor([0.5000])
        """,
    )
    tanh = _unary(
        ops.Tanh,
        doc="""The hyperbolic tangent of each element.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([0.]).tanh()
            tensor([0.])
        """,
    )
    clamp = clip = _clamp
    maximum = _maximum
    minimum = _minimum

    def square(self) -> Tensor:
        """``self * self``, elementwise.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([2., -3.]).square()
            tensor([4., 9.])
        """
        return ops.Mul.apply(self, self)

    def rsqrt(self) -> Tensor:
        """``1 / sqrt(self)``, elementwise.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([4., 16.]).rsqrt()
            tensor([0.5000, 0.2500])
        """
        return self.sqrt().reciprocal()

    def reciprocal(self) -> Tensor:
        """``1 / self``, elementwise.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([2., 4.]).reciprocal()
            tensor([0.5000, 0.2500])
        """
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
        """The largest elements over ``dim`` (all elements when omitted), without indices.

        Args:
            dim (int, optional): the dimension to reduce; all elements when omitted.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([[1., 4.], [3., 2.]]).amax(dim=0)
            tensor([3., 4.])
        """
        return _extreme_over(self, "max", dim, keepdim)

    def amin(self, dim: _dims = None, keepdim: bool = False) -> Tensor:
        """The smallest elements over ``dim`` (all elements when omitted), without indices.

        Args:
            dim (int, optional): the dimension to reduce; all elements when omitted.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.tensor([[1., 4.], [3., 2.]]).amin(dim=0)
            tensor([1., 2.])
        """
        return _extreme_over(self, "min", dim, keepdim)

    argmax = _arg(
        np.argmax,
        doc="""The index of the largest element (of the flattened tensor, or along ``dim``).

        Args:
            dim (int, optional): the dimension to reduce; all elements when omitted.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor: int64 indices.

        Examples:
            >>> nl.tensor([[1., 4.], [3., 2.]]).argmax(dim=1)
            tensor([1, 0])
        """,
    )
    argmin = _arg(
        np.argmin,
        doc="""The index of the smallest element (of the flattened tensor, or along ``dim``).

        Args:
            dim (int, optional): the dimension to reduce; all elements when omitted.
            keepdim (bool): keep the reduced dimension with size 1. Default: False.

        Returns:
            Tensor: int64 indices.

        Examples:
            >>> nl.tensor([[1., 4.], [3., 2.]]).argmin()
            tensor(0)
        """,
    )
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
        """``self.view(other.shape)``.

        Args:
            other (Tensor): gives the shape.

        Returns:
            Tensor: a view sharing this tensor's data.

        Examples:
            >>> nl.arange(4).view_as(nl.zeros(2, 2)).shape
            nnlite.Size([2, 2])
        """
        return self.view(other.shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        """``self.reshape(other.shape)``.

        Args:
            other (Tensor): gives the shape.

        Returns:
            Tensor: the result.

        Examples:
            >>> nl.arange(4).reshape_as(nl.zeros(2, 2)).shape
            nnlite.Size([2, 2])
        """
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
    add_ = __iadd__ = _inplace_method(
        ops.Add,
        doc=_inplace_doc(
            "add",
            "add_(1)",
            "tensor([2., 3.])",
            args=[
                "other (Tensor or number): the second operand (broadcast).",
                "alpha (number): the multiplier of ``other``. Default: 1.",
            ],
        ),
    )
    sub_ = __isub__ = _inplace_method(
        ops.Sub,
        doc=_inplace_doc(
            "sub",
            "sub_(1)",
            "tensor([0., 1.])",
            args=[
                "other (Tensor or number): the second operand (broadcast).",
                "alpha (number): the multiplier of ``other``. Default: 1.",
            ],
        ),
    )
    mul_ = __imul__ = _inplace_method(
        ops.Mul,
        doc=_inplace_doc(
            "mul",
            "mul_(3)",
            "tensor([3., 6.])",
            args=["other (Tensor or number): the second operand (broadcast)."],
        ),
    )
    div_ = __itruediv__ = _inplace_method(
        ops.Div,
        doc=_inplace_doc(
            "div",
            "div_(2)",
            "tensor([0.5000, 1.0000])",
            args=["other (Tensor or number): the second operand (broadcast)."],
        ),
    )
    remainder_ = __imod__ = _inplace_method(
        ops.Remainder,
        doc=_inplace_doc(
            "remainder",
            "remainder_(2)",
            "tensor([1., 0.])",
            args=["other (Tensor or number): the second operand (broadcast)."],
        ),
    )
    fmod_ = _inplace_method(
        ops.Fmod,
        doc=_inplace_doc(
            "fmod",
            "fmod_(2)",
            "tensor([1., 0.])",
            args=["other (Tensor or number): the second operand (broadcast)."],
        ),
    )
    pow_ = _inplace_method(
        ops.Pow,
        doc=_inplace_doc(
            "pow", "pow_(2)", "tensor([1., 4.])", args=["exponent (Tensor or number): the power."]
        ),
    )
    neg_ = _inplace_method(ops.Neg, doc=_inplace_doc("neg", "neg_()", "tensor([-1., -2.])"))
    exp_ = _inplace_method(ops.Exp, doc=_inplace_doc("exp", "exp_()", "tensor([2.7183, 7.3891])"))
    log_ = _inplace_method(ops.Log, doc=_inplace_doc("log", "log_()", "tensor([0.0000, 0.6931])"))
    sqrt_ = _inplace_method(
        ops.Sqrt, doc=_inplace_doc("sqrt", "sqrt_()", "tensor([1.0000, 1.4142])")
    )
    abs_ = _inplace_method(ops.Abs, doc=_inplace_doc("abs", "abs_()", "tensor([1., 2.])"))
    relu_ = _inplace_method(ops.Relu, doc=_inplace_doc("relu", "relu_()", "tensor([1., 2.])"))
    sigmoid_ = _inplace_method(
        ops.Sigmoid, doc=_inplace_doc("sigmoid", "sigmoid_()", "tensor([0.7311, 0.8808])")
    )
    tanh_ = _inplace_method(
        ops.Tanh, doc=_inplace_doc("tanh", "tanh_()", "tensor([0.7616, 0.9640])")
    )
    clamp_ = _inplace_from(
        "clamp",
        doc=_inplace_doc(
            "clamp",
            "clamp_(max=1.5)",
            "tensor([1.0000, 1.5000])",
            args=[
                "min (number or Tensor, optional): the lower bound.",
                "max (number or Tensor, optional): the upper bound.",
            ],
        ),
    )
    masked_fill_ = _inplace_from(
        "masked_fill",
        doc=_inplace_doc(
            "masked_fill",
            "masked_fill_(nl.tensor([True, False]), 0.)",
            "tensor([0., 2.])",
            args=[
                "mask (Tensor of bool): where to write.",
                "value (number or Tensor): what to write.",
            ],
        ),
    )
