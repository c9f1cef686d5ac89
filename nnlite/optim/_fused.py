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
# Below these sizes numpy's passes are as quick as a kernel call (about 3 us of dispatch), so the
# optimizers keep them: measured per tensor, SGD's four cheap passes break even at 16K elements,
# Adam's twelve (with a square root and a division) at about 1K.
SGD_MIN_ELEMENTS = 1 << 14
ADAM_MIN_ELEMENTS = 1 << 10

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
    # error_model="numpy": a division by zero gives inf or NaN, as in numpy, with no check per element
    options = {"cache": True, "error_model": "numpy"}
    return njit(**options)(serial), njit(parallel=True, **options)(fn)


_SGD_MOMENTUM = _two_builds(_sgd_momentum)


def _adam(
    p: NDArray[Any],
    g: NDArray[Any],
    m: NDArray[Any],
    v: NDArray[Any],
    v_max: NDArray[Any],
    decay: Any,
    weight_decay: Any,
    lerp_weight: Any,
    lerp_from_end: bool,
    beta2: Any,
    one_minus_beta2: Any,
    bias2_sqrt: Any,
    eps: Any,
    step_size: Any,
    amsgrad: bool,
    maximize: bool,
) -> None:
    # the flat arrays and scalars as in _sgd_momentum; see adam() for the rule written in numpy
    for i in prange(p.shape[0]):
        gi = g[i]
        if maximize:
            gi = -gi
        pi = p[i]
        if decay != 1:
            pi = pi * decay
        if weight_decay != 0:
            gi = gi + weight_decay * pi
        mi = m[i]
        if lerp_from_end:
            mi = gi - lerp_weight * (gi - mi)
        else:
            mi = mi + lerp_weight * (gi - mi)
        m[i] = mi
        vi = v[i] * beta2
        vi = vi + one_minus_beta2 * gi * gi
        v[i] = vi
        if amsgrad:
            previous = v_max[i]
            # numpy's maximum: a NaN on either side wins
            vi = previous if previous >= vi or np.isnan(previous) else vi
            v_max[i] = vi
        denom = np.sqrt(vi) / bias2_sqrt + eps
        p[i] = pi - step_size * mi / denom


_ADAM = _two_builds(_adam)


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


def adam_(
    p: NDArray[Any],
    g: NDArray[Any],
    m: NDArray[Any],
    v: NDArray[Any],
    v_max: NDArray[Any] | None,
    *,
    step: float,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    amsgrad: bool,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> None:
    """Adam's step ``step`` (counted from 1) in place on ``p``, ``m``, ``v`` (and ``v_max``).

    The arrays are ones for which ``fusable`` holds; ``v_max`` is used only with ``amsgrad``.

    Example:
        >>> p, g, m, v = np.ones(2), np.full(2, 0.5), np.zeros(2), np.zeros(2)
        >>> adam_(p, g, m, v, None, step=1, lr=0.1, betas=(0.9, 0.999), eps=1e-8,
        ...       weight_decay=0.0, amsgrad=False, maximize=False, decoupled_weight_decay=False)
        >>> p
        array([0.9, 0.9])
    """
    scalar = p.dtype.type
    beta1, beta2 = betas
    lerp_weight = 1 - beta1
    lerp_from_end = lerp_weight >= 0.5  # as _lerp_ in adam.py, after PyTorch's lerp_
    if lerp_from_end:
        lerp_weight = 1 - float(scalar(lerp_weight))
    decoupled = decoupled_weight_decay and weight_decay != 0
    flat = [a.reshape(-1) for a in (p, g, m, v, v if v_max is None else v_max)]
    _build(_ADAM, p.size)(
        *flat,
        scalar(1 - lr * weight_decay if decoupled else 1),
        scalar(0 if decoupled else weight_decay),
        scalar(lerp_weight),
        lerp_from_end,
        scalar(beta2),
        scalar(1 - beta2),
        scalar((1 - beta2**step) ** 0.5),
        scalar(eps),
        scalar(lr / (1 - beta1**step)),
        amsgrad,
        maximize,
    )


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
