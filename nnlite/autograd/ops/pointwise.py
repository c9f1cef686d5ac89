"""Unary elementwise ops, ``maximum``/``minimum`` and dtype casts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..op import Op
from ..promotion import binary_result, floating, result_type
from . import vjp
from .arithmetic import _Binary

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from .vjp import Operand


class Exp(Op):
    silence_fp_errors = True
    saved_inputs = (0,)
    saves_output = True

    def forward(self, a: Array) -> Array:
        return np.exp(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return grad * y


class Log(Op):
    silence_fp_errors = True
    saved_inputs = (0,)

    def forward(self, a: Array) -> Array:
        return np.log(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return grad / a


class Sqrt(Op):
    silence_fp_errors = True
    saved_inputs = (0,)
    saves_output = True

    def forward(self, a: Array) -> Array:
        return np.sqrt(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return grad / (2 * y)


class Abs(Op):
    saved_inputs = (0,)

    def forward(self, a: Array) -> Array:
        if a.dtype.kind == "b":
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        return np.abs(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return grad * vjp.sign(a)


class Sign(Op):
    def forward(self, a: Array) -> Array:
        return np.sign(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return grad * 0.0


class Clamp(Op):
    """``clamp(min, max)``; the gradient passes where the input lies inside [min, max]."""

    saved_inputs = (0,)
    min: float | None = None
    max: float | None = None

    def forward(self, a: Array) -> Array:
        if self.min is None and self.max is None:
            raise RuntimeError("nnlite.clamp: At least one of 'min' or 'max' must not be None")
        out = np.clip(a, self.min, self.max)
        want = result_type(a, *[b for b in (self.min, self.max) if b is not None])
        return out if out.dtype == want else out.astype(want)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a = self.saved_tensors[0]._data  # the mask is a constant: only the array is needed
        inside = np.ones(a.shape, dtype=bool)
        if self.min is not None:
            inside &= a >= self.min
        if self.max is not None:
            inside &= a <= self.max
        return grad * vjp.mask(inside, grad)


class Maximum(_Binary):
    saved_inputs = (0, 1)

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return binary_result(np.maximum(a, b), a, b)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        return _split_ties(self, grad, np.greater)


class Minimum(_Binary):
    saved_inputs = (0, 1)

    def forward(self, a: Operand, b: Operand) -> Array:
        self._remember_shapes(a, b)
        return binary_result(np.minimum(a, b), a, b)

    def grads(
        self, grad: Gradient, need_a: bool, need_b: bool
    ) -> tuple[Gradient | None, Gradient | None]:
        return _split_ties(self, grad, np.less)


def _split_ties(op: _Binary, grad: Gradient, wins: np.ufunc) -> tuple[Gradient, Gradient]:
    """Gradient of max/min of two tensors: to the winner, halved on ties (as PyTorch)."""
    a, b = (getattr(t, "_data", t) for t in op.saved_tensors)
    share_a = vjp.mask(np.where(wins(a, b), 1.0, np.where(a == b, 0.5, 0.0)), grad)
    return grad * share_a, grad * (1 - share_a)


class ToDtype(Op):
    if TYPE_CHECKING:  # a parameter every caller gives
        dtype: np.dtype[Any]
    else:
        dtype = None

    def forward(self, a: Array) -> Array:
        self.source_dtype = a.dtype
        return a.astype(self.dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient | None:
        if self.source_dtype.kind != "f":
            return None
        return vjp.cast(grad, self.source_dtype)


class Clone(Op):
    def forward(self, a: Array) -> Array:
        out: Array = a.copy()
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        return grad


class CopyFrom(Op):
    """``dst.copy_(src)`` as an op: the result is ``src`` broadcast to ``dst``'s shape and dtype."""

    def forward(self, dst: Array, src: Array) -> Array:
        self.src_shape = src.shape
        return np.broadcast_to(src, dst.shape).astype(dst.dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[None, Gradient]:
        return None, vjp.sum_to(grad, self.src_shape)
