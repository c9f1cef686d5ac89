"""Trigonometric and special functions: ``sin``, ``cos``, ``erf``."""

import math
from typing import Any

import numpy as np

from ..op import Op
from ..promotion import floating
from . import vjp

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_erf_ufunc: list[Any] = []


def erf_array(a):
    """The error function of an array, compiled once by numba (numpy has none)."""
    if not _erf_ufunc:
        import numba

        @numba.vectorize(["float32(float32)", "float64(float64)"], cache=True)
        def erf(x):
            return math.erf(x)

        _erf_ufunc.append(erf)
    return _erf_ufunc[0](floating(np.asarray(a)))


class Sin(Op):
    saved_inputs = (0,)

    def forward(self, a):
        return np.sin(floating(a))

    def backward(self, grad, needs):
        (a,) = self.inputs()
        return grad * vjp.cos(a)


class Cos(Op):
    saved_inputs = (0,)

    def forward(self, a):
        return np.cos(floating(a))

    def backward(self, grad, needs):
        (a,) = self.inputs()
        return -grad * vjp.sin(a)


class Erf(Op):
    saved_inputs = (0,)

    def forward(self, a):
        return erf_array(a)

    def backward(self, grad, needs):
        (a,) = self.inputs()
        return grad * _TWO_OVER_SQRT_PI * vjp.exp(-(a * a))
