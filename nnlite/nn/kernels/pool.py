"""2-D max / average pooling kernels on raw NCHW numpy arrays (float32 / float64).

Each kernel runs one ``prange`` over the N*C planes. Backward passes scatter
inside a plane only, and a plane belongs to one thread, so no two threads ever
write the same memory. Window rules (clipping, divisors, ceil_mode, NaN
propagation, tie-breaking towards the first maximum) follow PyTorch's CPU kernels.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit, prange
from ._dispatch import PlaneParallel

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array

__all__ = [
    "max_pool2d_forward",
    "max_pool2d_backward",
    "avg_pool2d_forward",
    "avg_pool2d_backward",
    "pool2d_output_hw",
]


# ----------------------------------------------------------------------------
# Shape logic
# ----------------------------------------------------------------------------


def _out_size(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    span = size + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    # In ceil mode the last window must still start inside the input or the left padding.
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def pool2d_output_hw(
    input_hw: Sequence[int],
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple[int, int]:
    """Output (Ho, Wo) of a pooling window (the arguments are checked by the callers, ``nn/ops/pooling.py``);
    ValueError for empty outputs."""
    (H, W), (kh, kw), (sh, sw), (ph, pw), (dh, dw) = input_hw, kernel, stride, padding, dilation
    Ho = _out_size(H, kh, sh, ph, dh, ceil_mode)
    Wo = _out_size(W, kw, sw, pw, dw, ceil_mode)
    if Ho < 1 or Wo < 1:
        raise ValueError(
            f"Given input size: ({H}x{W}). Calculated output size: ({Ho}x{Wo}). "
            "Output size is too small"
        )
    return Ho, Wo


def _is_2x2(
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    H: int,
    W: int,
    Ho: int,
    Wo: int,
) -> bool:
    """The common kernel = stride = 2 case with every window inside the input."""
    return (
        tuple(kernel) == (2, 2)
        and tuple(stride) == (2, 2)
        and tuple(padding) == (0, 0)
        and 2 * Ho <= H
        and 2 * Wo <= W
    )


def _as_planes(x: Array) -> Array:
    """A float32 / float64 NCHW array (as the callers guarantee), C-contiguous and writable."""
    # Read-only arrays would be a separate numba signature (another compile): copy.
    return np.ascontiguousarray(x) if x.flags.writeable else np.array(x, order="C")


# ----------------------------------------------------------------------------
# Max pooling
# ----------------------------------------------------------------------------


@njit(cache=True)
def _axis_tables(size: int, k: int, s: int, p: int, d: int, n: int) -> tuple[Array, Array]:
    """Taps [lo[o], hi[o]) of output o that fall inside the input along one axis
    (tap i sits at o * s - p + i * d). Precomputed so the hot loops divide nothing."""
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    for o in range(n):
        start = o * s - p
        first = 0 if start >= 0 else (-start + d - 1) // d
        last = size - 1 - start
        end = 0 if last < 0 else min(k, last // d + 1)
        lo[o] = first
        hi[o] = max(end, first)
    return lo, hi


@njit(cache=True, fastmath=False)
def _max_plane(
    xp: Array,
    yp: Array,
    ip: Array,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    dh: int,
    dw: int,
    r_lo: Array,
    r_hi: Array,
    c_lo: Array,
    c_hi: Array,
) -> None:
    """One plane of generic max pooling. A separate (non-parfor) function: inside a
    prange body the same loops compiled about twice as slow."""
    W = xp.shape[1]
    Ho, Wo = yp.shape
    ninf = xp.dtype.type(-np.inf)
    for oh in range(Ho):
        hs = oh * sh - ph
        for ow in range(Wo):
            ws = ow * sw - pw
            # PyTorch starts from -inf at the first in-bounds element of the window.
            arg = (hs + r_lo[oh] * dh) * W + ws + c_lo[ow] * dw
            best = ninf
            for i in range(r_lo[oh], r_hi[oh]):
                h = hs + i * dh
                row = xp[h]
                for j in range(c_lo[ow], c_hi[ow]):
                    w = ws + j * dw
                    v = row[w]
                    # NaN wins (and propagates), ties keep the first maximum.
                    if v > best or v != v:
                        best = v
                        arg = h * W + w
            yp[oh, ow] = best
            ip[oh, ow] = arg


@PlaneParallel
def _max_fwd(
    x: Array,
    y: Array,
    idx: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    dh: int,
    dw: int,
) -> None:
    P, H, W = x.shape
    Ho, Wo = y.shape[1], y.shape[2]
    r_lo, r_hi = _axis_tables(H, kh, sh, ph, dh, Ho)
    c_lo, c_hi = _axis_tables(W, kw, sw, pw, dw, Wo)
    for q in prange(P):
        _max_plane(x[q], y[q], idx[q], sh, sw, ph, pw, dh, dw, r_lo, r_hi, c_lo, c_hi)


@PlaneParallel
def _max_fwd_2x2(x: Array, y: Array, idx: Array) -> None:
    """kernel = stride = 2, no padding, every window inside the plane."""
    P, H, W = x.shape
    Ho, Wo = y.shape[1], y.shape[2]
    for q in prange(P):
        xp = x[q]
        for oh in range(Ho):
            r0 = xp[2 * oh]
            r1 = xp[2 * oh + 1]
            yr = y[q, oh]
            ir = idx[q, oh]
            base = 2 * oh * W
            for ow in range(Wo):
                w = 2 * ow
                best = r0[w]
                arg = base + w
                v = r0[w + 1]
                if v > best or v != v:
                    best = v
                    arg = base + w + 1
                v = r1[w]
                if v > best or v != v:
                    best = v
                    arg = base + W + w
                v = r1[w + 1]
                if v > best or v != v:
                    best = v
                    arg = base + W + w + 1
                yr[ow] = best
                ir[ow] = arg


@PlaneParallel
def _max_bwd(gy: Array, idx: Array, gx: Array) -> None:
    P, HW = gx.shape
    L = gy.shape[1]
    for q in prange(P):
        g = gx[q]
        for k in range(HW):
            g[k] = 0
        s = gy[q]
        a = idx[q]
        for k in range(L):
            g[a[k]] += s[k]


def max_pool2d_forward(
    x: Array,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    ceil_mode: bool,
) -> tuple[Array, Array]:
    """Max pooling; returns (y, argmax) with argmax an int64 flat index into each H*W plane."""
    x = _as_planes(x)
    N, C, H, W = x.shape
    Ho, Wo = pool2d_output_hw((H, W), kernel, stride, padding, dilation, ceil_mode)
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    y = np.empty((N, C, Ho, Wo), x.dtype)
    idx = np.empty((N, C, Ho, Wo), np.int64)
    if y.size == 0:
        return y, idx
    xp = x.reshape(N * C, H, W)
    yp = y.reshape(N * C, Ho, Wo)
    ip = idx.reshape(N * C, Ho, Wo)
    if dh == dw == 1 and _is_2x2(kernel, stride, padding, H, W, Ho, Wo):
        _max_fwd_2x2(xp, yp, ip)
    else:
        _max_fwd(xp, yp, ip, kh, kw, sh, sw, ph, pw, dh, dw)
    return y, idx


def max_pool2d_backward(grad_y: Array, argmax: Array, input_hw: Sequence[int]) -> Array:
    """Gradient of max pooling: each grad_y entry goes to the input element it selected."""
    grad_y = _as_planes(grad_y)
    argmax = np.ascontiguousarray(argmax, dtype=np.int64)
    if not argmax.flags.writeable:
        argmax = argmax.copy()
    N, C, Ho, Wo = grad_y.shape
    H, W = input_hw
    gx = np.empty((N, C, H, W), grad_y.dtype)
    if gx.size == 0:
        return gx
    _max_bwd(
        grad_y.reshape(N * C, Ho * Wo), argmax.reshape(N * C, Ho * Wo), gx.reshape(N * C, H * W)
    )
    return gx


# ----------------------------------------------------------------------------
# Average pooling
# ----------------------------------------------------------------------------


@njit(cache=True)
def _avg_divisors(size: int, k: int, s: int, p: int, n: int, include_pad: bool) -> Array:
    """Per-axis factor of each window's divisor (the divisor is their product)."""
    f = np.empty(n, np.int64)
    for o in range(n):
        a = o * s - p
        b = min(a + k, size + p)  # windows never extend past the right padding
        if include_pad:
            f[o] = b - a
        else:
            f[o] = min(b, size) - max(a, 0)
    return f


@njit(cache=True, fastmath=False)
def _avg_plane(
    xp: Array,
    yp: Array,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    r_lo: Array,
    r_hi: Array,
    c_lo: Array,
    c_hi: Array,
    fh: Array,
    fw: Array,
    divisor: int,
) -> None:
    """One plane of generic average pooling (separate function: see _max_plane)."""
    Ho, Wo = yp.shape
    zero = xp.dtype.type(0)
    for oh in range(Ho):
        hs = oh * sh - ph
        for ow in range(Wo):
            ws = ow * sw - pw
            acc = zero
            for i in range(r_lo[oh], r_hi[oh]):
                row = xp[hs + i]
                for j in range(c_lo[ow], c_hi[ow]):
                    acc += row[ws + j]
            div = divisor if divisor != 0 else fh[oh] * fw[ow]
            # Divide in the array's dtype, as PyTorch does (no float64 detour).
            yp[oh, ow] = acc / xp.dtype.type(div) if div != 0 else zero


@njit(cache=True)
def _avg_tables(
    H: int,
    W: int,
    Ho: int,
    Wo: int,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    include_pad: bool,
) -> tuple[Array, Array, Array, Array, Array, Array]:
    """Tap ranges (r_lo, r_hi, c_lo, c_hi) and divisor factors (fh, fw) of every window,
    computed once per call, outside the parallel loop."""
    r_lo, r_hi = _axis_tables(H, kh, sh, ph, 1, Ho)
    c_lo, c_hi = _axis_tables(W, kw, sw, pw, 1, Wo)
    fh = _avg_divisors(H, kh, sh, ph, Ho, include_pad)
    fw = _avg_divisors(W, kw, sw, pw, Wo, include_pad)
    return r_lo, r_hi, c_lo, c_hi, fh, fw


@PlaneParallel
def _avg_fwd(
    x: Array,
    y: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    include_pad: bool,
    divisor: int,
) -> None:
    P, H, W = x.shape
    Ho, Wo = y.shape[1], y.shape[2]
    r_lo, r_hi, c_lo, c_hi, fh, fw = _avg_tables(H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, include_pad)
    for q in prange(P):
        _avg_plane(x[q], y[q], sh, sw, ph, pw, r_lo, r_hi, c_lo, c_hi, fh, fw, divisor)


@PlaneParallel
def _avg_fwd_2x2(x: Array, y: Array, divisor: int) -> None:
    """kernel = stride = 2, no padding, every window inside the plane: divisor is 4."""
    P, H, W = x.shape
    Ho, Wo = y.shape[1], y.shape[2]
    div = x.dtype.type(divisor if divisor != 0 else 4)
    for q in prange(P):
        xp = x[q]
        for oh in range(Ho):
            r0 = xp[2 * oh]
            r1 = xp[2 * oh + 1]
            yr = y[q, oh]
            for ow in range(Wo):
                w = 2 * ow
                # Same summation order as the generic loop (row by row).
                yr[ow] = (((r0[w] + r0[w + 1]) + r1[w]) + r1[w + 1]) / div


@PlaneParallel
def _avg_bwd_2x2(gy: Array, gx: Array, divisor: int) -> None:
    """Gradient of _avg_fwd_2x2: every input lies in exactly one window (or none)."""
    P, H, W = gx.shape
    Ho, Wo = gy.shape[1], gy.shape[2]
    div = gy.dtype.type(divisor if divisor != 0 else 4)
    for q in prange(P):
        g = gx[q]
        if 2 * Ho < H or 2 * Wo < W:
            for h in range(H):
                for w in range(W):
                    g[h, w] = 0
        for oh in range(Ho):
            r0 = g[2 * oh]
            r1 = g[2 * oh + 1]
            s = gy[q, oh]
            for ow in range(Wo):
                d = s[ow] / div
                w = 2 * ow
                r0[w] = d
                r0[w + 1] = d
                r1[w] = d
                r1[w + 1] = d


@njit(cache=True, fastmath=False)
def _avg_plane_bwd(
    gp: Array,
    xp: Array,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    r_lo: Array,
    r_hi: Array,
    c_lo: Array,
    c_hi: Array,
    fh: Array,
    fw: Array,
    divisor: int,
) -> None:
    """Scatter one plane's window gradients (separate function: see _max_plane)."""
    Ho, Wo = gp.shape
    H, W = xp.shape
    zero = gp.dtype.type(0)
    for h in range(H):
        for w in range(W):
            xp[h, w] = zero
    for oh in range(Ho):
        hs = oh * sh - ph
        for ow in range(Wo):
            ws = ow * sw - pw
            div = divisor if divisor != 0 else fh[oh] * fw[ow]
            if div == 0:
                continue
            d = gp[oh, ow] / gp.dtype.type(div)
            for i in range(r_lo[oh], r_hi[oh]):
                row = xp[hs + i]
                for j in range(c_lo[ow], c_hi[ow]):
                    row[ws + j] += d


@PlaneParallel
def _avg_bwd(
    gy: Array,
    gx: Array,
    kh: int,
    kw: int,
    sh: int,
    sw: int,
    ph: int,
    pw: int,
    include_pad: bool,
    divisor: int,
) -> None:
    P, H, W = gx.shape
    Ho, Wo = gy.shape[1], gy.shape[2]
    r_lo, r_hi, c_lo, c_hi, fh, fw = _avg_tables(H, W, Ho, Wo, kh, kw, sh, sw, ph, pw, include_pad)
    for q in prange(P):
        _avg_plane_bwd(gy[q], gx[q], sh, sw, ph, pw, r_lo, r_hi, c_lo, c_hi, fh, fw, divisor)


def _divisor(divisor_override: float | None) -> int:
    """0 for "the window's size", else the override (never 0: the callers check it)."""
    return 0 if divisor_override is None else int(divisor_override)


def avg_pool2d_forward(
    x: Array,
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: float | None = None,
) -> Array:
    """Average pooling with PyTorch's divisor rules."""
    x = _as_planes(x)
    divisor = _divisor(divisor_override)
    N, C, H, W = x.shape
    Ho, Wo = pool2d_output_hw((H, W), kernel, stride, padding, (1, 1), ceil_mode)
    y = np.empty((N, C, Ho, Wo), x.dtype)
    if y.size == 0:
        return y
    _run_avg(
        _avg_fwd_2x2,
        _avg_fwd,
        x.reshape(N * C, H, W),
        y.reshape(N * C, Ho, Wo),
        (H, W),
        (Ho, Wo),
        kernel,
        stride,
        padding,
        count_include_pad,
        divisor,
    )
    return y


def avg_pool2d_backward(
    grad_y: Array,
    input_hw: Sequence[int],
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: float | None = None,
) -> Array:
    """Gradient of average pooling: each window spreads grad / divisor over its inputs."""
    grad_y = _as_planes(grad_y)
    divisor = _divisor(divisor_override)
    N, C = grad_y.shape[0], grad_y.shape[1]
    H, W = input_hw
    Ho, Wo = pool2d_output_hw((H, W), kernel, stride, padding, (1, 1), ceil_mode)
    gx = np.empty((N, C, H, W), grad_y.dtype)
    if gx.size == 0:
        return gx
    _run_avg(
        _avg_bwd_2x2,
        _avg_bwd,
        grad_y.reshape(N * C, Ho, Wo),
        gx.reshape(N * C, H, W),
        (H, W),
        (Ho, Wo),
        kernel,
        stride,
        padding,
        count_include_pad,
        divisor,
    )
    return gx


def _run_avg(
    fast_2x2: PlaneParallel,
    general: PlaneParallel,
    src: Array,
    dst: Array,
    input_hw: Sequence[int],
    output_hw: Sequence[int],
    kernel: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    count_include_pad: bool,
    divisor: int,
) -> None:
    """Run the 2x2 specialisation of an average-pooling kernel when it applies, else the general one."""
    if _is_2x2(kernel, stride, padding, *input_hw, *output_hw):
        fast_2x2(src, dst, divisor)
    else:
        (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
        general(src, dst, kh, kw, sh, sw, ph, pw, bool(count_include_pad), divisor)
