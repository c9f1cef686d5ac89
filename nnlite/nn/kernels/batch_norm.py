"""Batch normalisation kernels on (N, C, L) arrays (L: every position of one channel in an image).

numpy takes a training-mode batch norm in about ten passes over memory with three temporaries
(mean over the non-channel axes, the centred copy, its square, the scaled copy, the shifted one;
backward about as many again), and its reductions over axes ``(0, 2, 3)`` are slow at ResNet's
small planes. Here each is one numba loop per channel:

- ``channel_stats``: mean and biased variance (two passes over one channel, which stays in cache);
- ``normalize``: ``y = x * scale[c] + shift[c]``, and with ``relu`` also ``max(y, 0)`` in the same
  pass (a batch norm followed by a ReLU, ResNet's most common pair);
- ``backward``: the input, weight and bias gradients in two passes (the per-channel sums, then
  the input gradient), with or without the batch statistics in the graph.

Sums accumulate in float64 for float32 data. Channels are split across numba's threads when the
array is large (``parallel_parts``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit, prange
from ._dispatch import _renamed, parallel_parts

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..._typing import Array

__all__ = ["channel_stats", "normalize", "backward", "as_channels"]


def as_channels(x: Array) -> Array:
    """The (N, C, L) contiguous view (or copy) of an (N, C, ...) array."""
    x = np.ascontiguousarray(x)
    return x.reshape(x.shape[0], x.shape[1], -1)


def _stats(x: Array, mean: Array, var: Array) -> None:
    N, C, L = x.shape
    count = N * L
    for c in prange(C):
        s = 0.0
        for n in range(N):
            row = x[n, c]
            for i in range(L):
                s += row[i]
        m = s / count
        q = 0.0
        for n in range(N):
            row = x[n, c]
            for i in range(L):
                d = row[i] - m
                q += d * d
        mean[c] = m
        var[c] = q / count


def _normalize(x: Array, scale: Array, shift: Array, relu: bool, y: Array) -> None:
    N, C, L = x.shape
    for c in prange(C):
        a = scale[c]
        b = shift[c]
        for n in range(N):
            src = x[n, c]
            dst = y[n, c]
            if relu:
                for i in range(L):
                    dst[i] = max(src[i] * a + b, 0.0)
            else:
                for i in range(L):
                    dst[i] = src[i] * a + b


def _backward(
    g: Array,
    x: Array,
    mean: Array,
    invstd: Array,
    w: Array,
    batch_stats: bool,
    gx: Array,
    gw: Array,
    gb: Array,
) -> None:
    """gw[c] = sum g * xhat, gb[c] = sum g; gx (when gx.size) = w * invstd * (g - [mean g + xhat
    * mean(g * xhat)]) with the bracket only under batch statistics."""
    N, C, L = x.shape
    count = N * L
    for c in prange(C):
        m = mean[c]
        inv = invstd[c]
        sg = 0.0
        sgx = 0.0
        for n in range(N):
            grow = g[n, c]
            xrow = x[n, c]
            for i in range(L):
                sg += grow[i]
                sgx += grow[i] * (xrow[i] - m)
        sgx *= inv
        gw[c] = sgx
        gb[c] = sg
        if gx.size:
            k = w[c] * inv
            if batch_stats:
                mg = sg / count
                mgx = sgx / count * inv  # folds xhat's invstd into the coefficient of (x - m)
            else:
                mg = 0.0
                mgx = 0.0
            for n in range(N):
                grow = g[n, c]
                xrow = x[n, c]
                dst = gx[n, c]
                for i in range(L):
                    dst[i] = k * (grow[i] - mg - (xrow[i] - m) * mgx)


# Sums may be reordered (vectorised, several accumulators): a strict left-to-right float64 sum is
# bound by the add latency, which made the statistics slower than numpy's pairwise sums.
_REORDER_SUMS = {"reassoc", "contract"}


class _Both:
    """A kernel in a parallel (prange over channels) and a serial build, chosen by size."""

    def __init__(self, fn: Callable[..., None]) -> None:
        flags = {"cache": True, "nogil": True, "fastmath": _REORDER_SUMS}
        self.parallel = njit(parallel=True, **flags)(fn)
        self.serial = njit(**flags)(_renamed(fn, "_serial"))

    def __call__(self, size: int, *args: object) -> None:
        return (self.parallel if parallel_parts(size) > 1 else self.serial)(*args)


_stats_kernel = _Both(_stats)
_normalize_kernel = _Both(_normalize)
_backward_kernel = _Both(_backward)


def channel_stats(x: Array) -> tuple[Array, Array]:
    """Per-channel mean and biased variance (float64) of the (N, C, ...) array ``x``."""
    x3 = as_channels(x)
    C = x3.shape[1]
    mean = np.empty(C, np.float64)
    var = np.empty(C, np.float64)
    _stats_kernel(x3.size, x3, mean, var)
    return mean, var


def normalize(x: Array, scale: Array, shift: Array, relu: bool = False) -> Array:
    """``x * scale[c] + shift[c]`` (then ``max(., 0)`` with ``relu``) of the (N, C, ...) ``x``."""
    x3 = as_channels(x)
    y = np.empty(x.shape, x.dtype)
    dt = x.dtype
    _normalize_kernel(
        x3.size,
        x3,
        scale.astype(dt, copy=False),
        shift.astype(dt, copy=False),
        relu,
        y.reshape(x3.shape),
    )
    return y


def backward(
    g: Array,
    x: Array,
    mean: Array,
    invstd: Array,
    w: Array | None,
    batch_stats: bool,
    need_input: bool,
) -> tuple[Array | None, Array, Array]:
    """(gx or None, gw, gb) of ``y = (x - mean) * invstd * w + b``; ``w`` may be None (ones).
    Under ``batch_stats`` the mean and invstd are those of ``x`` and their gradient is included."""
    x3 = as_channels(x)
    g3 = as_channels(g).astype(x.dtype, copy=False)
    C = x3.shape[1]
    dt = x.dtype
    gx = np.empty(x.shape if need_input else (0,), dt)
    gw = np.empty(C, np.float64)
    gb = np.empty(C, np.float64)
    weight = np.ones(C, dt) if w is None else w.astype(dt, copy=False)
    _backward_kernel(
        x3.size,
        g3,
        x3,
        mean.astype(np.float64, copy=False),
        invstd.astype(np.float64, copy=False),
        weight,
        batch_stats,
        gx.reshape(x3.shape) if need_input else gx.reshape(0, 0, 0),
        gw,
        gb,
    )
    return (gx if need_input else None), gw.astype(dt), gb.astype(dt)
