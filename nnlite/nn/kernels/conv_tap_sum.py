"""Convolution as one GEMM over every kernel tap, then a shifted sum: the kernels for thin layers.

im2col (``conv_gemm``) copies ``kh * kw * C`` values per output pixel and multiplies them by the
``O`` output channels. When the outputs are few next to the inputs (a 512-channel map reduced to
16, a 7x7 kernel over 256 channels into 32) the copies are most of the time: the GEMM is a thin
``(pixels, kh * kw * C) @ (kh * kw * C, O)`` product bound by reading its columns. Here the product
runs first, on the input as it is, for every tap at once:

    forward         z[(n, h, w), (i, j, o)] = x[(n, h, w), c] @ wf[c, (i, j, o)]
                    y[n, o, ho, wo]         = sum over (i, j) of z[n, ho*sh - ph + i*dh,
                                                                   wo*sw - pw + j*dw, (i, j), o]
    input grad      g[(n, h, w), (i, j, o)] = gy[n, o, ho, wo] of the output pixel that tap (i, j)
                                              of pixel (h, w) feeds (zero where there is none)
                    gx[(n, h, w), c]        = g @ wg[(i, j, o), c]
    weight grad     gw[(i, j, o), c]        = g.T @ x[(n, h, w), c]

so what is copied per input pixel is ``kh * kw * O`` values (``z`` or ``g``), not ``kh * kw * C``,
and the input is read once. Every input pixel takes part in the product, so with a stride the
GEMM does ``sh * sw`` times the arithmetic of im2col's: ``conv_select`` weighs that against the
copies saved. One group only. A chunk of images at a time keeps ``z`` / ``g`` under
``_CHUNK_BYTES``; from ``_PER_IMAGE_POSITIONS`` pixels per image the products run image by image
on the NCHW arrays, which needs no channels-last copy of the input or gradient.
"""

import numpy as np
from numba import prange

from ._channels_last import Both, from_rows, to_padded_nhwc, to_rows

__all__ = ["forward", "backward_input", "backward_weight"]

# Bytes of z / g rows (and channels-last rows) per chunk of images: big GEMMs, bounded memory.
_CHUNK_BYTES = 1 << 25
# Below this many pixels per image, one GEMM over a chunk's channels-last rows beats a small GEMM
# per image (numpy runs a batched matmul as one BLAS call per image).
_PER_IMAGE_POSITIONS = 64


def _shift_sum(z, y, n0, kh, kw, sh, sw, ph, pw, dh, dw, bias):
    """y[n0 + b, o, ho, wo] = bias[o] + the sum over taps (i, j) inside the input of
    z[b, ho * sh - ph + i * dh, wo * sw - pw + j * dw, i * kw + j, o]."""
    B, H, W, _, O = z.shape
    Ho, Wo = y.shape[2], y.shape[3]
    for b in prange(B):
        acc = np.empty(O, z.dtype)
        for ho in range(Ho):
            for wo in range(Wo):
                for o in range(O):
                    acc[o] = bias[o]
                for i in range(kh):
                    h = ho * sh - ph + i * dh
                    if h < 0 or h >= H:
                        continue
                    for j in range(kw):
                        w = wo * sw - pw + j * dw
                        if w < 0 or w >= W:
                            continue
                        src = z[b, h, w, i * kw + j]
                        for o in range(O):
                            acc[o] += src[o]
                for o in range(O):
                    y[n0 + b, o, ho, wo] = acc[o]


def _spread(gr, g, kh, kw, sh, sw, ph, pw, dh, dw):
    """g[b, h, w, i * kw + j] = gr[b, ho, wo] for the output pixel (ho, wo) that tap (i, j) of
    input pixel (h, w) feeds, zeros where it feeds none (the adjoint of ``_shift_sum``'s reads)."""
    B, Ho, Wo, O = gr.shape
    H, W = g.shape[1], g.shape[2]
    for b in prange(B):
        for h in range(H):
            for w in range(W):
                for i in range(kh):
                    hn = h + ph - i * dh
                    ho = hn // sh
                    row_ok = hn >= 0 and hn - ho * sh == 0 and ho < Ho
                    for j in range(kw):
                        dst = g[b, h, w, i * kw + j]
                        wn = w + pw - j * dw
                        wo = wn // sw
                        if row_ok and wn >= 0 and wn - wo * sw == 0 and wo < Wo:
                            src = gr[b, ho, wo]
                            for o in range(O):
                                dst[o] = src[o]
                        else:
                            for o in range(O):
                                dst[o] = 0


shift_sum = Both(_shift_sum)
spread = Both(_spread)


def _chunk(N, rows_per_image, row_bytes):
    return max(1, min(N, _CHUNK_BYTES // max(1, rows_per_image * row_bytes)))


class _Shape:
    """One convolution's sizes and the chunk of images its buffers hold."""

    def __init__(self, N, C, H, W, O, kernel_hw, stride, padding, dilation, dtype):
        self.N, self.C, self.H, self.W, self.O = N, C, H, W, O
        (self.kh, self.kw), self.stride = kernel_hw, tuple(stride)
        self.padding, self.dilation = tuple(padding), tuple(dilation)
        self.T = self.kh * self.kw
        self.Q = H * W
        self.dtype = dtype
        itemsize = np.dtype(dtype).itemsize
        # Per image: the z / g rows, and the channels-last input or gradient rows.
        self.chunk = _chunk(N, self.Q, (self.T * O + C) * itemsize)
        self.per_image = self.Q >= _PER_IMAGE_POSITIONS

    def taps(self):
        """The arguments ``_shift_sum`` and ``_spread`` take after their arrays."""
        (sh, sw), (ph, pw), (dh, dw) = self.stride, self.padding, self.dilation
        return self.kh, self.kw, sh, sw, ph, pw, dh, dw

    def input_rows(self, x, n0, b, buf):
        """Images n0 .. n0 + b of the NCHW x as channels-last rows (b * H * W, C)."""
        xr = buf[: b * self.Q * self.C].reshape(b, self.H, self.W, self.C)
        to_padded_nhwc(xr.size, x, n0, xr, 0, 0)
        return xr.reshape(b * self.Q, self.C)

    def spread_chunk(self, gy, n0, b, gr_buf, g_buf):
        """The (b, H * W, T * O) matrix g of images n0 .. n0 + b of the output gradient."""
        Ho, Wo = gy.shape[2], gy.shape[3]
        gr = gr_buf[: b * Ho * Wo * self.O].reshape(b, Ho * Wo, self.O)
        to_rows(gr.size, gy, n0, gr)
        g = g_buf[: b * self.Q * self.T * self.O].reshape(b, self.H, self.W, self.T, self.O)
        spread(g.size, gr.reshape(b, Ho, Wo, self.O), g, *self.taps())
        return g.reshape(b, self.Q, self.T * self.O)


def forward(x, w, bias, stride, padding, dilation):
    """conv2d(x, w, bias) of the NCHW x and (O, C, kh, kw) w (one group)."""
    N, C, H, W = x.shape
    O = w.shape[0]
    s = _Shape(N, C, H, W, O, w.shape[2:], stride, padding, dilation, x.dtype)
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    Ho = (H + 2 * ph - dh * (s.kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (s.kw - 1) - 1) // sw + 1
    y = np.empty((N, O, Ho, Wo), x.dtype)
    if bias is None:
        bias = np.zeros(O, x.dtype)
    wf = np.ascontiguousarray(w.transpose(1, 2, 3, 0)).reshape(C, s.T * O)
    z_buf = np.empty(s.chunk * s.Q * s.T * O, x.dtype)
    x_buf = None if s.per_image else np.empty(s.chunk * s.Q * C, x.dtype)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        z = z_buf[: b * s.Q * s.T * O].reshape(b, s.Q, s.T * O)
        if s.per_image:
            np.matmul(x[n0 : n0 + b].reshape(b, C, s.Q).transpose(0, 2, 1), wf, out=z)
        else:
            np.matmul(s.input_rows(x, n0, b, x_buf), wf, out=z.reshape(b * s.Q, s.T * O))
        shift_sum(z.size, z.reshape(b, H, W, s.T, O), y, n0, *s.taps(), bias)
    return y


def backward_input(gy, w, input_hw, stride, padding, dilation):
    """The gradient of conv2d with respect to its (N, C, *input_hw) input (one group)."""
    N, O = gy.shape[:2]
    C = w.shape[1]
    s = _Shape(N, C, *input_hw, O, w.shape[2:], stride, padding, dilation, gy.dtype)
    gx = np.empty((N, C) + tuple(input_hw), gy.dtype)
    # wg[(i, j, o), c] = w[o, c, i, j]
    wg = np.ascontiguousarray(w.transpose(2, 3, 0, 1)).reshape(s.T * O, C)
    gr_buf = np.empty(s.chunk * gy.shape[2] * gy.shape[3] * O, gy.dtype)
    g_buf = np.empty(s.chunk * s.Q * s.T * O, gy.dtype)
    rows_buf = None if s.per_image else np.empty(s.chunk * s.Q * C, gy.dtype)
    zeros = np.zeros(C, gy.dtype)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        g = s.spread_chunk(gy, n0, b, gr_buf, g_buf)
        if s.per_image:
            np.matmul(wg.T, g.transpose(0, 2, 1), out=gx[n0 : n0 + b].reshape(b, C, s.Q))
        else:
            rows = rows_buf[: b * s.Q * C].reshape(b * s.Q, C)
            np.matmul(g.reshape(b * s.Q, s.T * O), wg, out=rows)
            from_rows(rows.size, rows.reshape(b, s.Q, C), gx, n0, zeros)
    return gx


def backward_weight(gy, x, kernel_hw, stride, padding, dilation):
    """The gradient of conv2d with respect to its (O, C, *kernel_hw) weight (one group)."""
    N, C, H, W = x.shape
    O = gy.shape[1]
    s = _Shape(N, C, H, W, O, kernel_hw, stride, padding, dilation, x.dtype)
    gr_buf = np.empty(s.chunk * gy.shape[2] * gy.shape[3] * O, x.dtype)
    g_buf = np.empty(s.chunk * s.Q * s.T * O, x.dtype)
    x_buf = np.empty(s.chunk * s.Q * C, x.dtype)
    gw = np.zeros((s.T * O, C), x.dtype)
    part = np.empty_like(gw)
    for n0 in range(0, N, s.chunk):
        b = min(s.chunk, N - n0)
        g = s.spread_chunk(gy, n0, b, gr_buf, g_buf).reshape(b * s.Q, s.T * O)
        np.matmul(g.T, s.input_rows(x, n0, b, x_buf), out=gw if n0 == 0 else part)
        if n0:
            gw += part
    # gw[(i, j, o), c] -> (O, C, kh, kw)
    return np.ascontiguousarray(gw.reshape(s.kh, s.kw, O, C).transpose(2, 3, 0, 1))
