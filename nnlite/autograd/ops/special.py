"""Trigonometric and special functions: ``sin``, ``cos``, ``erf``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from ..promotion import floating
from . import vjp
from .erf_kernel import erf_array

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


class Sin(Op):
    saved_inputs = (0,)

    def forward(self, a: Array) -> Array:
        return np.sin(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return grad * vjp.cos(a)


class Cos(Op):
    saved_inputs = (0,)

    def forward(self, a: Array) -> Array:
        return np.cos(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return -grad * vjp.sin(a)


class Erf(Op):
    saved_inputs = (0,)

    def forward(self, a: Array) -> Array:
        return erf_array(a)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        a: Gradient
        (a,) = self.inputs()
        return grad * _TWO_OVER_SQRT_PI * vjp.exp(-(a * a))
