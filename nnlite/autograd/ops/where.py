"""``where(condition, a, b)``: elements of ``a`` where ``condition`` holds, else of ``b``."""

import numpy as np

from ..op import Op
from ..promotion import binary_result
from . import vjp


class Where(Op):
    """``condition`` is a bool array, not differentiable; ``a`` and ``b`` broadcast against it."""

    def forward(self, condition, a, b):
        self.condition = condition
        self.shapes = (np.shape(condition), np.shape(a), np.shape(b))
        return binary_result(np.where(condition, a, b), a, b)

    def backward(self, grad, needs):
        keep = vjp.mask(self.condition, grad)
        ga = vjp.sum_to(grad * keep, self.shapes[1]) if needs[1] else None
        gb = vjp.sum_to(grad * (1 - keep), self.shapes[2]) if needs[2] else None
        return None, ga, gb


def where(condition, a, b):
    """``where`` inside a backward formula: ``condition`` is a bool array or a bool Tensor."""
    return vjp.call(Where, condition._data if vjp.is_tensor(condition) else condition, a, b)
