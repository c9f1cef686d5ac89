"""Strided convolutions of few input channels: an image network's stem (ResNet's 3-channel 7x7
convolution with stride 2).

Such a convolution has few columns per output pixel (147 for 3x7x7) but many output pixels, and a
stride breaks the contiguous runs the other im2col kernels copy: the NCHW one (``conv``) copies
every column entry on its own, the channels-last one (``conv_gemm``) runs of only ``kw * C``
values. Here each image is first split into its ``sh * sw`` polyphase planes,

    phase[c, a, b, u, v] = padded x[c, u * sh + a, v * sw + b]

on which the strided convolution is a stride-1 one: tap ``(i, j)`` reads phase
``(i % sh, j % sw)`` shifted by ``(i // sh, j // sw)``. A column row ``col[(c, i, j), (ho, wo)]``
is then ``Ho`` runs of ``Wo`` contiguous values (vector copies), and the padding is written once
into the phases instead of being tested per entry.

Columns are built for a block of images whose columns stay in L2 (``_BLOCK_BYTES``), and every
image's product is one BLAS GEMM in the orientation that writes NCHW directly:

    forward         y[n] (Co, P)       = w (Co, K) @ col[n] (K, P)
    weight grad     gw.T (K, Co)       += col[n] (K, P) @ gy[n].T (P, Co)

(The input gradient of a stem is never needed for an image batch; ``conv`` computes it.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit
from ..._runtime.threads_matmul import matmul

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from numpy.typing import DTypeLike

    from ..._typing import Array

__all__ = ["forward", "backward_weight"]

# Column bytes per block of images: a few images' columns (150 KB each for ResNet's stem on 32x32)
# stay in L2 between the copy and the GEMM.
_BLOCK_BYTES = 1 << 19


@njit(cache=True, nogil=True)
def _columns(
    x: Array,
    n0: int,
    ph: int,
    pw: int,
    sh: int,
    sw: int,
    kh: int,
    kw: int,
    phase: Array,
    col: Array,
) -> None:
    """col[b, (c, i, j), ho * Wo + wo] = padded x[n0 + b, c, ho * sh + i, wo * sw + j]."""
    B, K, P = col.shape
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    U, V = phase.shape[3], phase.shape[4]
    Ho = U - (kh - 1) // sh
    Wo = V - (kw - 1) // sw
    for b in range(B):
        img = x[n0 + b]
        for c in range(C):
            for a in range(sh):
                for e in range(sw):
                    for u in range(U):
                        h = u * sh + a - ph
                        row = phase[c, a, e, u]
                        if h < 0 or h >= H:
                            row[:] = 0
                            continue
                        src = img[c, h]
                        for v in range(V):
                            w = v * sw + e - pw
                            row[v] = src[w] if 0 <= w < W else 0
        _phase_columns(phase, sh, sw, kh, kw, Ho, Wo, col[b])


@njit(cache=True, nogil=True)
def _phase_columns(
    phase: Array, sh: int, sw: int, kh: int, kw: int, Ho: int, Wo: int, col: Array
) -> None:
    """col[(c, i, j), ho * Wo + wo] = phase[c, i % sh, j % sw, ho + i // sh, wo + j // sw]."""
    C, U, V = phase.shape[0], phase.shape[3], phase.shape[4]
    src = phase.ravel()
    dst = col.ravel()
    # Unsigned offsets: numba then drops the negative-index wraparound test of every access,
    # which kept these short copies from being vectorised (1.7x slower).
    width = np.uint64(Wo)
    k = 0
    for c in range(C):
        for i in range(kh):
            for j in range(kw):
                s = np.uint64(((c * sh + i % sh) * sw + j % sw) * U * V + (i // sh) * V + j // sw)
                d = np.uint64(k * Ho * Wo)
                for _ in range(Ho):
                    for q in range(width):
                        dst[d + q] = src[s + q]
                    s += np.uint64(V)
                    d += width
                k += 1


class _Stem:
    """One stem convolution's sizes and scratch buffers."""

    def __init__(
        self,
        x_shape: Sequence[int],
        kernel_hw: Sequence[int],
        stride: Sequence[int],
        padding: Sequence[int],
        dtype: DTypeLike,
    ) -> None:
        self.N, self.C, H, W = x_shape
        self.kh, self.kw = kernel_hw
        self.sh, self.sw = stride
        self.ph, self.pw = padding
        self.Ho = (H + 2 * self.ph - self.kh) // self.sh + 1
        self.Wo = (W + 2 * self.pw - self.kw) // self.sw + 1
        self.P = self.Ho * self.Wo
        self.K = self.C * self.kh * self.kw
        itemsize = np.dtype(dtype).itemsize
        self.block = max(1, min(self.N, _BLOCK_BYTES // (self.K * self.P * itemsize)))
        U = self.Ho + (self.kh - 1) // self.sh
        V = self.Wo + (self.kw - 1) // self.sw
        self.phase = np.empty((self.C, self.sh, self.sw, U, V), dtype)
        self.col_buf = np.empty(self.block * self.K * self.P, dtype)

    def blocks(self, x: Array) -> Iterator[tuple[int, int, Array]]:
        """(n0, b, col) per block of images, col the (b, K, P) columns of images n0 .. n0 + b."""
        for n0 in range(0, self.N, self.block):
            b = min(self.block, self.N - n0)
            col = self.col_buf[: b * self.K * self.P].reshape(b, self.K, self.P)
            _columns(x, n0, self.ph, self.pw, self.sh, self.sw, self.kh, self.kw, self.phase, col)
            yield n0, b, col


def forward(
    x: Array, w: Array, bias: Array | None, stride: Sequence[int], padding: Sequence[int]
) -> Array:
    """conv2d(x, w, bias) of the contiguous NCHW x and (Co, C, kh, kw) w (one group, no dilation)."""
    s = _Stem(x.shape, w.shape[2:], stride, padding, x.dtype)
    Co = w.shape[0]
    y = np.empty((s.N, Co, s.Ho, s.Wo), x.dtype)
    w2 = w.reshape(Co, s.K)
    for n0, b, col in s.blocks(x):
        yb = y[n0 : n0 + b].reshape(b, Co, s.P)
        matmul(w2, col, out=yb)
        if bias is not None:
            yb += bias[:, None]
    return y


def backward_weight(
    gy: Array, x: Array, kernel_hw: Sequence[int], stride: Sequence[int], padding: Sequence[int]
) -> Array:
    """The gradient of conv2d with respect to its (Co, C, *kernel_hw) weight."""
    s = _Stem(x.shape, kernel_hw, stride, padding, x.dtype)
    Co = gy.shape[1]
    gyr = gy.reshape(s.N, Co, s.P)
    gwt = np.zeros((s.K, Co), x.dtype)
    part = np.empty((s.block, s.K, Co), x.dtype)
    for n0, b, col in s.blocks(x):
        prod = part[:b]
        matmul(col, gyr[n0 : n0 + b].transpose(0, 2, 1), out=prod)
        gwt += prod.sum(axis=0)
    return np.ascontiguousarray(gwt.T).reshape((Co, s.C) + tuple(kernel_hw))
