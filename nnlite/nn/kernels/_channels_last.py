"""Layout copies between NCHW arrays and channels-last rows, for the channels-last conv kernels.

``conv_gemm`` and ``conv_tap_sum`` run their GEMMs on channels-last rows (one row per pixel, its
channels contiguous); these numba loops move images between that layout and NCHW. Each is built
twice, split over images across numba's threads (``prange``) and serial, and the call picks one
by the size of the work (``parallel_parts``); each image's writes stay inside that image.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._runtime.jit import njit, prange
from ._dispatch import _renamed, parallel_parts

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..._typing import Array

# Channels moved together by the padded-layout copies: one 64-byte cache line of float32.
_LINE = 16


def _to_padded_nhwc(x: Array, n0: int, xp: Array, ph: int, pw: int) -> None:
    """xp[b, h + ph, w + pw, c] = x[n0 + b, c, h, w]; xp's border stays as it is (zeros)."""
    B = xp.shape[0]
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    for b in prange(B):
        for h in range(H):
            dst = xp[b, h + ph]
            # A block of channels at a time: each pixel's writes fill whole cache lines, and the
            # block's source rows stream (a channel at a time rewrote every line of the image).
            for c0 in range(0, C, _LINE):
                c1 = min(c0 + _LINE, C)
                for w in range(W):
                    for c in range(c0, c1):
                        dst[w + pw, c] = x[n0 + b, c, h, w]


def _from_padded_nhwc(gxp: Array, gx: Array, n0: int, ph: int, pw: int) -> None:
    """gx[n0 + b, c, h, w] = gxp[b, h + ph, w + pw, c]."""
    B = gxp.shape[0]
    C, H, W = gx.shape[1], gx.shape[2], gx.shape[3]
    for b in prange(B):
        for h in range(H):
            src = gxp[b, h + ph]
            for c0 in range(0, C, _LINE):
                c1 = min(c0 + _LINE, C)
                for w in range(W):
                    for c in range(c0, c1):
                        gx[n0 + b, c, h, w] = src[w + pw, c]


def _from_rows(yr: Array, y: Array, n0: int, bias: Array) -> None:
    """y[n0 + b, o, p] = yr[b, p, o] + bias[o] (channels-last rows back to NCHW)."""
    B, P, Co = yr.shape
    yf = y.reshape(y.shape[0], Co, P)
    for b in prange(B):
        for o in range(Co):
            bv = bias[o]
            dst = yf[n0 + b, o]
            for p in range(P):
                dst[p] = yr[b, p, o] + bv


def _to_rows(gy: Array, n0: int, gr: Array) -> None:
    """gr[b, p, o] = gy[n0 + b, o, p] (NCHW to channels-last rows)."""
    B, P, Co = gr.shape
    gf = gy.reshape(gy.shape[0], Co, P)
    for b in prange(B):
        for o in range(Co):
            src = gf[n0 + b, o]
            for p in range(P):
                gr[b, p, o] = src[p]


class Both:
    """A copy kernel in a parallel (prange over images) and a serial build, chosen per call."""

    def __init__(self, fn: Callable[..., None]) -> None:
        self.parallel = njit(parallel=True, cache=True, nogil=True)(fn)
        self.serial = njit(cache=True, nogil=True)(_renamed(fn, "_serial"))

    def __call__(self, size: int, *args: object) -> None:
        return (self.parallel if parallel_parts(size) > 1 else self.serial)(*args)


to_padded_nhwc = Both(_to_padded_nhwc)
from_padded_nhwc = Both(_from_padded_nhwc)
from_rows = Both(_from_rows)
to_rows = Both(_to_rows)
