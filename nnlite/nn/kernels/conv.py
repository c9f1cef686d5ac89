"""2-D convolution kernels on raw NCHW numpy arrays (float32 / float64).

Every convolution is lowered to im2col + one BLAS GEMM per group, processed in
chunks of a few images so that the column buffer stays in cache.

Column layout: ``col[k, b, p]`` with ``k = (c, i, j)`` the kernel tap and ``p``
the output position of image ``b`` of the chunk. A chunk is therefore one
``(K, b * L)`` matrix and the GEMM covers all its images at once.

Stride-1 convolutions use a "full-width" layout: output positions are indexed
``p = ho * Wp + wo`` on the (padded) input row pitch ``Wp`` instead of ``Wo``.
Each column row is then a single contiguous slice of the input plane (a plain
memcpy), at the price of ``Wp - Wo`` discarded columns per output row. Other
strides use the classic layout with ``p = ho * Wo + wo``.
"""

import numpy as np
from numba import njit, prange

from ._threads import num_threads

__all__ = [
    "conv2d_forward",
    "conv2d_backward_input",
    "conv2d_backward_weight",
    "conv2d_output_hw",
]

# Bytes of column buffer per chunk: large enough for an efficient GEMM, small
# enough to stay in L2 between im2col, the GEMM and the scatter back.
_CHUNK_BYTES = 1 << 19


# ----------------------------------------------------------------------------
# Shape logic
# ----------------------------------------------------------------------------

def conv2d_output_hw(input_hw, kernel_hw, stride, padding, dilation):
    """Output (Ho, Wo) of a convolution; ValueError when it would be empty."""
    (H, W), (kh, kw) = input_hw, kernel_hw
    (sh, sw), (ph, pw), (dh, dw) = stride, padding, dilation
    if sh <= 0 or sw <= 0:
        raise ValueError(f"non-positive stride is not supported, got stride={tuple(stride)}")
    if dh <= 0 or dw <= 0:
        raise ValueError(f"non-positive dilation is not supported, got dilation={tuple(dilation)}")
    if ph < 0 or pw < 0:
        raise ValueError(f"negative padding is not supported, got padding={tuple(padding)}")
    if kh <= 0 or kw <= 0:
        raise ValueError(f"kernel size must be positive, got {(kh, kw)}")
    eh = dh * (kh - 1) + 1
    ew = dw * (kw - 1) + 1
    if H + 2 * ph < eh or W + 2 * pw < ew:
        raise ValueError(
            f"Calculated padded input size per channel: ({H + 2 * ph} x {W + 2 * pw}). "
            f"Kernel size: ({eh} x {ew}). Kernel size can't be greater than actual input size"
        )
    return (H + 2 * ph - eh) // sh + 1, (W + 2 * pw - ew) // sw + 1


def _as_float_array(a, name, dtype=None):
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        raise TypeError(f"{name} must be float32 or float64, got {a.dtype}")
    if dtype is not None and a.dtype != dtype:
        raise TypeError(f"{name} has dtype {a.dtype} but the input has dtype {dtype}")
    return np.ascontiguousarray(a)


def _check_groups(C, weight_shape, groups):
    if groups <= 0:
        raise ValueError(f"non-positive groups is not supported, got groups={groups}")
    O = weight_shape[0]
    if O % groups != 0:
        raise ValueError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {list(weight_shape)} instead"
        )
    if C != weight_shape[1] * groups:
        raise ValueError(
            f"Given groups={groups}, weight of size {list(weight_shape)}, expected input to have "
            f"{weight_shape[1] * groups} channels, but got {C} channels instead"
        )


class _Geometry:
    """Everything the kernels need to know about one convolution's shapes."""

    __slots__ = ("N", "C", "H", "W", "O", "kh", "kw", "sh", "sw", "ph", "pw", "dh", "dw",
                 "Ho", "Wo", "full", "rs", "L", "K", "groups", "chunk")

    def __init__(self, N, C, H, W, O, kh, kw, stride, padding, dilation, groups, itemsize):
        self.N, self.C, self.H, self.W, self.O, self.kh, self.kw = N, C, H, W, O, kh, kw
        (self.sh, self.sw), (self.ph, self.pw), (self.dh, self.dw) = stride, padding, dilation
        self.Ho, self.Wo = conv2d_output_hw((H, W), (kh, kw), stride, padding, dilation)
        self.groups = groups
        wp = W + 2 * self.pw
        # Full-width layout only when the discarded columns stay a minority of the GEMM.
        self.full = self.sh == 1 and self.sw == 1 and wp <= 2 * self.Wo
        self.rs = wp if self.full else self.Wo           # row pitch of the output positions
        self.L = (self.Ho - 1) * self.rs + self.Wo       # positions per image
        self.K = C * kh * kw
        per_image = max(self.K, O) * self.L * itemsize
        self.chunk = max(num_threads(), min(N, max(1, _CHUNK_BYTES // per_image)))
        self.chunk = min(self.chunk, N)


def _geometry(x_shape, w_shape, stride, padding, dilation, groups, itemsize):
    N, C, H, W = x_shape
    O, _, kh, kw = w_shape
    _check_groups(C, w_shape, groups)
    return _Geometry(N, C, H, W, O, kh, kw, tuple(stride), tuple(padding), tuple(dilation),
                     groups, itemsize)


# ----------------------------------------------------------------------------
# numba kernels
# ----------------------------------------------------------------------------

@njit(inline="always")
def _valid_range(offset, step, size, n):
    """Indices k in [0, n) with 0 <= offset + k * step < size, as (lo, hi)."""
    lo = 0
    if offset < 0:
        lo = (-offset + step - 1) // step
    hi = n
    last = (size - 1 - offset)
    if last < 0:
        hi = 0
    else:
        hi = min(n, last // step + 1)
    if hi < lo:
        hi = lo
    return lo, hi


@njit(inline="always")
def _plane_to_rows(plane, col, c, b, kh, kw, dh, dw, Wp, L):
    """Column rows of tap (i, j): the slice of the flat plane starting at the tap's offset."""
    for i in range(kh):
        for j in range(kw):
            off = i * dh * Wp + j * dw
            src = plane[off:off + L]
            dst = col[(c * kh + i) * kw + j, b]
            for p in range(L):
                dst[p] = src[p]


@njit(parallel=True, cache=True, fastmath=False)
def _im2col_full(x, n0, col, kh, kw, ph, pw, dh, dw, L):
    """Full-width im2col (stride 1): every column row is one slice of a padded plane."""
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    B = col.shape[1]
    Hp = H + 2 * ph
    Wp = W + 2 * pw
    padded = ph > 0 or pw > 0
    for t in prange(B * C):
        b = t // C
        c = t - b * C
        if padded:
            # Zero-padded copy of the plane so that each column row is a plain slice.
            plane = np.zeros(Hp * Wp, x.dtype)
            for h in range(H):
                src = x[n0 + b, c, h]
                dst = plane[(h + ph) * Wp + pw:(h + ph) * Wp + pw + W]
                for w in range(W):
                    dst[w] = src[w]
            _plane_to_rows(plane, col, c, b, kh, kw, dh, dw, Wp, L)
        else:
            _plane_to_rows(x[n0 + b, c].reshape(H * W), col, c, b, kh, kw, dh, dw, Wp, L)


@njit(parallel=True, cache=True, fastmath=False)
def _im2col_strided(x, n0, col, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """Classic im2col for any stride / padding / dilation; zeros where padded."""
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    B = col.shape[1]
    for t in prange(B * C):
        b = t // C
        c = t - b * C
        for i in range(kh):
            ho_lo, ho_hi = _valid_range(i * dh - ph, sh, H, Ho)
            for j in range(kw):
                wo_lo, wo_hi = _valid_range(j * dw - pw, sw, W, Wo)
                dst = col[(c * kh + i) * kw + j, b]
                for ho in range(Ho):
                    row = dst[ho * Wo:(ho + 1) * Wo]
                    if ho < ho_lo or ho >= ho_hi:
                        for wo in range(Wo):
                            row[wo] = 0
                        continue
                    src = x[n0 + b, c, ho * sh - ph + i * dh]
                    for wo in range(wo_lo):
                        row[wo] = 0
                    base = j * dw - pw
                    for wo in range(wo_lo, wo_hi):
                        row[wo] = src[wo * sw + base]
                    for wo in range(wo_hi, Wo):
                        row[wo] = 0


@njit(parallel=True, cache=True, fastmath=False)
def _store_output(yf, y, n0, bias, rs):
    """y[n0 + b, o] = yf[o, b] (row pitch rs) + bias[o]."""
    O, B = yf.shape[0], yf.shape[1]
    Ho, Wo = y.shape[2], y.shape[3]
    for t in prange(B * O):
        b = t // O
        o = t - b * O
        bv = bias[o]
        src = yf[o, b]
        for ho in range(Ho):
            s = src[ho * rs:ho * rs + Wo]
            d = y[n0 + b, o, ho]
            for wo in range(Wo):
                d[wo] = s[wo] + bv


@njit(parallel=True, cache=True, fastmath=False)
def _load_grad_output(gy, n0, gyf, rs):
    """gyf[o, b] = gy[n0 + b, o] at row pitch rs, zeros in the discarded columns."""
    O, B, L = gyf.shape[0], gyf.shape[1], gyf.shape[2]
    Ho, Wo = gy.shape[2], gy.shape[3]
    for t in prange(B * O):
        b = t // O
        o = t - b * O
        dst = gyf[o, b]
        for ho in range(Ho):
            s = gy[n0 + b, o, ho]
            d = dst[ho * rs:ho * rs + Wo]
            for wo in range(Wo):
                d[wo] = s[wo]
            if ho < Ho - 1:
                for p in range(ho * rs + Wo, (ho + 1) * rs):
                    dst[p] = 0


@njit(parallel=True, cache=True, fastmath=False)
def _col2im_full(col, gx, n0, kh, kw, ph, pw, dh, dw, L):
    """Transpose of _im2col_full. One (image, channel) plane per iteration, so the
    scatter-adds inside a plane never race with another thread."""
    C, H, W = gx.shape[1], gx.shape[2], gx.shape[3]
    B = col.shape[1]
    Hp = H + 2 * ph
    Wp = W + 2 * pw
    padded = ph > 0 or pw > 0
    for t in prange(B * C):
        b = t // C
        c = t - b * C
        if padded:
            plane = np.zeros(Hp * Wp, gx.dtype)
        else:
            plane = gx[n0 + b, c].reshape(H * W)
            for q in range(H * W):
                plane[q] = 0
        for i in range(kh):
            for j in range(kw):
                off = i * dh * Wp + j * dw
                dst = plane[off:off + L]
                src = col[(c * kh + i) * kw + j, b]
                for p in range(L):
                    dst[p] += src[p]
        if padded:
            for h in range(H):
                src = plane[(h + ph) * Wp + pw:(h + ph) * Wp + pw + W]
                dst = gx[n0 + b, c, h]
                for w in range(W):
                    dst[w] = src[w]


@njit(parallel=True, cache=True, fastmath=False)
def _col2im_strided(col, gx, n0, kh, kw, sh, sw, ph, pw, dh, dw, Ho, Wo):
    """Transpose of _im2col_strided, one plane per iteration (race-free).
    Input pixels no window touches keep their zero."""
    C, H, W = gx.shape[1], gx.shape[2], gx.shape[3]
    B = col.shape[1]
    for t in prange(B * C):
        b = t // C
        c = t - b * C
        plane = gx[n0 + b, c]
        for h in range(H):
            for w in range(W):
                plane[h, w] = 0
        for i in range(kh):
            ho_lo, ho_hi = _valid_range(i * dh - ph, sh, H, Ho)
            for j in range(kw):
                wo_lo, wo_hi = _valid_range(j * dw - pw, sw, W, Wo)
                src = col[(c * kh + i) * kw + j, b]
                base = j * dw - pw
                for ho in range(ho_lo, ho_hi):
                    dst = plane[ho * sh - ph + i * dh]
                    s = src[ho * Wo:(ho + 1) * Wo]
                    for wo in range(wo_lo, wo_hi):
                        dst[wo * sw + base] += s[wo]


# ----------------------------------------------------------------------------
# Chunk helpers (Python side)
# ----------------------------------------------------------------------------

def _im2col(g, x, n0, col):
    if g.full:
        _im2col_full(x, n0, col, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, g.L)
    else:
        _im2col_strided(x, n0, col, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo)


def _col2im(g, col, gx, n0):
    if g.full:
        _col2im_full(col, gx, n0, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, g.L)
    else:
        _col2im_strided(col, gx, n0, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo)


def _views(buf, rows, b, L):
    """A C-contiguous (rows, b, L) view on the front of a flat scratch buffer."""
    return buf[:rows * b * L].reshape(rows, b, L)


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------

def conv2d_forward(x, weight, bias, stride, padding, dilation, groups):
    """y = conv2d(x, weight, bias) for NCHW x and (O, C/groups, kh, kw) weight."""
    x = _as_float_array(x, "input")
    weight = _as_float_array(weight, "weight", x.dtype)
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"expected 4-D input and weight, got {x.shape} and {weight.shape}")
    g = _geometry(x.shape, weight.shape, stride, padding, dilation, groups, x.itemsize)
    if bias is not None:
        bias = _as_float_array(bias, "bias", x.dtype)
        if bias.shape != (g.O,):
            raise ValueError(f"bias must have shape ({g.O},), got {bias.shape}")
    else:
        bias = np.zeros(g.O, x.dtype)
    N, O, K, L, G = g.N, g.O, g.K, g.L, groups
    Og, Kg = O // G, K // G
    y = np.empty((N, O, g.Ho, g.Wo), x.dtype)
    if N == 0:
        return y
    w2 = weight.reshape(O, Kg)
    col_buf = np.empty(K * g.chunk * L, x.dtype)
    y_buf = np.empty(O * g.chunk * L, x.dtype)
    for n0 in range(0, N, g.chunk):
        b = min(g.chunk, N - n0)
        col = _views(col_buf, K, b, L)
        yf = _views(y_buf, O, b, L)
        _im2col(g, x, n0, col)
        col2, yf2 = col.reshape(K, b * L), yf.reshape(O, b * L)
        if G == 1:
            np.matmul(w2, col2, out=yf2)
        else:
            for k in range(G):
                np.matmul(w2[k * Og:(k + 1) * Og], col2[k * Kg:(k + 1) * Kg],
                          out=yf2[k * Og:(k + 1) * Og])
        _store_output(yf, y, n0, bias, g.rs)
    return y


def conv2d_backward_input(grad_y, weight, input_hw, stride, padding, dilation, groups):
    """Gradient of conv2d w.r.t. its input (a transposed convolution of grad_y)."""
    grad_y = _as_float_array(grad_y, "grad_output")
    weight = _as_float_array(weight, "weight", grad_y.dtype)
    N, O = grad_y.shape[0], grad_y.shape[1]
    C = weight.shape[1] * groups
    H, W = input_hw
    g = _geometry((N, C, H, W), weight.shape, stride, padding, dilation, groups, grad_y.itemsize)
    if grad_y.shape != (N, g.O, g.Ho, g.Wo):
        raise ValueError(f"grad_output has shape {grad_y.shape}, expected {(N, g.O, g.Ho, g.Wo)}")
    K, L, G = g.K, g.L, groups
    Og, Kg = O // G, K // G
    gx = np.empty((N, C, H, W), grad_y.dtype)
    if N == 0:
        return gx
    w2 = weight.reshape(O, Kg)
    col_buf = np.empty(K * g.chunk * L, grad_y.dtype)
    gy_buf = np.empty(O * g.chunk * L, grad_y.dtype)
    for n0 in range(0, N, g.chunk):
        b = min(g.chunk, N - n0)
        col = _views(col_buf, K, b, L)
        gyf = _views(gy_buf, O, b, L)
        _load_grad_output(grad_y, n0, gyf, g.rs)
        col2, gyf2 = col.reshape(K, b * L), gyf.reshape(O, b * L)
        if G == 1:
            np.matmul(w2.T, gyf2, out=col2)
        else:
            for k in range(G):
                np.matmul(w2[k * Og:(k + 1) * Og].T,
                          gyf2[k * Og:(k + 1) * Og], out=col2[k * Kg:(k + 1) * Kg])
        _col2im(g, col, gx, n0)
    return gx


def conv2d_backward_weight(grad_y, x, kernel_hw, stride, padding, dilation, groups):
    """Gradient of conv2d w.r.t. its weight, shape (O, C/groups, kh, kw)."""
    grad_y = _as_float_array(grad_y, "grad_output")
    x = _as_float_array(x, "input", grad_y.dtype)
    N, C = x.shape[0], x.shape[1]
    O = grad_y.shape[1]
    if groups <= 0 or C % groups != 0:
        raise ValueError(f"input channels ({C}) must be divisible by groups ({groups})")
    w_shape = (O, C // groups) + tuple(kernel_hw)
    g = _geometry(x.shape, w_shape, stride, padding, dilation, groups, x.itemsize)
    if grad_y.shape != (N, O, g.Ho, g.Wo):
        raise ValueError(f"grad_output has shape {grad_y.shape}, expected {(N, O, g.Ho, g.Wo)}")
    K, L, G = g.K, g.L, groups
    Og, Kg = O // G, K // G
    gw = np.zeros((O, Kg), x.dtype)
    if N == 0:
        return gw.reshape(w_shape)
    part = np.empty((O, Kg), x.dtype)
    col_buf = np.empty(K * g.chunk * L, x.dtype)
    gy_buf = np.empty(O * g.chunk * L, x.dtype)
    for n0 in range(0, N, g.chunk):
        b = min(g.chunk, N - n0)
        col = _views(col_buf, K, b, L)
        gyf = _views(gy_buf, O, b, L)
        _im2col(g, x, n0, col)
        _load_grad_output(grad_y, n0, gyf, g.rs)
        col2, gyf2 = col.reshape(K, b * L), gyf.reshape(O, b * L)
        # The first chunk writes gw directly; later ones go through `part`.
        dst = gw if n0 == 0 else part
        for k in range(G):
            np.matmul(gyf2[k * Og:(k + 1) * Og], col2[k * Kg:(k + 1) * Kg].T,
                      out=dst[k * Og:(k + 1) * Og])
        if n0:
            gw += part
    return gw.reshape(w_shape)
