"""2-D convolution kernels on raw NCHW numpy arrays (float32 / float64).

``conv_select.conv_kernel`` picks one of three kernels per shape: direct numba kernels with the
images in the vector lanes (``_conv_lanes``, few channels, numba's threads, no BLAS), channels-last
im2col + one GEMM per chunk of images (``conv_gemm``, wide layers), or the NCHW im2col + one BLAS
GEMM per group defined here (few channels, grouped convolutions), processed in chunks of a few
images so that the column buffer stays in cache.

Column layout: ``col[k, b, p]`` with ``k = (c, i, j)`` the kernel tap and ``p``
the output position of image ``b`` of the chunk. A chunk is therefore one
``(K, b * L)`` matrix and the GEMM covers all its images at once.

Stride-1 convolutions use a "full-width" layout: output positions are indexed
``p = ho * Wp + wo`` on the (padded) input row pitch ``Wp`` instead of ``Wo``.
Each column row is then a single contiguous slice of the input plane (a plain
memcpy), at the price of ``Wp - Wo`` discarded columns per output row. Other
strides use the classic layout with ``p = ho * Wo + wo``.

Threads: the helpers around the GEMM are serial numba loops and the GEMM gets
BLAS's threads. Alternating numba-parallel and BLAS-parallel regions chunk by
chunk made the two spinning thread pools fight over the cores (up to 100x
slower on a 2-core machine); the copies are cheap next to the GEMM anyway.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit
from ..._runtime.threads_matmul import matmul
from . import _conv_lanes, conv_gemm, conv_stem
from ._dispatch import parallel_parts
from .conv_live_taps import cropped_weight, embed_weight_grad, live_taps, worth_cropping
from .conv_select import CHANNELS_LAST, LANES, STEM, conv_kernel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, DTypeLike

    from ..._typing import Array

__all__ = [
    "conv2d_forward",
    "conv2d_backward_input",
    "conv2d_backward_weight",
    "conv2d_output_hw",
]

# Bytes of column buffer per chunk: large enough for an efficient GEMM, small
# enough to stay in L2 between im2col, the GEMM and the scatter back.
_CHUNK_BYTES = 1 << 18


# ----------------------------------------------------------------------------
# Shape logic
# ----------------------------------------------------------------------------


def conv2d_output_hw(
    input_hw: Sequence[int],
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> tuple[int, int]:
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


def _as_float_array(a: ArrayLike, name: str, dtype: DTypeLike | None = None) -> Array:
    a = np.asarray(a)
    if a.dtype != np.float32 and a.dtype != np.float64:
        raise TypeError(f"{name} must be float32 or float64, got {a.dtype}")
    if dtype is not None and a.dtype != dtype:
        raise TypeError(f"{name} has dtype {a.dtype} but the input has dtype {dtype}")
    # Read-only arrays would be a separate numba signature (another compile): copy.
    return np.ascontiguousarray(a) if a.flags.writeable else np.array(a, order="C")


def _check_groups(C: int, weight_shape: Sequence[int], groups: int) -> None:
    if groups <= 0:
        raise ValueError(f"non-positive groups is not supported, got groups={groups}")
    Co = weight_shape[0]
    if Co % groups != 0:
        raise ValueError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size {list(weight_shape)} instead"
        )
    if C != weight_shape[1] * groups:
        raise ValueError(
            f"Given groups={groups}, weight of size {list(weight_shape)}, expected input to have "
            f"{weight_shape[1] * groups} channels, but got {C} channels instead"
        )


def _chunk_images(bytes_per_image: int, N: int) -> int:
    """Images per chunk: as many as fit in _CHUNK_BYTES of column buffer, at least one."""
    return max(1, min(N, _CHUNK_BYTES // bytes_per_image))


class _Geometry:
    """Everything the kernels need to know about one convolution's shapes."""

    __slots__ = (
        "N",
        "C",
        "H",
        "W",
        "Co",
        "kh",
        "kw",
        "sh",
        "sw",
        "ph",
        "pw",
        "dh",
        "dw",
        "Ho",
        "Wo",
        "full",
        "rs",
        "L",
        "K",
        "groups",
        "itemsize",
    )

    def __init__(
        self,
        N: int,
        C: int,
        H: int,
        W: int,
        Co: int,
        kh: int,
        kw: int,
        stride: Sequence[int],
        padding: Sequence[int],
        dilation: Sequence[int],
        groups: int,
        itemsize: int,
    ) -> None:
        self.N, self.C, self.H, self.W, self.Co, self.kh, self.kw = N, C, H, W, Co, kh, kw
        (self.sh, self.sw), (self.ph, self.pw), (self.dh, self.dw) = stride, padding, dilation
        self.Ho, self.Wo = conv2d_output_hw((H, W), (kh, kw), stride, padding, dilation)
        self.groups = groups
        wp = W + 2 * self.pw
        # Full width only while the discarded columns are at most as many as the kept ones.
        self.full = self.sh == 1 and self.sw == 1 and wp <= 2 * self.Wo
        self.rs = wp if self.full else self.Wo  # row pitch of the output positions
        self.L = (self.Ho - 1) * self.rs + self.Wo  # positions per image
        self.K = C * kh * kw
        self.itemsize = itemsize

    @property
    def chunk(self) -> int:
        """Images per chunk of the NCHW im2col's column buffer."""
        return _chunk_images(max(self.K, self.Co) * self.L * self.itemsize, self.N)


def _geometry(
    x_shape: Sequence[int],
    w_shape: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
    itemsize: int,
) -> _Geometry:
    """The (cached) geometry of a convolution; its arguments checked, ValueError when invalid."""
    return _cached_geometry(
        tuple(x_shape),
        tuple(w_shape),
        tuple(stride),
        tuple(padding),
        tuple(dilation),
        groups,
        itemsize,
    )


# Small calls (a few images, tiny planes) spend tens of microseconds in Python per call; a
# training loop repeats the same few shapes, so their geometry is worked out once.
@functools.lru_cache(maxsize=1024)
def _cached_geometry(
    x_shape: tuple[int, ...],
    w_shape: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    itemsize: int,
) -> _Geometry:
    N, C, H, W = x_shape
    Co, _, kh, kw = w_shape
    _check_groups(C, w_shape, groups)
    return _Geometry(
        N, C, H, W, Co, kh, kw, tuple(stride), tuple(padding), tuple(dilation), groups, itemsize
    )


def _live_taps(g: _Geometry) -> tuple[tuple[slice, ...], tuple[int, ...]] | None:
    """``conv_live_taps.live_taps`` of a geometry when dropping the taps that only read padding
    saves more than it costs, else None."""
    live = live_taps(
        (g.H, g.W), (g.kh, g.kw), (g.sh, g.sw), (g.ph, g.pw), (g.dh, g.dw), (g.Ho, g.Wo)
    )
    if live is None or not worth_cropping(g.N, (g.Ho, g.Wo), (g.kh, g.kw), live[0]):
        return None
    return live


# ----------------------------------------------------------------------------
# numba kernels
# ----------------------------------------------------------------------------


@njit(inline="always")
def _valid_range(offset: int, step: int, size: int, n: int) -> tuple[int, int]:
    """Indices k in [0, n) with 0 <= offset + k * step < size, as (lo, hi)."""
    lo = 0 if offset >= 0 else (-offset + step - 1) // step
    last = size - 1 - offset
    hi = 0 if last < 0 else min(n, last // step + 1)
    return lo, max(hi, lo)


@njit(inline="always")
def _plane_to_rows(
    plane: Array, col: Array, c: int, b: int, kh: int, kw: int, dh: int, dw: int, Wp: int, L: int
) -> None:
    """Column rows of tap (i, j): the slice of the flat plane starting at the tap's offset."""
    for i in range(kh):
        for j in range(kw):
            off = i * dh * Wp + j * dw
            src = plane[off : off + L]
            dst = col[(c * kh + i) * kw + j, b]
            for p in range(L):
                dst[p] = src[p]


@njit(cache=True, fastmath=False, nogil=True)
def _im2col_full(
    x: Array, n0: int, col: Array, kh: int, kw: int, ph: int, pw: int, dh: int, dw: int, L: int
) -> None:
    """Full-width im2col (stride 1): every column row is one slice of a padded plane."""
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    B = col.shape[1]
    Hp = H + 2 * ph
    Wp = W + 2 * pw
    padded = ph > 0 or pw > 0
    for t in range(B * C):
        b = t // C
        c = t - b * C
        if padded:
            # Zero-padded copy of the plane so that each column row is a plain slice.
            plane = np.zeros(Hp * Wp, x.dtype)
            for h in range(H):
                src = x[n0 + b, c, h]
                dst = plane[(h + ph) * Wp + pw : (h + ph) * Wp + pw + W]
                for w in range(W):
                    dst[w] = src[w]
            _plane_to_rows(plane, col, c, b, kh, kw, dh, dw, Wp, L)
        else:
            _plane_to_rows(x[n0 + b, c].reshape(H * W), col, c, b, kh, kw, dh, dw, Wp, L)


@njit(cache=True, fastmath=False, nogil=True)
def _im2col_strided(
    x: Array,
    n0: int,
    col: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
) -> None:
    """Classic im2col for any stride / padding / dilation; zeros where padded."""
    C, H, W = x.shape[1], x.shape[2], x.shape[3]
    B = col.shape[1]
    P = Ho * Wo
    for t in range(B * C):
        b = t // C
        c = t - b * C
        plane = x[n0 + b, c].reshape(H * W)
        for i in range(kh):
            ho_lo, ho_hi = _valid_range(i * dh - ph, sh, H, Ho)
            for j in range(kw):
                wo_lo, wo_hi = _valid_range(j * dw - pw, sw, W, Wo)
                n = wo_hi - wo_lo
                dst = col[(c * kh + i) * kw + j, b]
                if n < Wo or ho_hi - ho_lo < Ho:
                    for q in range(P):
                        dst[q] = 0
                # Flat slices keep every index non-negative, which lets LLVM vectorize.
                src0 = (ho_lo * sh - ph + i * dh) * W + wo_lo * sw + j * dw - pw
                for ho in range(ho_lo, ho_hi):
                    d = dst[ho * Wo + wo_lo : ho * Wo + wo_hi]
                    src = src0 + (ho - ho_lo) * sh * W
                    if sw == 1:
                        s = plane[src : src + n]
                        for k in range(n):
                            d[k] = s[k]
                    else:
                        s = plane[src : src + (n - 1) * sw + 1]
                        for k in range(n):
                            d[k] = s[k * sw]


@njit(cache=True, fastmath=False, nogil=True)
def _store_output(yf: Array, y: Array, n0: int, bias: Array, rs: int) -> None:
    """y[n0 + b, o] = yf[o, b] (row pitch rs) + bias[o]."""
    Co, B = yf.shape[0], yf.shape[1]
    Ho, Wo = y.shape[2], y.shape[3]
    for t in range(B * Co):
        b = t // Co
        o = t - b * Co
        bv = bias[o]
        src = yf[o, b]
        for ho in range(Ho):
            s = src[ho * rs : ho * rs + Wo]
            d = y[n0 + b, o, ho]
            for wo in range(Wo):
                d[wo] = s[wo] + bv


@njit(cache=True, fastmath=False, nogil=True)
def _load_grad_output(gy: Array, n0: int, gyf: Array, rs: int) -> None:
    """gyf[o, b] = gy[n0 + b, o] at row pitch rs, zeros in the discarded columns."""
    Co, B = gyf.shape[0], gyf.shape[1]
    Ho, Wo = gy.shape[2], gy.shape[3]
    for t in range(B * Co):
        b = t // Co
        o = t - b * Co
        dst = gyf[o, b]
        for ho in range(Ho):
            s = gy[n0 + b, o, ho]
            d = dst[ho * rs : ho * rs + Wo]
            for wo in range(Wo):
                d[wo] = s[wo]
            if ho < Ho - 1:
                for p in range(ho * rs + Wo, (ho + 1) * rs):
                    dst[p] = 0


@njit(cache=True, fastmath=False, nogil=True)
def _col2im_full(
    col: Array, gx: Array, n0: int, kh: int, kw: int, ph: int, pw: int, dh: int, dw: int, L: int
) -> None:
    """Transpose of _im2col_full: each column row is added back onto its slice of the
    (padded) plane. All writes of an iteration stay inside one (image, channel) plane,
    so splitting the loop across threads would need no locking."""
    C, H, W = gx.shape[1], gx.shape[2], gx.shape[3]
    B = col.shape[1]
    Hp = H + 2 * ph
    Wp = W + 2 * pw
    padded = ph > 0 or pw > 0
    for t in range(B * C):
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
                dst = plane[off : off + L]
                src = col[(c * kh + i) * kw + j, b]
                for p in range(L):
                    dst[p] += src[p]
        if padded:
            for h in range(H):
                src = plane[(h + ph) * Wp + pw : (h + ph) * Wp + pw + W]
                dst = gx[n0 + b, c, h]
                for w in range(W):
                    dst[w] = src[w]


@njit(cache=True, fastmath=False, nogil=True)
def _col2im_strided(
    col: Array,
    gx: Array,
    n0: int,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
) -> None:
    """Transpose of _im2col_strided, one (image, channel) plane per iteration.
    Input pixels that no window touches keep their zero."""
    C, H, W = gx.shape[1], gx.shape[2], gx.shape[3]
    B = col.shape[1]
    for t in range(B * C):
        b = t // C
        c = t - b * C
        plane = gx[n0 + b, c].reshape(H * W)
        for q in range(H * W):
            plane[q] = 0
        for i in range(kh):
            ho_lo, ho_hi = _valid_range(i * dh - ph, sh, H, Ho)
            for j in range(kw):
                wo_lo, wo_hi = _valid_range(j * dw - pw, sw, W, Wo)
                n = wo_hi - wo_lo
                src = col[(c * kh + i) * kw + j, b]
                dst0 = (ho_lo * sh - ph + i * dh) * W + wo_lo * sw + j * dw - pw
                for ho in range(ho_lo, ho_hi):
                    s = src[ho * Wo + wo_lo : ho * Wo + wo_hi]
                    dst = dst0 + (ho - ho_lo) * sh * W
                    if sw == 1:
                        d = plane[dst : dst + n]
                        for k in range(n):
                            d[k] += s[k]
                    else:
                        d = plane[dst : dst + (n - 1) * sw + 1]
                        for k in range(n):
                            d[k * sw] += s[k]


# ----------------------------------------------------------------------------
# Chunk helpers (Python side)
# ----------------------------------------------------------------------------


def _im2col(g: _Geometry, x: Array, n0: int, col: Array) -> None:
    if g.full:
        _im2col_full(x, n0, col, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, g.L)
    else:
        _im2col_strided(x, n0, col, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo)


def _col2im(g: _Geometry, col: Array, gx: Array, n0: int) -> None:
    if g.full:
        _col2im_full(col, gx, n0, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, g.L)
    else:
        _col2im_strided(col, gx, n0, g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo)


def _views(buf: Array, rows: int, b: int, L: int) -> Array:
    """A C-contiguous (rows, b, L) view on the front of a flat scratch buffer."""
    return buf[: rows * b * L].reshape(rows, b, L)


# ----------------------------------------------------------------------------
# Public API
# ----------------------------------------------------------------------------


def conv2d_forward(
    x: ArrayLike,
    weight: ArrayLike,
    bias: ArrayLike | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Array:
    """y = conv2d(x, weight, bias) for NCHW x and (Co, C/groups, kh, kw) weight."""
    x = _as_float_array(x, "input")
    weight = _as_float_array(weight, "weight", x.dtype)
    if x.ndim != 4 or weight.ndim != 4:
        raise ValueError(f"expected 4-D input and weight, got {x.shape} and {weight.shape}")
    g = _geometry(x.shape, weight.shape, stride, padding, dilation, groups, x.itemsize)
    if bias is not None:
        bias = _as_float_array(bias, "bias", x.dtype)
        if bias.shape != (g.Co,):
            raise ValueError(f"bias must have shape ({g.Co},), got {bias.shape}")
    live = _live_taps(g)
    if live is not None:
        taps, pad = live
        return conv2d_forward(x, cropped_weight(weight, taps), bias, stride, pad, dilation, groups)
    kernel = conv_kernel(g.N, g.C, g.Co, (g.kh, g.kw), (g.sh, g.sw), groups, x.itemsize)
    if kernel == CHANNELS_LAST:
        return conv_gemm.forward(x, weight, bias, (g.sh, g.sw), (g.ph, g.pw), (g.dh, g.dw))
    if kernel == LANES:
        return _conv_lanes.forward(
            x, weight, bias, g.ph, g.pw, g.dh, g.dw, g.Ho, g.Wo, parallel_parts(x.size)
        )
    if kernel == STEM and g.dh == g.dw == 1:
        return conv_stem.forward(x, weight, bias, (g.sh, g.sw), (g.ph, g.pw))
    if bias is None:
        bias = np.zeros(g.Co, x.dtype)
    N, Co, K, L, G = g.N, g.Co, g.K, g.L, groups
    Og, Kg = Co // G, K // G
    y = np.empty((N, Co, g.Ho, g.Wo), x.dtype)
    if N == 0:
        return y
    w2 = weight.reshape(Co, Kg)
    chunk = g.chunk
    col_buf = np.empty(K * chunk * L, x.dtype)
    y_buf = np.empty(Co * chunk * L, x.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        col = _views(col_buf, K, b, L)
        yf = _views(y_buf, Co, b, L)
        _im2col(g, x, n0, col)
        col2, yf2 = col.reshape(K, b * L), yf.reshape(Co, b * L)
        if G == 1:
            matmul(w2, col2, out=yf2)
        else:
            for k in range(G):
                matmul(
                    w2[k * Og : (k + 1) * Og],
                    col2[k * Kg : (k + 1) * Kg],
                    out=yf2[k * Og : (k + 1) * Og],
                )
        _store_output(yf, y, n0, bias, g.rs)
    return y


def conv2d_backward_input(
    grad_y: ArrayLike,
    weight: ArrayLike,
    input_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Array:
    """Gradient of conv2d w.r.t. its input (a transposed convolution of grad_y)."""
    grad_y = _as_float_array(grad_y, "grad_output")
    weight = _as_float_array(weight, "weight", grad_y.dtype)
    if grad_y.ndim != 4 or weight.ndim != 4:
        raise ValueError(
            f"expected 4-D grad_output and weight, got {grad_y.shape} and {weight.shape}"
        )
    N, Co = grad_y.shape[0], grad_y.shape[1]
    C = weight.shape[1] * groups
    H, W = input_hw
    g = _geometry((N, C, H, W), weight.shape, stride, padding, dilation, groups, grad_y.itemsize)
    if grad_y.shape != (N, g.Co, g.Ho, g.Wo):
        raise ValueError(f"grad_output has shape {grad_y.shape}, expected {(N, g.Co, g.Ho, g.Wo)}")
    live = _live_taps(g)
    if live is not None:
        taps, pad = live
        w = cropped_weight(weight, taps)
        return conv2d_backward_input(grad_y, w, input_hw, stride, pad, dilation, groups)
    kernel = conv_kernel(
        N, C, g.Co, (g.kh, g.kw), (g.sh, g.sw), groups, grad_y.itemsize, op="backward_input"
    )
    if kernel == CHANNELS_LAST:
        return conv_gemm.backward_input(
            grad_y, weight, (H, W), (g.sh, g.sw), (g.ph, g.pw), (g.dh, g.dw)
        )
    if kernel == LANES and g.ph <= g.dh * (g.kh - 1) and g.pw <= g.dw * (g.kw - 1):
        return _conv_lanes.backward_input(
            grad_y, weight, H, W, g.ph, g.pw, g.dh, g.dw, parallel_parts(grad_y.size)
        )
    K, L, G = g.K, g.L, groups
    Og, Kg = Co // G, K // G
    gx = np.empty((N, C, H, W), grad_y.dtype)
    if N == 0:
        return gx
    w2 = weight.reshape(Co, Kg)
    chunk = g.chunk
    col_buf = np.empty(K * chunk * L, grad_y.dtype)
    gy_buf = np.empty(Co * chunk * L, grad_y.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        col = _views(col_buf, K, b, L)
        gyf = _views(gy_buf, Co, b, L)
        _load_grad_output(grad_y, n0, gyf, g.rs)
        col2, gyf2 = col.reshape(K, b * L), gyf.reshape(Co, b * L)
        if G == 1:
            matmul(w2.T, gyf2, out=col2)
        else:
            for k in range(G):
                matmul(
                    w2[k * Og : (k + 1) * Og].T,
                    gyf2[k * Og : (k + 1) * Og],
                    out=col2[k * Kg : (k + 1) * Kg],
                )
        _col2im(g, col, gx, n0)
    return gx


def conv2d_backward_weight(
    grad_y: ArrayLike,
    x: ArrayLike,
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    groups: int,
) -> Array:
    """Gradient of conv2d w.r.t. its weight, shape (Co, C/groups, kh, kw)."""
    grad_y = _as_float_array(grad_y, "grad_output")
    x = _as_float_array(x, "input", grad_y.dtype)
    if grad_y.ndim != 4 or x.ndim != 4:
        raise ValueError(f"expected 4-D grad_output and input, got {grad_y.shape} and {x.shape}")
    N, C = x.shape[0], x.shape[1]
    Co = grad_y.shape[1]
    if groups <= 0 or C % groups != 0:
        raise ValueError(f"input channels ({C}) must be divisible by groups ({groups})")
    w_shape = (Co, C // groups) + tuple(kernel_hw)
    g = _geometry(x.shape, w_shape, stride, padding, dilation, groups, x.itemsize)
    if grad_y.shape != (N, Co, g.Ho, g.Wo):
        raise ValueError(f"grad_output has shape {grad_y.shape}, expected {(N, Co, g.Ho, g.Wo)}")
    live = _live_taps(g)
    if live is not None:
        taps, pad = live
        hw = (taps[0].stop - taps[0].start, taps[1].stop - taps[1].start)
        gw = conv2d_backward_weight(grad_y, x, hw, stride, pad, dilation, groups)
        return embed_weight_grad(gw, kernel_hw, taps)
    kernel = conv_kernel(N, C, Co, (g.kh, g.kw), (g.sh, g.sw), groups, x.itemsize)
    if kernel == CHANNELS_LAST:
        return conv_gemm.backward_weight(
            grad_y, x, tuple(kernel_hw), (g.sh, g.sw), (g.ph, g.pw), (g.dh, g.dw)
        )
    if kernel == LANES:
        return _conv_lanes.backward_weight(
            grad_y, x, g.kh, g.kw, g.ph, g.pw, g.dh, g.dw, parallel_parts(x.size)
        )
    if kernel == STEM and g.dh == g.dw == 1:
        return conv_stem.backward_weight(grad_y, x, (g.kh, g.kw), (g.sh, g.sw), (g.ph, g.pw))
    K, L, G = g.K, g.L, groups
    Og, Kg = Co // G, K // G
    # Per group g, gwt[g] is the (Kg, Og) transpose of that group's weight gradient.
    gwt = np.zeros((G, Kg, Og), x.dtype)
    if N == 0:
        return np.zeros(w_shape, x.dtype)
    part = np.empty((G, Kg, Og), x.dtype)
    chunk = g.chunk
    col_buf = np.empty(K * chunk * L, x.dtype)
    gy_buf = np.empty(Co * chunk * L, x.dtype)
    for n0 in range(0, N, chunk):
        b = min(chunk, N - n0)
        col = _views(col_buf, K, b, L)
        gyf = _views(gy_buf, Co, b, L)
        _im2col(g, x, n0, col)
        _load_grad_output(grad_y, n0, gyf, g.rs)
        col2, gyf2 = col.reshape(K, b * L), gyf.reshape(Co, b * L)
        # gw.T = col @ gyf.T: BLAS handles this orientation (long inner dimension,
        # small output) better than gyf @ col.T. The first chunk writes gw.T directly.
        dst = gwt if n0 == 0 else part
        for k in range(G):
            matmul(col2[k * Kg : (k + 1) * Kg], gyf2[k * Og : (k + 1) * Og].T, out=dst[k])
        if n0:
            gwt += part
    return np.ascontiguousarray(gwt.transpose(0, 2, 1)).reshape(w_shape)
