"""Convolution as one large GEMM on channels-last columns: the kernels for wide layers.

The NCHW kernels of ``conv`` copy one input row per (image, channel, tap), which costs more than
the arithmetic once rows are a few pixels long (ResNet's 8x8 to 1x1 planes). Here a chunk of
images is first moved to a zero-padded channels-last copy ``xp[n, h, w, c]``; an im2col column
row is then the receptive field of one output pixel, ``col[(n, ho, wo), (i, j, c)]``, built from
runs of ``C`` (or, with dilation 1 along the width, ``kw * C``) contiguous values. The three
products are single BLAS GEMMs over every output pixel of the chunk:

    forward         y[(n, p), o]     = col @ w2.T
    input grad      dcol             = gy[(n, p), o] @ w2      then col2im (gather per image)
    weight grad     gw2              = gy.T @ col              summed over chunks

with ``w2[o, (i, j, c)]`` the weight in channels-last order (or, when the columns are fewer than
the output channels, both in the weight's own ``(c, i, j)`` order: see ``_Shape.tap_major``). A 1x1
convolution with stride 1 and no padding needs no im2col at all: its columns are the
channels-last input itself, and on planes of ``_PER_IMAGE_POSITIONS`` pixels or more it is a
matrix product per image on the NCHW arrays. With a stride it first takes every stride-th pixel.

Thin layers (few output channels next to the input ones, large kernels), where these column
copies are most of the time, are handed per operation to ``conv_tap_sum`` when the cost model of
``conv_select.channels_last_variant`` says so.

Chunks hold as many images as keep the column buffer under ``_CHUNK_BYTES``, which still gives
GEMMs of thousands of rows. Only ``groups == 1``; the selector sends grouped convolutions to
``conv``. The copies are numba loops (the layout ones in ``_channels_last``), serial or split
over images across numba's threads when they are large (``parallel_parts``); each image's writes
stay inside that image.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..._runtime.jit import prange
from ..._runtime.threads_matmul import matmul
from . import conv_tap_sum
from ._channels_last import Both, from_padded_nhwc, from_rows, to_padded_nhwc, to_rows
from .conv_select import TAP_SUM, channels_last_variant

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import DTypeLike

    from ..._typing import Array

__all__ = ["forward", "backward_input", "backward_weight"]

# Column buffer per chunk: big GEMMs, bounded memory (a batch-256 64x64 layer would need GBs).
_CHUNK_BYTES = 1 << 25
# From this many output pixels per image, the forward and input-gradient GEMMs run image by image
# in the orientation that reads and writes NCHW directly (Co x P blocks), which saves a transpose
# of the output; below it, one GEMM over the chunk is worth the transpose.
_PER_IMAGE_POSITIONS = 64
# Up to this many images a 1x1 convolution runs per image on NCHW even on small planes: the
# channels-last copies' fixed cost (two numba calls, a buffer) outweighs a few small GEMMs.
_FEW_IMAGES = 4


def _chunk(N: int, rows_per_image: int, row_bytes: int) -> int:
    return max(1, min(N, _CHUNK_BYTES // max(1, rows_per_image * row_bytes)))


# ----------------------------------------------------------------------------
# numba copies: layouts and im2col / col2im, one image per iteration
# ----------------------------------------------------------------------------


def _im2col_nhwc(
    xp: Array,
    col: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    tap_major: bool,
) -> None:
    """col[b, ho, wo, k] = xp[b, ho * sh + i * dh, wo * sw + j * dw, c] with the column index
    k = (i, j, c) when tap_major, else k = (c, i, j) (the weight's own order)."""
    B, Hp, Wp, C = xp.shape
    K = col.shape[3]
    T = kh * kw
    run = kw * C if dw == 1 else C  # taps along the width are adjacent in memory when dw == 1
    taps_w = 1 if dw == 1 else kw
    for b in prange(B):
        src = xp[b].reshape(Hp * Wp * C)
        dst = col[b].reshape(Ho * Wo * K)
        d = 0
        for ho in range(Ho):
            for wo in range(Wo):
                if tap_major:
                    for i in range(kh):
                        for j in range(taps_w):
                            s = ((ho * sh + i * dh) * Wp + wo * sw + j * dw) * C
                            dst[d : d + run] = src[s : s + run]
                            d += run
                else:
                    # Strided writes, but inside one column row, which stays in L1.
                    for i in range(kh):
                        for j in range(kw):
                            s = ((ho * sh + i * dh) * Wp + wo * sw + j * dw) * C
                            t = d + i * kw + j
                            for c in range(C):
                                dst[t + c * T] = src[s + c]
                    d += K


def _col2im_nhwc(
    dcol: Array,
    gxp: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    tap_major: bool,
) -> None:
    """The transpose of _im2col_nhwc: gxp[b, ...] += every column entry that read that pixel.
    All writes of iteration b stay in image b, so images can go to different threads."""
    B, Hp, Wp, C = gxp.shape
    K = dcol.shape[3]
    T = kh * kw
    run = kw * C if dw == 1 else C
    taps_w = 1 if dw == 1 else kw
    for b in prange(B):
        dst = gxp[b].reshape(Hp * Wp * C)
        src = dcol[b].reshape(Ho * Wo * K)
        k = 0
        for ho in range(Ho):
            for wo in range(Wo):
                if tap_major:
                    for i in range(kh):
                        for j in range(taps_w):
                            d = ((ho * sh + i * dh) * Wp + wo * sw + j * dw) * C
                            for q in range(run):
                                dst[d + q] += src[k + q]
                            k += run
                else:
                    for i in range(kh):
                        for j in range(kw):
                            d = ((ho * sh + i * dh) * Wp + wo * sw + j * dw) * C
                            t = k + i * kw + j
                            for c in range(C):
                                dst[d + c] += src[t + c * T]
                    k += K


im2col_nhwc = Both(_im2col_nhwc)
col2im_nhwc = Both(_col2im_nhwc)


# ----------------------------------------------------------------------------
# The three convolutions
# ----------------------------------------------------------------------------


class _Shape:
    """One convolution's sizes, in the form the channels-last kernels use."""

    def __init__(
        self,
        N: int,
        C: int,
        H: int,
        W: int,
        Co: int,
        kernel_hw: Sequence[int],
        stride: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        dtype: DTypeLike,
    ) -> None:
        self.N, self.C, self.H, self.W, self.Co = N, C, H, W, Co
        (self.kh, self.kw), (self.sh, self.sw) = kernel_hw, stride
        (self.ph, self.pw), (self.dh, self.dw) = padding, dilation
        self.Hp, self.Wp = H + 2 * self.ph, W + 2 * self.pw
        self.Ho = (self.Hp - self.dh * (self.kh - 1) - 1) // self.sh + 1
        self.Wo = (self.Wp - self.dw * (self.kw - 1) - 1) // self.sw + 1
        self.P = self.Ho * self.Wo
        self.K = self.kh * self.kw * C
        self.dtype = dtype
        # A 1x1 convolution with stride 1 and no padding: the channels-last input is the column.
        self.direct = self.K == C and self.sh == self.sw == 1 and self.ph == self.pw == 0
        # Column order. (i, j, c) copies whole runs of channels but needs the weight (and its
        # gradient) transposed to match; (c, i, j) is the weight's own order, at the price of strided
        # writes inside each column row. Transposing costs Co * K per call, the strided copies about
        # rows * K: the weight's order wins when there are fewer column rows than output channels
        # (ResNet's last layers, small batches), where the transposes were a fifth of a step.
        self.tap_major = N * self.P >= Co
        self.itemsize = np.dtype(dtype).itemsize

    @property
    def chunk(self) -> int:
        """Images per chunk of the column buffer."""
        return _chunk(self.N, self.P, (self.K + self.Co) * self.itemsize)

    @staticmethod
    @functools.lru_cache(maxsize=1024)
    def of(
        N: int,
        C: int,
        H: int,
        W: int,
        Co: int,
        kernel_hw: tuple[int, ...],
        stride: tuple[int, ...],
        padding: tuple[int, ...],
        dilation: tuple[int, ...],
        dtype: np.dtype[Any],
    ) -> _Shape:
        """The shape of these sizes, built once per distinct call (a training loop repeats a few):
        small calls spend a good part of their time in this Python arithmetic."""
        return _Shape(N, C, H, W, Co, kernel_hw, stride, padding, dilation, dtype)

    def taps(self) -> tuple[int, int, int, int, int, int, int, int, bool]:
        """The arguments im2col and col2im take after their two arrays."""
        return (
            self.kh,
            self.kw,
            self.sh,
            self.sw,
            self.dh,
            self.dw,
            self.Ho,
            self.Wo,
            self.tap_major,
        )

    def weight_rows(self, w: Array) -> Array:
        """The (Co, K) weight matrix in the columns' order."""
        if self.tap_major:
            return np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(self.Co, self.K)
        return w.reshape(self.Co, self.K)

    def weight_from_rows(self, gw2: Array) -> Array:
        """The (Co, C, kh, kw) weight gradient from its (Co, K) matrix in the columns' order."""
        if self.tap_major:
            return np.ascontiguousarray(
                gw2.reshape(self.Co, self.kh, self.kw, self.C).transpose(0, 3, 1, 2)
            )
        return gw2.reshape(self.Co, self.C, self.kh, self.kw)


def _pairs(
    stride: Sequence[int], padding: Sequence[int], dilation: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The (stride, padding, dilation) arguments as tuples, the keys of ``_Shape.of``."""
    return tuple(stride), tuple(padding), tuple(dilation)


def _columns(s: _Shape, x: Array, n0: int, b: int, xp_buf: Array, col_buf: Array | None) -> Array:
    """The (b * P, K) column matrix of images n0 .. n0 + b of the NCHW x."""
    xp = xp_buf[: b * s.Hp * s.Wp * s.C].reshape(b, s.Hp, s.Wp, s.C)
    if s.ph or s.pw:
        xp[:] = 0
    to_padded_nhwc(b * s.C * s.H * s.W, x, n0, xp, s.ph, s.pw)
    if s.direct:
        return xp.reshape(b * s.P, s.K)
    col = cast("Array", col_buf)[: b * s.P * s.K].reshape(b, s.Ho, s.Wo, s.K)  # not direct
    im2col_nhwc(col.size, xp, col, *s.taps())
    return col.reshape(b * s.P, s.K)


def _buffers(s: _Shape, with_col: bool = True) -> tuple[Array, Array | None]:
    chunk = s.chunk
    xp_buf = np.empty(chunk * s.Hp * s.Wp * s.C, s.dtype)
    col_buf = None if s.direct or not with_col else np.empty(chunk * s.P * s.K, s.dtype)
    return xp_buf, col_buf


def _strided_pointwise(
    kernel_hw: Sequence[int], stride: Sequence[int], padding: Sequence[int]
) -> bool:
    """A 1x1 convolution with a stride and no padding (ResNet's downsampling shortcut): the same as
    a stride-1 one on every stride-th pixel, which needs no im2col."""
    return tuple(kernel_hw) == (1, 1) and tuple(padding) == (0, 0) and tuple(stride) != (1, 1)


def _planar_pointwise(s: _Shape) -> bool:
    """A 1x1 stride-1 convolution on planes of many pixels, or of a few images, is a matrix product
    per image on the NCHW arrays themselves (Co x C times C x P): no copy at all. (Below that, one
    GEMM over the chunk's channels-last rows is worth its two transposes.)"""
    return s.direct and (s.P >= _PER_IMAGE_POSITIONS or s.N <= _FEW_IMAGES)


def _thin_transposed(s: _Shape) -> bool:
    """Stride 1, at most a quarter as many output channels as input ones, and padding a full
    convolution can undo: the input gradient is then cheaper as a convolution of the output
    gradient (its im2col copies Co, not C, channels per tap)."""
    return (
        s.sh == s.sw == 1
        and 4 * s.Co <= s.C
        and s.K > s.C
        and s.ph <= s.dh * (s.kh - 1)
        and s.pw <= s.dw * (s.kw - 1)
    )


def _tap_sum(s: _Shape, op: str) -> bool:
    """Whether the cost model sends ``op`` of this shape to ``conv_tap_sum`` (thin layers)."""
    return (
        channels_last_variant(
            op,
            s.N,
            s.C,
            s.H,
            s.W,
            s.Co,
            (s.kh, s.kw),
            (s.sh, s.sw),
            (s.ph, s.pw),
            (s.dh, s.dw),
        )
        == TAP_SUM
    )


def forward(
    x: Array,
    w: Array,
    bias: Array | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> Array:
    """conv2d(x, w, bias) of the NCHW x and (Co, C, kh, kw) w (one group)."""
    if _strided_pointwise(w.shape[2:], stride, padding):
        return forward(x[:, :, :: stride[0], :: stride[1]], w, bias, (1, 1), padding, dilation)
    s = _Shape.of(*x.shape, w.shape[0], w.shape[2:], *_pairs(stride, padding, dilation), x.dtype)
    if _tap_sum(s, "forward"):
        return conv_tap_sum.forward(x, w, bias, stride, padding, dilation)
    if _planar_pointwise(s):
        y = matmul(w.reshape(s.Co, s.C), x.reshape(s.N, s.C, s.P))
        if bias is not None:
            y += bias[:, None]
        return y.reshape(s.N, s.Co, s.Ho, s.Wo)
    N, Co, P = s.N, s.Co, s.P
    y = np.empty((N, Co, s.Ho, s.Wo), s.dtype)
    has_bias = bias is not None
    if not has_bias:
        bias = np.zeros(Co, s.dtype)
    w2 = s.weight_rows(w)
    xp_buf, col_buf = _buffers(s)
    chunk = s.chunk
    y_buf = np.empty(chunk * P * Co, s.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        col = _columns(s, x, n0, b, xp_buf, col_buf)
        if P >= _PER_IMAGE_POSITIONS:
            yb = y[n0 : n0 + b].reshape(b, Co, P)
            matmul(w2, col.reshape(b, P, s.K).transpose(0, 2, 1), out=yb)
            if has_bias:
                yb += cast("Array", bias)[:, None]
        else:
            yr = y_buf[: b * P * Co].reshape(b * P, Co)
            matmul(col, w2.T, out=yr)
            from_rows(yr.size, yr.reshape(b, P, Co), y, n0, bias)
    return y


def backward_input(
    gy: Array,
    w: Array,
    input_hw: tuple[int, int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> Array:
    """The gradient of conv2d with respect to its (N, C, *input_hw) input (one group)."""
    if _strided_pointwise(w.shape[2:], stride, padding):
        gx = np.zeros((gy.shape[0], w.shape[1]) + tuple(input_hw), gy.dtype)
        gx[:, :, :: stride[0], :: stride[1]] = backward_input(
            gy, w, gy.shape[2:], (1, 1), padding, dilation
        )
        return gx
    s = _Shape.of(
        gy.shape[0],
        w.shape[1],
        *input_hw,
        w.shape[0],
        w.shape[2:],
        *_pairs(stride, padding, dilation),
        gy.dtype,
    )
    if _tap_sum(s, "backward_input"):
        return conv_tap_sum.backward_input(gy, w, input_hw, stride, padding, dilation)
    if _thin_transposed(s):
        # gx = conv(gy, the weight flipped and transposed, full padding): columns of the few output
        # channels instead of the input channels' (kh * kw times smaller here).
        flipped = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
        full = (s.dh * (s.kh - 1) - s.ph, s.dw * (s.kw - 1) - s.pw)
        return forward(gy, flipped, None, (1, 1), full, dilation)
    if _planar_pointwise(s):
        gx = matmul(w.reshape(s.Co, s.C).T, gy.reshape(s.N, s.Co, s.P))
        return gx.reshape(s.N, s.C, s.H, s.W)
    N, Co, P, C = s.N, s.Co, s.P, s.C
    gx = np.empty((N, C, s.H, s.W), s.dtype)
    w2 = s.weight_rows(w)
    chunk = s.chunk
    gr_buf = np.empty(chunk * P * Co, s.dtype)
    gxp_buf = np.empty(chunk * s.Hp * s.Wp * C, s.dtype)
    dcol_buf = None if s.direct else np.empty(chunk * P * s.K, s.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        gxp = gxp_buf[: b * s.Hp * s.Wp * C].reshape(b, s.Hp, s.Wp, C)
        dcol = (
            gxp if s.direct else cast("Array", dcol_buf)[: b * P * s.K].reshape(b, s.Ho, s.Wo, s.K)
        )
        if P >= _PER_IMAGE_POSITIONS:
            gyt = gy[n0 : n0 + b].reshape(b, Co, P).transpose(0, 2, 1)
            matmul(gyt, w2, out=dcol.reshape(b, P, s.K))
        else:
            gr = gr_buf[: b * P * Co].reshape(b, P, Co)
            to_rows(gr.size, gy, n0, gr)
            matmul(gr.reshape(b * P, Co), w2, out=dcol.reshape(b * P, s.K))
        if not s.direct:
            gxp[:] = 0
            col2im_nhwc(dcol.size, dcol, gxp, *s.taps())
        from_padded_nhwc(gxp.size, gxp, gx, n0, s.ph, s.pw)
    return gx


def backward_weight(
    gy: Array,
    x: Array,
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> Array:
    """The gradient of conv2d with respect to its (Co, C, *kernel_hw) weight (one group)."""
    if _strided_pointwise(kernel_hw, stride, padding):
        return backward_weight(
            gy, x[:, :, :: stride[0], :: stride[1]], kernel_hw, (1, 1), padding, dilation
        )
    s = _Shape.of(
        *x.shape, gy.shape[1], tuple(kernel_hw), *_pairs(stride, padding, dilation), x.dtype
    )
    if _tap_sum(s, "backward_weight"):
        return conv_tap_sum.backward_weight(gy, x, kernel_hw, stride, padding, dilation)
    N, Co, P = s.N, s.Co, s.P
    gw2 = np.zeros((Co, s.K), s.dtype)
    part = np.empty((Co, s.K), s.dtype)
    if _planar_pointwise(s):
        gyp, xp = gy.reshape(N, Co, P), x.reshape(N, s.C, P)
        for n in range(N):
            matmul(gyp[n], xp[n].T, out=part)
            gw2 += part
        return gw2.reshape(Co, s.C, 1, 1)
    xp_buf, col_buf = _buffers(s)
    chunk = s.chunk
    gr_buf = np.empty(chunk * P * Co, s.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        col = _columns(s, x, n0, b, xp_buf, col_buf)
        gr = gr_buf[: b * P * Co].reshape(b, P, Co)
        to_rows(gr.size, gy, n0, gr)
        matmul(gr.reshape(b * P, Co).T, col, out=gw2 if n0 == 0 else part)
        if n0:
            gw2 += part
    return s.weight_from_rows(gw2)
