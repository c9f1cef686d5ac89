"""Running sums along a dimension: ``cumsum``."""

import numpy as np

from ..op import Op
from . import vjp


class CumSum(Op):
    dim = 0

    def forward(self, a):
        return np.cumsum(a, axis=self.dim, dtype=a.dtype if a.dtype.kind == "f" else np.int64)

    def backward(self, grad, needs):
        # each input element feeds every later output: the gradient is a cumulative sum from the end
        dim = self.dim
        return vjp.flip(vjp.cumsum(vjp.flip(grad, dim), dim), dim)
