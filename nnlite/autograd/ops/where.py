"""``where(condition, a, b)``: elements of ``a`` where ``condition`` holds, else of ``b``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from ..promotion import binary_result
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from .vjp import Operand


class Where(Op):
    """``condition`` is a bool array, not differentiable; ``a`` and ``b`` broadcast against it."""

    def forward(self, condition: Array, a: Operand, b: Operand) -> Array:
        self.condition = condition
        self.shapes = (np.shape(condition), np.shape(a), np.shape(b))
        return binary_result(np.where(condition, a, b), a, b)

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[None, Gradient | None, Gradient | None]:
        keep = vjp.mask(self.condition, grad)
        ga = vjp.sum_to(grad * keep, self.shapes[1]) if needs[1] else None
        gb = vjp.sum_to(grad * (1 - keep), self.shapes[2]) if needs[2] else None
        return None, ga, gb


def where(condition: Gradient, a: Gradient | float, b: Gradient | float) -> Gradient:
    """``where`` inside a backward formula: ``condition`` is a bool array or a bool Tensor."""
    return vjp.call(Where, condition._data if vjp.is_tensor(condition) else condition, a, b)
