"""Threading for the numba kernels: the threading layer, and serial runs of small work.

Launching numba's thread pool costs tens to hundreds of microseconds per call, more than a whole
small kernel (a batch-4 LeNet pooling layer); worse, two busy pools (numba's and BLAS's) on two
cores slowed a batch-4 training step tenfold. So every parallel kernel is also compiled serially,
and the serial build runs when the work is small or nnlite is set to one thread.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any, TypeVar, cast

from ..._runtime.jit import njit
from ..._runtime.threads import configure_threading_layer as configure_threading_layer
from ..._runtime.threads import get_num_threads, sync_numba_threads

# Below this many input elements a kernel runs on the calling thread. Measured on 2 cores with
# LeNet: numba's fork-safe pool pays off from batch 256 (about 0.8M input elements per layer) but
# slowed batch 64 (0.05-0.3M) by a third.
MIN_PARALLEL_ELEMENTS = 1 << 19

_F = TypeVar("_F", bound=Callable[..., Any])


def _renamed(fn: _F, suffix: str) -> _F:
    """A copy of ``fn`` under another name, so the two builds keep separate cache files."""
    copy = types.FunctionType(
        fn.__code__, fn.__globals__, fn.__name__ + suffix, fn.__defaults__, fn.__closure__
    )
    copy.__qualname__ = fn.__qualname__ + suffix
    copy.__module__ = fn.__module__
    copy.__doc__ = fn.__doc__
    return cast("_F", copy)  # the same function, so the same signature


def parallel_parts(size: int) -> int:
    """How many threads a kernel over ``size`` input elements should split its work into."""
    if size < MIN_PARALLEL_ELEMENTS or get_num_threads() == 1:
        return 1
    return sync_numba_threads()


class PlaneParallel:
    """A kernel with a ``prange`` over its first argument's planes, in a parallel and a serial build."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.parallel = njit(parallel=True, cache=True, fastmath=False)(fn)
        self.serial = njit(cache=True, fastmath=False)(_renamed(fn, "_serial"))
        self.__doc__ = fn.__doc__

    def __call__(self, *args: Any) -> Any:
        if parallel_parts(args[0].size) == 1:
            return self.serial(*args)
        return self.parallel(*args)
