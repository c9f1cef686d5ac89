"""The error function of an array, compiled by numba on first use (numpy has none)."""

import math
from typing import Any

import numpy as np

from ..promotion import floating

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
