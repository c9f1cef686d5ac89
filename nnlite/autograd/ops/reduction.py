"""Reductions: sum, mean, max/min, var, logsumexp, and the sum-to-shape used to un-broadcast."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..op import Op
from ..promotion import floating, scalar_type_name
from . import vjp
from .shape import IndexAddZeros

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import DTypeLike

    from ..._typing import Array, Gradient


def _dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Normalise ``dim`` (None, int or sequence) to a sorted tuple of non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        dim = (dim,)
    n = max(ndim, 1)
    out = []
    for d in dim:
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        out.append(d % n)
    return tuple(sorted(out)) if ndim else ()


def _expand_back(
    grad: Gradient, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool
) -> Gradient:
    """Broadcast a reduced gradient back to the input's ``shape``."""
    if not keepdim and axes:
        kept = list(shape)
        for a in axes:
            kept[a] = 1
        grad = grad.reshape(tuple(kept))
    return vjp.expand(grad, shape)


class _DimReduction(Op):
    """A reduction whose node PyTorch names ``...Backward0`` over all elements and
    ``...Backward1`` over given dimensions (two overloads there)."""

    dim: int | Sequence[int] | None = None
    if TYPE_CHECKING:  # set for every class by ``Op.__init_subclass__``
        node_name: str

    def name(self) -> str:
        return self.node_name if self.dim is None else self.node_name[:-1] + "1"


class Sum(_DimReduction):
    keepdim = False
    dtype: np.dtype[Any] | None = None

    def forward(self, a: Array) -> Array:
        self.shape, self.axes = a.shape, _dims(self.dim, a.ndim)
        dtype: DTypeLike | None = self.dtype
        if dtype is None and a.dtype.kind in "biu":
            dtype = np.int64
        total: Array = a.sum(axis=self.axes, keepdims=self.keepdim, dtype=dtype)
        return total

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return _expand_back(grad, self.shape, self.axes, self.keepdim)


class SumToSize(Op):
    """Sum a broadcast tensor down to ``shape``; backward expands it again."""

    if TYPE_CHECKING:  # a parameter every caller gives
        shape: tuple[int, ...]
    else:
        shape = None

    def forward(self, a: Array) -> Array:
        self.input_shape = a.shape
        return vjp.sum_array_to(a, self.shape)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return vjp.expand(grad, self.input_shape)


class Mean(_DimReduction):
    keepdim = False
    dtype: np.dtype[Any] | None = None

    def forward(self, a: Array) -> Array:
        if self.dtype is not None and self.dtype.kind not in "fc":
            raise RuntimeError(
                "mean(): could not infer output dtype. Optional dtype must be either a floating "
                f"point or complex dtype. Got: {scalar_type_name(self.dtype)}"
            )
        if a.dtype.kind not in "fc" and self.dtype is None:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {scalar_type_name(a.dtype)}"
            )
        self.shape, self.axes = a.shape, _dims(self.dim, a.ndim)
        self.count = math.prod([a.shape[i] for i in self.axes])
        if self.dtype is None and self.count:
            # sum / n: numpy's mean adds a dtype round trip that costs more than the sum itself
            # (numpy's stubs take keepdims=True or keepdims=False, not a bool)
            total = np.add.reduce(a, axis=self.axes, keepdims=self.keepdim)  # type: ignore[call-overload]
            quotient: Array = total / a.dtype.type(self.count)
            return quotient
        average: Array = a.mean(axis=self.axes, keepdims=self.keepdim, dtype=self.dtype)
        return average

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return _expand_back(grad / self.count, self.shape, self.axes, self.keepdim)


class _Extreme(Op):
    """Max or min of all elements; the gradient is shared evenly among ties (as PyTorch)."""

    saved_inputs = (0,)
    saves_output = True
    if TYPE_CHECKING:  # numpy's reduction, given by each subclass
        reduce: Callable[..., Array]
    else:
        reduce = None

    def forward(self, a: Array) -> Array:
        if a.size == 0:
            raise RuntimeError(
                f"{type(self).__name__[:3].lower()}(): Expected reduction dim to be specified for "
                "input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        return self.reduce(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a = self.saved_tensors[0]._data  # which elements won is a constant
        out = self.output_array()
        # a NaN result came from the NaN elements: they share the gradient (as PyTorch)
        hits = (np.isnan(a) if np.isnan(out) else a == out).astype(a.dtype)
        hits /= hits.sum()
        return grad * vjp.const(hits, grad)


class MaxAll(_Extreme):
    node_name = "MaxBackward1"
    reduce = staticmethod(np.max)


class MinAll(_Extreme):
    node_name = "MinBackward1"
    reduce = staticmethod(np.min)


class _ExtremeOver(Op):
    """``amax``/``amin`` over ``dim`` (one, several or all dimensions): the gradient shared evenly
    among the elements equal to the result; where the result is NaN none is, and the gradient is
    NaN (PyTorch's formula)."""

    saved_inputs = (0,)
    saves_output = True
    dim: int | Sequence[int] | None = None
    keepdim = False
    if TYPE_CHECKING:  # numpy's reduction, given by each subclass
        reduce: Callable[..., Array]
    else:
        reduce = None

    def forward(self, a: Array) -> Array:
        self.axes = _dims(self.dim, a.ndim)
        return self.reduce(a, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a = self.saved_tensors[0]._data
        out = self.output_array()
        if not self.keepdim:
            out = np.expand_dims(out, self.axes)
        hits = (a == out).astype(a.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            hits /= hits.sum(axis=self.axes, keepdims=True)
        grad = _expand_back(grad, a.shape, self.axes, self.keepdim)
        return grad * vjp.const(hits, grad)


class Amax(_ExtremeOver):
    node_name = "AmaxBackward0"
    reduce = staticmethod(np.max)


class Amin(_ExtremeOver):
    node_name = "AminBackward0"
    reduce = staticmethod(np.min)


class _ExtremeDim(Op):
    """Max or min along ``dim`` given the winning ``indices``; the gradient goes to the winners."""

    if TYPE_CHECKING:  # parameters every caller gives
        dim: int
        indices: Array
    else:
        dim = indices = None
    keepdim = False

    def forward(self, a: Array) -> Array:
        self.shape = a.shape
        values = np.take_along_axis(a, np.expand_dims(self.indices, self.dim), axis=self.dim)
        return values if self.keepdim else np.squeeze(values, axis=self.dim)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        index = np.expand_dims(self.indices, self.dim)
        if not self.keepdim:
            grad = grad.reshape(index.shape)
        return vjp.call(IndexAddZeros, grad, shape=self.shape, index=("along", self.dim, index))


class MaxDim(_ExtremeDim):
    node_name = "MaxBackward0"


class MinDim(_ExtremeDim):
    node_name = "MinBackward0"


class Var(Op):
    saved_inputs = (0,)
    dim: int | Sequence[int] | None = None
    correction: float = 1
    keepdim = False

    def forward(self, a: Array) -> Array:
        if a.dtype.kind not in "fc":
            raise RuntimeError("std and var only support floating point and complex dtypes")
        self.shape, self.axes = a.shape, _dims(self.dim, a.ndim)
        self.count = math.prod([a.shape[i] for i in self.axes])
        variance: Array = np.var(a, axis=self.axes, ddof=self.correction, keepdims=self.keepdim)
        return variance

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        centered = a - vjp.mean(a, self.axes, keepdims=True)
        scale = (
            2.0 / (self.count - self.correction) if self.count > self.correction else float("nan")
        )
        return _expand_back(grad, self.shape, self.axes, self.keepdim) * centered * scale


class LogSumExp(Op):
    """``log(sum(exp(a)))`` along ``dim``, computed stably by shifting with the maximum."""

    saved_inputs = (0,)
    saves_output = True
    dim: int | Sequence[int] | None = None
    keepdim = False

    def forward(self, a: Array) -> Array:
        a = floating(a)
        self.shape, self.axes = a.shape, _dims(self.dim, a.ndim)
        m = a.max(axis=self.axes, keepdims=True)
        m = np.where(np.isfinite(m), m, 0)
        out: Array = np.log(np.exp(a - m).sum(axis=self.axes, keepdims=True)) + m
        return out if self.keepdim else np.squeeze(out, axis=self.axes)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        out = _expand_back(self.output(), self.shape, self.axes, self.keepdim)
        return _expand_back(grad, self.shape, self.axes, self.keepdim) * vjp.exp(a - out)
