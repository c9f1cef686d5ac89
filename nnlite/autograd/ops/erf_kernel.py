"""The error function of an array, compiled by numba on first use (numpy has none)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from ..promotion import floating

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from ..._typing import Array

_erf_ufunc: list[np.ufunc] = []


def erf_array(a: ArrayLike) -> Array:
    """The error function of an array, compiled once by numba (numpy has none)."""
    if not _erf_ufunc:
        from ..._runtime.jit import vectorize

        @vectorize(["float32(float32)", "float64(float64)"], cache=True)
        def erf(x: float) -> float:
            return math.erf(x)

        _erf_ufunc.append(erf)
    out: Array = _erf_ufunc[0](floating(np.asarray(a)))
    return out
