"""``where(condition, a, b)``: elements of ``a`` where ``condition`` holds, else of ``b``."""

import numpy as np

from ..op import Op
from . import vjp


class Where(Op):
    """``condition`` is a bool array, not differentiable; ``a`` and ``b`` broadcast against it."""

    def forward(self, condition, a, b):
        self.condition = condition
        self.shapes = (np.shape(condition), np.shape(a), np.shape(b))
        out = np.where(condition, a, b)
        if (
            out.dtype == np.float64
            and np.result_type(getattr(a, "dtype", np.float32), getattr(b, "dtype", np.float32))
            != np.float64
        ):
            out = out.astype(np.float32)
        return out

    def backward(self, grad, needs):
        keep = vjp.mask(self.condition, grad)
        ga = vjp.sum_to(grad * keep, self.shapes[1]) if needs[1] else None
        gb = vjp.sum_to(grad * (1 - keep), self.shapes[2]) if needs[2] else None
        return None, ga, gb


def where(condition, a, b):
    """``where`` inside a backward formula: ``condition`` is a bool array or a bool Tensor."""
    return vjp.call(Where, condition._data if vjp.is_tensor(condition) else condition, a, b)
