"""Convolution as one GEMM over every kernel tap, then a shifted sum: the kernels for thin layers.

im2col (``conv_gemm``) copies ``kh * kw * C`` values per output pixel and multiplies them by the
``Co`` output channels. When the outputs are few next to the inputs (a 512-channel map reduced to
16, a 7x7 kernel over 256 channels into 32) the copies are most of the time: the GEMM is a thin
``(pixels, kh * kw * C) @ (kh * kw * C, Co)`` product bound by reading its columns. Here the product
runs first, on the input as it is, for every tap at once:

    forward         z[(n, h, w), (i, j, o)] = x[(n, h, w), c] @ wf[c, (i, j, o)]
                    y[n, o, ho, wo]         = sum over (i, j) of z[n, ho*sh - ph + i*dh,
                                                                   wo*sw - pw + j*dw, (i, j), o]
    input grad      g[(n, h, w), (i, j, o)] = gy[n, o, ho, wo] of the output pixel that tap (i, j)
                                              of pixel (h, w) feeds (zero where there is none)
                    gx[(n, h, w), c]        = g @ wg[(i, j, o), c]
    weight grad     gw[(i, j, o), c]        = g.T @ x[(n, h, w), c]

so what is copied per input pixel is ``kh * kw * Co`` values (``z`` or ``g``), not ``kh * kw * C``,
and the input is read once. Every input pixel takes part in the product, so with a stride the
GEMM does ``sh * sw`` times the arithmetic of im2col's: ``conv_select`` weighs that against the
copies saved. One group only. A chunk of images at a time keeps ``z`` / ``g`` under
``_CHUNK_BYTES``; from ``_PER_IMAGE_POSITIONS`` pixels per image the products run image by image
on the NCHW arrays, which needs no channels-last copy of the input or gradient.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import prange
from ..._runtime.threads_matmul import matmul
from ._channels_last import Both, from_rows, to_padded_nhwc, to_rows

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import DTypeLike

    from ..._typing import Array

__all__ = ["forward", "backward_input", "backward_weight"]

# Bytes of z / g rows (and channels-last rows) per chunk of images: big GEMMs, bounded memory.
_CHUNK_BYTES = 1 << 25
# Below this many pixels per image, one GEMM over a chunk's channels-last rows beats a small GEMM
# per image (numpy runs a batched matmul as one BLAS call per image).
_PER_IMAGE_POSITIONS = 64


def _shift_sum(z: Array, y: Array, n0: int, row_off: Array, col_off: Array) -> None:
    """y[n0 + b, o, ho, wo] += the sum over taps (ii, jj) that land inside the image of
    z[b, ho + row_off[ii], wo + col_off[jj], ii * len(col_off) + jj, o]."""
    B, H, W, _, Co = z.shape
    Ho, Wo = y.shape[2], y.shape[3]
    Ti, Tj = row_off.shape[0], col_off.shape[0]
    for b in prange(B):
        acc = np.empty(Co, z.dtype)
        for ho in range(Ho):
            for wo in range(Wo):
                for o in range(Co):
                    acc[o] = y[n0 + b, o, ho, wo]
                for ii in range(Ti):
                    h = ho + row_off[ii]
                    if h < 0 or h >= H:
                        continue
                    for jj in range(Tj):
                        w = wo + col_off[jj]
                        if w < 0 or w >= W:
                            continue
                        src = z[b, h, w, ii * Tj + jj]
                        for o in range(Co):
                            acc[o] += src[o]
                for o in range(Co):
                    y[n0 + b, o, ho, wo] = acc[o]


def _spread(gr: Array, g: Array, row_off: Array, col_off: Array) -> None:
    """g[b, h, w, ii * len(col_off) + jj] = gr[b, h - row_off[ii], w - col_off[jj]], zeros where
    that output pixel does not exist (the adjoint of ``_shift_sum``'s reads)."""
    B, Ho, Wo, Co = gr.shape
    H, W = g.shape[1], g.shape[2]
    Ti, Tj = row_off.shape[0], col_off.shape[0]
    for b in prange(B):
        for h in range(H):
            for w in range(W):
                for ii in range(Ti):
                    ho = h - row_off[ii]
                    for jj in range(Tj):
                        dst = g[b, h, w, ii * Tj + jj]
                        wo = w - col_off[jj]
                        if 0 <= ho < Ho and 0 <= wo < Wo:
                            src = gr[b, ho, wo]
                            for o in range(Co):
                                dst[o] = src[o]
                        else:
                            for o in range(Co):
                                dst[o] = 0


shift_sum = Both(_shift_sum)
spread = Both(_spread)


def _chunk(N: int, rows_per_image: int, row_bytes: int) -> int:
    return max(1, min(N, _CHUNK_BYTES // max(1, rows_per_image * row_bytes)))


def _phase_taps(k: int, stride: int, pad: int, dilation: int) -> list[tuple[range, Array]]:
    """For each input phase a (pixels a, a + stride, ...): the kernel taps that read it and their
    offsets in that phase's subsampled image (input index ho + offset feeds output ho)."""
    phases = []
    for a in range(stride):
        found = [i for i in range(k) if (i * dilation - pad) % stride == a]
        # An arithmetic progression (period stride / gcd(stride, dilation)): a slice of the weight.
        step = found[1] - found[0] if len(found) > 1 else 1
        taps = range(found[0], found[-1] + 1, step) if found else range(0)
        phases.append(
            (taps, np.array([(i * dilation - pad - a) // stride for i in taps], np.int64))
        )
    return phases


class _Phase:
    """One polyphase part of a strided convolution: the input pixels (a::sh, b::sw), which only
    the taps ``rows x cols`` read, at ``row_off`` / ``col_off`` in the subsampled image."""

    def __init__(
        self,
        a: int,
        b: int,
        rows: range,
        row_off: Array,
        cols: range,
        col_off: Array,
        H: int,
        W: int,
        stride: tuple[int, ...],
    ) -> None:
        self.a, self.b = a, b
        self.rows, self.cols = rows, cols
        self.row_off, self.col_off = row_off, col_off
        self.H = len(range(a, H, stride[0]))
        self.W = len(range(b, W, stride[1]))
        self.Q = self.H * self.W
        self.T = len(rows) * len(cols)
        self.whole = stride == (1, 1)

    def of(self, a: Array, n0: int, n1: int, stride: Sequence[int]) -> Array:
        """The part of the NCHW ``a`` (images n0 .. n1) this phase reads, contiguous."""
        if self.whole:
            return a[n0:n1]
        return np.ascontiguousarray(a[n0:n1, :, self.a :: stride[0], self.b :: stride[1]])

    def weights(self, w: Array) -> Array:
        """w[:, :, rows, cols] of the (Co, C, kh, kw) weight (a view)."""
        r, c = self.rows, self.cols
        return w[:, :, r.start : r.stop : r.step, c.start : c.stop : c.step]


class _Shape:
    """One convolution's sizes, its polyphase parts and the chunk of images its buffers hold."""

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
        (self.kh, self.kw), self.stride = kernel_hw, tuple(stride)
        (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
        self.Ho = (H + 2 * ph - dh * (self.kh - 1) - 1) // sh + 1
        self.Wo = (W + 2 * pw - dw * (self.kw - 1) - 1) // sw + 1
        self.dtype = dtype
        # With a stride, input pixel (h, w) is read only by the taps i, j with
        # i * dh - ph = h (mod sh) and j * dw - pw = w (mod sw): each phase of the input is a
        # stride-1 tap sum of its own taps, and no product is computed that no output uses.
        self.phases = [
            _Phase(a, b, rows, row_off, cols, col_off, H, W, self.stride)
            for a, (rows, row_off) in enumerate(_phase_taps(self.kh, sh, ph, dh))
            for b, (cols, col_off) in enumerate(_phase_taps(self.kw, sw, pw, dw))
            if rows and cols and a < H and b < W
        ]
        q = max((f.Q for f in self.phases), default=1)
        t = max((f.T for f in self.phases), default=1)
        self.zq = q * t * Co  # z / g values per image of the largest phase
        itemsize = np.dtype(dtype).itemsize
        self.chunk = _chunk(N, 1, (q * (t * Co + C)) * itemsize)

    def rows(self, xf: Array, b: int, buf: Array) -> Array:
        """The contiguous NCHW ``xf`` of b images as channels-last rows (b * pixels, C)."""
        H, W = xf.shape[2], xf.shape[3]
        xr = buf[: b * H * W * self.C].reshape(b, H, W, self.C)
        to_padded_nhwc(xr.size, xf, 0, xr, 0, 0)
        return xr.reshape(b * H * W, self.C)

    def spread_phase(self, f: _Phase, gr: Array, b: int, g_buf: Array) -> Array:
        """The (b, phase pixels, T * Co) matrix g of a chunk's output-gradient rows ``gr``."""
        g = g_buf[: b * f.Q * f.T * self.Co].reshape(b, f.H, f.W, f.T, self.Co)
        spread(g.size, gr, g, f.row_off, f.col_off)
        return g.reshape(b, f.Q, f.T * self.Co)

    def grad_rows(self, gy: Array, n0: int, b: int, buf: Array) -> Array:
        """Images n0 .. n0 + b of the output gradient as (b, Ho, Wo, Co) rows."""
        gr = buf[: b * self.Ho * self.Wo * self.Co].reshape(b, self.Ho * self.Wo, self.Co)
        to_rows(gr.size, gy, n0, gr)
        return gr.reshape(b, self.Ho, self.Wo, self.Co)


def forward(
    x: Array,
    w: Array,
    bias: Array | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> Array:
    """conv2d(x, w, bias) of the NCHW x and (Co, C, kh, kw) w (one group)."""
    N, C, H, W = x.shape
    Co = w.shape[0]
    s = _Shape(N, C, H, W, Co, w.shape[2:], stride, padding, dilation, x.dtype)
    y = np.empty((N, Co, s.Ho, s.Wo), x.dtype)
    y[:] = 0 if bias is None else bias[:, None, None]
    # wf[c, (ii, jj, o)] per phase
    wfs = [
        np.ascontiguousarray(f.weights(w).transpose(1, 2, 3, 0)).reshape(C, f.T * Co)
        for f in s.phases
    ]
    z_buf = np.empty(s.chunk * s.zq, x.dtype)
    x_buf = np.empty(s.chunk * H * W * C, x.dtype)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        for f, wf in zip(s.phases, wfs):
            xf = f.of(x, n0, n0 + b, s.stride)
            z = z_buf[: b * f.Q * f.T * Co].reshape(b, f.Q, f.T * Co)
            if f.Q >= _PER_IMAGE_POSITIONS:
                matmul(xf.reshape(b, C, f.Q).transpose(0, 2, 1), wf, out=z)
            else:
                matmul(s.rows(xf, b, x_buf), wf, out=z.reshape(b * f.Q, f.T * Co))
            shift_sum(z.size, z.reshape(b, f.H, f.W, f.T, Co), y, n0, f.row_off, f.col_off)
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
    N, Co = gy.shape[:2]
    C = w.shape[1]
    s = _Shape(N, C, *input_hw, Co, w.shape[2:], stride, padding, dilation, gy.dtype)
    whole = s.stride == (1, 1)
    gx = (np.empty if whole else np.zeros)((N, C) + tuple(input_hw), gy.dtype)
    # wg[(ii, jj, o), c] per phase
    wgs = [
        np.ascontiguousarray(f.weights(w).transpose(2, 3, 0, 1)).reshape(f.T * Co, C)
        for f in s.phases
    ]
    gr_buf = np.empty(s.chunk * s.Ho * s.Wo * Co, gy.dtype)
    g_buf = np.empty(s.chunk * s.zq, gy.dtype)
    out_buf = np.empty(s.chunk * input_hw[0] * input_hw[1] * C, gy.dtype)
    rows_buf = np.empty_like(out_buf)
    zeros = np.zeros(C, gy.dtype)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        gr = s.grad_rows(gy, n0, b, gr_buf)
        for f, wg in zip(s.phases, wgs):
            g = s.spread_phase(f, gr, b, g_buf)
            # The phase's part of gx: written in place when it is all of gx, else through a buffer.
            part = gx[n0 : n0 + b] if whole else out_buf[: b * C * f.Q].reshape(b, C, f.H, f.W)
            if f.Q >= _PER_IMAGE_POSITIONS:
                matmul(wg.T, g.transpose(0, 2, 1), out=part.reshape(b, C, f.Q))
            else:
                rows = rows_buf[: b * f.Q * C].reshape(b * f.Q, C)
                matmul(g.reshape(b * f.Q, f.T * Co), wg, out=rows)
                from_rows(rows.size, rows.reshape(b, f.Q, C), part, 0, zeros)
            if not whole:
                gx[n0 : n0 + b, :, f.a :: s.stride[0], f.b :: s.stride[1]] = part
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
    N, C, H, W = x.shape
    Co = gy.shape[1]
    s = _Shape(N, C, H, W, Co, kernel_hw, stride, padding, dilation, x.dtype)
    gr_buf = np.empty(s.chunk * s.Ho * s.Wo * Co, x.dtype)
    g_buf = np.empty(s.chunk * s.zq, x.dtype)
    x_buf = np.empty(s.chunk * H * W * C, x.dtype)
    # gws[phase][(ii, jj, o), c], summed over chunks
    gws = [np.zeros((f.T * Co, C), x.dtype) for f in s.phases]
    part = np.empty(max((g.size for g in gws), default=0), x.dtype)
    one_buf = np.empty_like(part)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        gr = s.grad_rows(gy, n0, b, gr_buf)
        for f, gw in zip(s.phases, gws):
            g = s.spread_phase(f, gr, b, g_buf)
            xf = f.of(x, n0, n0 + b, s.stride)
            dst = gw if n0 == 0 else part[: gw.size].reshape(gw.shape)
            if f.Q >= _PER_IMAGE_POSITIONS:
                # A product per image on the NCHW phase itself (BLAS reads it transposed): no
                # channels-last copy of the input, which was most of a wide layer's time.
                xq = xf.reshape(b, C, f.Q)
                one = one_buf[: gw.size].reshape(gw.shape)
                for i in range(b):
                    matmul(g[i].T, xq[i].T, out=dst if i == 0 else one)
                    if i:
                        dst += one
            else:
                matmul(g.reshape(b * f.Q, f.T * Co).T, s.rows(xf, b, x_buf), out=dst)
            if n0:
                gw += dst
    gw_full = np.zeros((Co, C) + tuple(kernel_hw), x.dtype)
    for f, gw in zip(s.phases, gws):
        # gw[(ii, jj, o), c] -> gw_full[o, c, rows, cols]
        rows, cols = np.ix_(f.rows, f.cols)
        gw_full[:, :, rows, cols] = gw.reshape(len(f.rows), len(f.cols), Co, C).transpose(
            2, 3, 0, 1
        )
    return gw_full
