"""numba's compilers under static types.

numba ships no type information, so to mypy ``numba.njit`` is ``Any`` and every kernel it
decorates would lose its signature. These are the same objects, re-exported with types that say
what they do: ``njit`` hands back a callable with the decorated function's own
signature, ``vectorize`` a ufunc, and ``prange`` iterates like ``range``. At run time nothing is wrapped (numba finds
``prange`` inside a kernel by identity, and caches a kernel by its own module and name).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numba
import numpy as np

F = TypeVar("F", bound=Callable[..., Any])

if TYPE_CHECKING:

    @overload
    def njit(function: F, /) -> F: ...
    @overload
    def njit(*signatures: Any, **options: Any) -> Callable[[F], F]: ...
    def njit(*signatures: Any, **options: Any) -> Any:
        """``numba.njit``: compile a function in nopython mode."""

    def vectorize(*signatures: Any, **options: Any) -> Callable[[Callable[..., Any]], np.ufunc]:
        """``numba.vectorize``: compile a scalar function into a ufunc."""

    prange = range
else:
    njit = numba.njit
    vectorize = numba.vectorize
    prange = numba.prange

__all__ = ["njit", "prange", "vectorize"]
