"""Running sums along a dimension: ``cumsum``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient


class CumSum(Op):
    dim = 0

    def forward(self, a: Array) -> Array:
        return np.cumsum(a, axis=self.dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        # each input element feeds every later output: the gradient is a cumulative sum from the end
        dim = self.dim
        return vjp.flip(vjp.cumsum(vjp.flip(grad, dim), dim), dim)
