"""Optimizer updates in one pass over memory, split over nnlite's threads when the tensor is big.

In numpy, SGD with momentum is four passes over the parameter's size (scale the buffer, add the
gradient, scale by the learning rate into a temporary, subtract) and runs on one thread; for a
ResNet-18 (11.7M parameters) that was 12 % of a batch-16 training step, serial on any number of
cores. These kernels read each element once and write it once, in the same order of float
operations as the numpy code (no fused multiply-add, every scalar in the array's precision), so the
results are the same bit for bit; ``tests/optim/test_fused_updates.py`` checks that.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from .._runtime.jit import njit, prange
from .._runtime.threads import get_num_threads, sync_numba_threads

if TYPE_CHECKING:
    from numpy.typing import NDArray

# Below this many elements an update runs on the calling thread (as the convolution kernels do):
# handing work to numba's pool costs tens of microseconds.
MIN_PARALLEL_ELEMENTS = 1 << 19

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _sgd_momentum(
    p: NDArray[Any],
    g: NDArray[Any],
    buf: NDArray[Any],
    lr: Any,
    momentum: Any,
    damp: Any,
    weight_decay: Any,
    nesterov: bool,
    maximize: bool,
) -> None:
    # p, g, buf are flat; the scalars have the arrays' dtype, so every product rounds as numpy's
    for i in prange(p.shape[0]):
        gi = g[i]
        if maximize:
            gi = -gi
        if weight_decay != 0:
            gi = gi + weight_decay * p[i]
        b = buf[i] * momentum
        b = b + damp * gi
        buf[i] = b
        step = gi + momentum * b if nesterov else b
        p[i] = p[i] - lr * step


def _two_builds(fn: Callable[..., None]) -> tuple[Callable[..., None], Callable[..., None]]:
    """A serial and a parallel build of ``fn`` (separately named, so they cache separately)."""
    serial = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_serial")
    serial.__qualname__ = fn.__qualname__ + "_serial"
    return njit(cache=True)(serial), njit(cache=True, parallel=True)(fn)


_SGD_MOMENTUM = _two_builds(_sgd_momentum)


def fusable(*arrays: Any) -> bool:
    """The arrays are C-contiguous, writeable numpy arrays of one float dtype and one size."""
    first = arrays[0]
    if not isinstance(first, np.ndarray) or first.dtype not in _FLOATS:
        return False
    return all(
        isinstance(a, np.ndarray)
        and a.dtype == first.dtype
        and a.size == first.size
        and a.flags.c_contiguous
        and a.flags.writeable
        for a in arrays
    )


def _build(
    builds: tuple[Callable[..., None], Callable[..., None]], size: int
) -> Callable[..., None]:
    if size < MIN_PARALLEL_ELEMENTS or get_num_threads() == 1:
        return builds[0]
    sync_numba_threads()
    return builds[1]


def sgd_momentum_(
    p: NDArray[Any],
    g: NDArray[Any],
    buf: NDArray[Any],
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """SGD's momentum step in place on ``p`` and ``buf`` (arrays for which ``fusable`` holds).

    Args:
        p, g, buf (numpy.ndarray): the parameter, its gradient and its momentum buffer.
        lr, momentum, dampening, weight_decay (float): SGD's options.
        nesterov, maximize (bool): SGD's options.

    Example:
        >>> p, g, b = np.ones(3), np.full(3, 0.5), np.zeros(3)
        >>> sgd_momentum_(p, g, b, lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0,
        ...               nesterov=False, maximize=False)
        >>> p
        array([0.95, 0.95, 0.95])
    """
    scalar = p.dtype.type
    _build(_SGD_MOMENTUM, p.size)(
        p.reshape(-1),
        g.reshape(-1),
        buf.reshape(-1),
        scalar(lr),
        scalar(momentum),
        scalar(1 - dampening),
        scalar(weight_decay),
        nesterov,
        maximize,
    )
