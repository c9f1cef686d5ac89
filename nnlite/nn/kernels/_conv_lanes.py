"""Direct stride-1 convolution kernels on a "lanes" layout: images in the vector lanes.

A block of ``V`` images (one vector: 16 float32 or 8 float64) is transposed from
NCHW into ``t[c, h, w, lane]``, so that every pixel of the block is one vector and
a convolution becomes scalar-weight x vector FMAs with no wasted positions and no
im2col. Register tiles of 4 output channels x up to 4 output columns keep 16
accumulators in vector registers across the whole reduction over (c, i, j).

The transposes to and from NCHW are 16x16 (8x8) in-register block transposes.
Images past the end of the batch in the last block are zero lanes and are
never written back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit, prange
from ._simd import sload, vadd, vfma, vfmav, vload, vsplat, vstore, vtranspose, vzero

if TYPE_CHECKING:
    from ..._typing import Array

_OB = 4  # output channels per register tile


@njit(cache=True, nogil=True)
def rows_to_lanes(a: Array, n0: int, nb: int, at: Array, V: int) -> None:
    """at[q * V + lane] = a[n0 + lane, q] for the 2-D C-contiguous a; lanes >= nb get zeros."""
    Q = a.shape[1]
    af = a.reshape(a.shape[0] * Q)
    q0 = 0
    if nb == V:
        while q0 + V <= Q:
            vtranspose(af, (n0 * Q + q0), Q, at, q0 * V, V)
            q0 += V
    for q in range(q0, Q):
        for lane in range(nb):
            at[q * V + lane] = af[(n0 + lane) * Q + q]
        for lane in range(nb, V):
            at[q * V + lane] = 0


@njit(cache=True, nogil=True)
def lanes_to_rows(at: Array, a: Array, n0: int, nb: int, V: int) -> None:
    """a[n0 + lane, q] = at[q * V + lane] for lane < nb."""
    Q = a.shape[1]
    af = a.reshape(a.shape[0] * Q)
    q0 = 0
    if nb == V:
        while q0 + V <= Q:
            vtranspose(at, q0 * V, V, af, n0 * Q + q0, Q)
            q0 += V
    for q in range(q0, Q):
        for lane in range(nb):
            af[(n0 + lane) * Q + q] = at[q * V + lane]


@njit(cache=True, nogil=True)
def pad_lanes(src: Array, dst: Array, C: int, H: int, W: int, ph: int, pw: int, V: int) -> None:
    """Copy the (C, H, W, V) block src into the interior of the (C, H+2ph, W+2pw, V) dst.
    dst's border is left as it is (zero once allocated with zeros)."""
    Hp, Wp = H + 2 * ph, W + 2 * pw
    n = W * V
    for c in range(C):
        for h in range(H):
            s = (c * H + h) * n
            d = ((c * Hp + h + ph) * Wp + pw) * V
            for k in range(0, n, V):
                vstore(dst, d + k, vload(src, s + k))


@njit(cache=True, nogil=True)
def conv_lanes(
    xt: Array,
    w4: Array,
    b4: Array,
    yt: Array,
    C: int,
    Hp: int,
    Wp: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    O4: int,
    V: int,
) -> None:
    """yt[o, ho, wo] = b4[o] + sum_{c,i,j} w[o, c, i, j] * xt[c, ho + i*dh, wo + j*dw] (vectors).

    w4 is the weight packed as (O4 / 4, C, kh, kw, 4): the 4 weights of one tile's
    output channels for one tap are adjacent."""
    P = Ho * Wo
    ys = P * V
    for ho in range(Ho):
        for ob in range(O4 // _OB):
            o = ob * _OB
            bb0 = sload(b4, o)
            bb1 = sload(b4, o + 1)
            bb2 = sload(b4, o + 2)
            bb3 = sload(b4, o + 3)
            wo = 0
            while wo + 4 <= Wo:
                a00 = vsplat(xt, bb0)
                a01 = a00
                a02 = a00
                a03 = a00
                a10 = vsplat(xt, bb1)
                a11 = a10
                a12 = a10
                a13 = a10
                a20 = vsplat(xt, bb2)
                a21 = a20
                a22 = a20
                a23 = a20
                a30 = vsplat(xt, bb3)
                a31 = a30
                a32 = a30
                a33 = a30
                for c in range(C):
                    for i in range(kh):
                        base = ((c * Hp + ho + i * dh) * Wp + wo) * V
                        q = (((ob * C + c) * kh + i) * kw) * _OB
                        for j in range(kw):
                            b = base + j * dw * V
                            x0 = vload(xt, b)
                            x1 = vload(xt, b + V)
                            x2 = vload(xt, b + 2 * V)
                            x3 = vload(xt, b + 3 * V)
                            w = sload(w4, q)
                            a00 = vfma(a00, x0, w)
                            a01 = vfma(a01, x1, w)
                            a02 = vfma(a02, x2, w)
                            a03 = vfma(a03, x3, w)
                            w = sload(w4, q + 1)
                            a10 = vfma(a10, x0, w)
                            a11 = vfma(a11, x1, w)
                            a12 = vfma(a12, x2, w)
                            a13 = vfma(a13, x3, w)
                            w = sload(w4, q + 2)
                            a20 = vfma(a20, x0, w)
                            a21 = vfma(a21, x1, w)
                            a22 = vfma(a22, x2, w)
                            a23 = vfma(a23, x3, w)
                            w = sload(w4, q + 3)
                            a30 = vfma(a30, x0, w)
                            a31 = vfma(a31, x1, w)
                            a32 = vfma(a32, x2, w)
                            a33 = vfma(a33, x3, w)
                            q += _OB
                p = (o * P + ho * Wo + wo) * V
                vstore(yt, p, a00)
                vstore(yt, p + V, a01)
                vstore(yt, p + 2 * V, a02)
                vstore(yt, p + 3 * V, a03)
                p += ys
                vstore(yt, p, a10)
                vstore(yt, p + V, a11)
                vstore(yt, p + 2 * V, a12)
                vstore(yt, p + 3 * V, a13)
                p += ys
                vstore(yt, p, a20)
                vstore(yt, p + V, a21)
                vstore(yt, p + 2 * V, a22)
                vstore(yt, p + 3 * V, a23)
                p += ys
                vstore(yt, p, a30)
                vstore(yt, p + V, a31)
                vstore(yt, p + 2 * V, a32)
                vstore(yt, p + 3 * V, a33)
                wo += 4
            if wo + 2 <= Wo:
                a00 = vsplat(xt, bb0)
                a01 = a00
                a10 = vsplat(xt, bb1)
                a11 = a10
                a20 = vsplat(xt, bb2)
                a21 = a20
                a30 = vsplat(xt, bb3)
                a31 = a30
                for c in range(C):
                    for i in range(kh):
                        base = ((c * Hp + ho + i * dh) * Wp + wo) * V
                        q = (((ob * C + c) * kh + i) * kw) * _OB
                        for j in range(kw):
                            b = base + j * dw * V
                            x0 = vload(xt, b)
                            x1 = vload(xt, b + V)
                            w = sload(w4, q)
                            a00 = vfma(a00, x0, w)
                            a01 = vfma(a01, x1, w)
                            w = sload(w4, q + 1)
                            a10 = vfma(a10, x0, w)
                            a11 = vfma(a11, x1, w)
                            w = sload(w4, q + 2)
                            a20 = vfma(a20, x0, w)
                            a21 = vfma(a21, x1, w)
                            w = sload(w4, q + 3)
                            a30 = vfma(a30, x0, w)
                            a31 = vfma(a31, x1, w)
                            q += _OB
                p = (o * P + ho * Wo + wo) * V
                vstore(yt, p, a00)
                vstore(yt, p + V, a01)
                p += ys
                vstore(yt, p, a10)
                vstore(yt, p + V, a11)
                p += ys
                vstore(yt, p, a20)
                vstore(yt, p + V, a21)
                p += ys
                vstore(yt, p, a30)
                vstore(yt, p + V, a31)
                wo += 2
            if wo < Wo:
                a00 = vsplat(xt, bb0)
                a10 = vsplat(xt, bb1)
                a20 = vsplat(xt, bb2)
                a30 = vsplat(xt, bb3)
                for c in range(C):
                    for i in range(kh):
                        base = ((c * Hp + ho + i * dh) * Wp + wo) * V
                        q = (((ob * C + c) * kh + i) * kw) * _OB
                        for j in range(kw):
                            x0 = vload(xt, base + j * dw * V)
                            a00 = vfma(a00, x0, sload(w4, q))
                            a10 = vfma(a10, x0, sload(w4, q + 1))
                            a20 = vfma(a20, x0, sload(w4, q + 2))
                            a30 = vfma(a30, x0, sload(w4, q + 3))
                            q += _OB
                p = (o * P + ho * Wo + wo) * V
                vstore(yt, p, a00)
                vstore(yt, p + ys, a10)
                vstore(yt, p + 2 * ys, a20)
                vstore(yt, p + 3 * ys, a30)


@njit(cache=True, nogil=True)
def conv_weight_lanes(
    xt: Array,
    gyt: Array,
    acc: Array,
    C: int,
    Hp: int,
    Wp: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    O4: int,
    V: int,
) -> None:
    """acc[o, c, i, j] += sum_{ho,wo} gyt[o, ho, wo] * xt[c, ho + i*dh, wo + j*dw] (vectors;
    acc is (O4, C, kh, kw, V), O4 a multiple of 4; gyt has zero rows past the real Co)."""
    P = Ho * Wo
    KK = kh * kw
    gs = P * V
    CKKV = C * KK * V
    for ob in range(O4 // _OB):
        o = ob * _OB
        g0 = o * gs
        for c in range(C):
            for i in range(kh):
                rowi = c * Hp + i * dh
                j = 0
                while j < kw:
                    t = ((o * C + c) * kh + i) * kw + j
                    if j + 4 <= kw:
                        a00 = vzero(xt)
                        a01 = a00
                        a02 = a00
                        a03 = a00
                        a10 = a00
                        a11 = a00
                        a12 = a00
                        a13 = a00
                        a20 = a00
                        a21 = a00
                        a22 = a00
                        a23 = a00
                        a30 = a00
                        a31 = a00
                        a32 = a00
                        a33 = a00
                        for ho in range(Ho):
                            xb = ((rowi + ho) * Wp + j * dw) * V
                            gb = g0 + ho * Wo * V
                            for wo in range(Wo):
                                b = xb + wo * V
                                x0 = vload(xt, b)
                                x1 = vload(xt, b + dw * V)
                                x2 = vload(xt, b + 2 * dw * V)
                                x3 = vload(xt, b + 3 * dw * V)
                                g = gb + wo * V
                                gv = vload(gyt, g)
                                a00 = vfmav(a00, gv, x0)
                                a01 = vfmav(a01, gv, x1)
                                a02 = vfmav(a02, gv, x2)
                                a03 = vfmav(a03, gv, x3)
                                gv = vload(gyt, g + gs)
                                a10 = vfmav(a10, gv, x0)
                                a11 = vfmav(a11, gv, x1)
                                a12 = vfmav(a12, gv, x2)
                                a13 = vfmav(a13, gv, x3)
                                gv = vload(gyt, g + 2 * gs)
                                a20 = vfmav(a20, gv, x0)
                                a21 = vfmav(a21, gv, x1)
                                a22 = vfmav(a22, gv, x2)
                                a23 = vfmav(a23, gv, x3)
                                gv = vload(gyt, g + 3 * gs)
                                a30 = vfmav(a30, gv, x0)
                                a31 = vfmav(a31, gv, x1)
                                a32 = vfmav(a32, gv, x2)
                                a33 = vfmav(a33, gv, x3)
                        r = t * V
                        vstore(acc, r, vadd(vload(acc, r), a00))
                        vstore(acc, r + V, vadd(vload(acc, r + V), a01))
                        vstore(acc, r + 2 * V, vadd(vload(acc, r + 2 * V), a02))
                        vstore(acc, r + 3 * V, vadd(vload(acc, r + 3 * V), a03))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a10))
                        vstore(acc, r + V, vadd(vload(acc, r + V), a11))
                        vstore(acc, r + 2 * V, vadd(vload(acc, r + 2 * V), a12))
                        vstore(acc, r + 3 * V, vadd(vload(acc, r + 3 * V), a13))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a20))
                        vstore(acc, r + V, vadd(vload(acc, r + V), a21))
                        vstore(acc, r + 2 * V, vadd(vload(acc, r + 2 * V), a22))
                        vstore(acc, r + 3 * V, vadd(vload(acc, r + 3 * V), a23))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a30))
                        vstore(acc, r + V, vadd(vload(acc, r + V), a31))
                        vstore(acc, r + 2 * V, vadd(vload(acc, r + 2 * V), a32))
                        vstore(acc, r + 3 * V, vadd(vload(acc, r + 3 * V), a33))
                        j += 4
                    else:
                        a00 = vzero(xt)
                        a10 = a00
                        a20 = a00
                        a30 = a00
                        for ho in range(Ho):
                            xb = ((rowi + ho) * Wp + j * dw) * V
                            gb = g0 + ho * Wo * V
                            for wo in range(Wo):
                                x0 = vload(xt, xb + wo * V)
                                g = gb + wo * V
                                a00 = vfmav(a00, vload(gyt, g), x0)
                                a10 = vfmav(a10, vload(gyt, g + gs), x0)
                                a20 = vfmav(a20, vload(gyt, g + 2 * gs), x0)
                                a30 = vfmav(a30, vload(gyt, g + 3 * gs), x0)
                        r = t * V
                        vstore(acc, r, vadd(vload(acc, r), a00))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a10))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a20))
                        r += CKKV
                        vstore(acc, r, vadd(vload(acc, r), a30))
                        j += 1


# ----------------------------------------------------------------------------
# Block drivers: blocks [k0, k1) of V images each, with their own scratch
# ----------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _forward_blocks(
    x2: Array,
    w4: Array,
    b4: Array,
    y2: Array,
    C: int,
    H: int,
    W: int,
    ph: int,
    pw: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    Co: int,
    O4: int,
    V: int,
    k0: int,
    k1: int,
) -> None:
    N = x2.shape[0]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    padded = ph > 0 or pw > 0
    x0t = np.empty(C * H * W * V, x2.dtype)
    xt = np.zeros(C * Hp * Wp * V, x2.dtype) if padded else x0t
    yt = np.empty(O4 * Ho * Wo * V, x2.dtype)
    ytv = yt[: Co * Ho * Wo * V]
    for k in range(k0, k1):
        n0 = k * V
        nb = min(V, N - n0)
        rows_to_lanes(x2, n0, nb, x0t, V)
        if padded:
            pad_lanes(x0t, xt, C, H, W, ph, pw, V)
        conv_lanes(xt, w4, b4, yt, C, Hp, Wp, kh, kw, dh, dw, Ho, Wo, O4, V)
        lanes_to_rows(ytv, y2, n0, nb, V)


@njit(cache=True, parallel=True)
def _forward_blocks_parallel(
    x2: Array,
    w4: Array,
    b4: Array,
    y2: Array,
    C: int,
    H: int,
    W: int,
    ph: int,
    pw: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    Co: int,
    O4: int,
    V: int,
    nblocks: int,
    nparts: int,
) -> None:
    for t in prange(nparts):
        _forward_blocks(
            x2,
            w4,
            b4,
            y2,
            C,
            H,
            W,
            ph,
            pw,
            kh,
            kw,
            dh,
            dw,
            Ho,
            Wo,
            Co,
            O4,
            V,
            t * nblocks // nparts,
            (t + 1) * nblocks // nparts,
        )


@njit(cache=True, nogil=True)
def _weight_blocks(
    x2: Array,
    gy2: Array,
    acc: Array,
    C: int,
    H: int,
    W: int,
    ph: int,
    pw: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    Co: int,
    O4: int,
    V: int,
    k0: int,
    k1: int,
) -> None:
    N = x2.shape[0]
    Hp, Wp = H + 2 * ph, W + 2 * pw
    padded = ph > 0 or pw > 0
    x0t = np.empty(C * H * W * V, x2.dtype)
    xt = np.zeros(C * Hp * Wp * V, x2.dtype) if padded else x0t
    gyt = np.zeros(O4 * Ho * Wo * V, x2.dtype)  # rows past Co stay zero
    gytv = gyt[: Co * Ho * Wo * V]
    for k in range(k0, k1):
        n0 = k * V
        nb = min(V, N - n0)
        rows_to_lanes(x2, n0, nb, x0t, V)
        if padded:
            pad_lanes(x0t, xt, C, H, W, ph, pw, V)
        rows_to_lanes(gy2, n0, nb, gytv, V)
        conv_weight_lanes(xt, gyt, acc, C, Hp, Wp, kh, kw, dh, dw, Ho, Wo, O4, V)


@njit(cache=True, parallel=True)
def _weight_blocks_parallel(
    x2: Array,
    gy2: Array,
    accs: Array,
    C: int,
    H: int,
    W: int,
    ph: int,
    pw: int,
    kh: int,
    kw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    Co: int,
    O4: int,
    V: int,
    nblocks: int,
    nparts: int,
) -> None:
    for t in prange(nparts):
        _weight_blocks(
            x2,
            gy2,
            accs[t],
            C,
            H,
            W,
            ph,
            pw,
            kh,
            kw,
            dh,
            dw,
            Ho,
            Wo,
            Co,
            O4,
            V,
            t * nblocks // nparts,
            (t + 1) * nblocks // nparts,
        )


@njit(cache=True, nogil=True)
def _reduce_lanes(accs: Array, gw: Array, V: int) -> None:
    """gw[t] = sum over parts and lanes of accs[:, t * V:(t + 1) * V], summed in float64."""
    T = gw.shape[0]
    for t in range(T):
        s = 0.0
        for k in range(accs.shape[0]):
            a = accs[k]
            for lane in range(V):
                s += np.float64(a[t * V + lane])
        gw[t] = s


# ----------------------------------------------------------------------------
# Entry points (Python side). All assume stride 1 and one group.
# ----------------------------------------------------------------------------


def _pack_weight(w: Array, O4: int) -> Array:
    """(Co, C, kh, kw) -> flat (O4 / 4, C, kh, kw, 4), zero channels past Co."""
    Co, C, kh, kw = w.shape
    wp = np.zeros((O4, C, kh, kw), w.dtype)
    wp[:Co] = w
    return np.ascontiguousarray(
        wp.reshape(O4 // _OB, _OB, C, kh, kw).transpose(0, 2, 3, 4, 1)
    ).reshape(-1)


def _parts(nblocks: int, nthreads: int) -> int:
    return max(1, min(nblocks, nthreads))


def forward(
    x: Array,
    w: Array,
    bias: Array | None,
    ph: int,
    pw: int,
    dh: int,
    dw: int,
    Ho: int,
    Wo: int,
    nthreads: int,
) -> Array:
    """conv2d of NCHW x with (Co, C, kh, kw) w (stride 1, one group); bias may be None."""
    N, C, H, W = x.shape
    Co, _, kh, kw = w.shape
    V = 64 // x.itemsize
    O4 = -(-Co // _OB) * _OB
    w4 = _pack_weight(w, O4)
    b4 = np.zeros(O4, x.dtype)
    if bias is not None:
        b4[:Co] = bias
    y = np.empty((N, Co, Ho, Wo), x.dtype)
    x2, y2 = x.reshape(N, -1), y.reshape(N, -1)
    nblocks = -(-N // V)
    parts = _parts(nblocks, nthreads)
    args = (x2, w4, b4, y2, C, H, W, ph, pw, kh, kw, dh, dw, Ho, Wo, Co, O4, V)
    if parts > 1:
        _forward_blocks_parallel(*args, nblocks, parts)
    else:
        _forward_blocks(*args, 0, nblocks)
    return y


def backward_weight(
    gy: Array, x: Array, kh: int, kw: int, ph: int, pw: int, dh: int, dw: int, nthreads: int
) -> Array:
    """Gradient of the weight, (Co, C, kh, kw), of a stride-1 single-group conv2d."""
    N, C, H, W = x.shape
    Co, Ho, Wo = gy.shape[1], gy.shape[2], gy.shape[3]
    V = 64 // x.itemsize
    O4 = -(-Co // _OB) * _OB
    nblocks = -(-N // V)
    parts = _parts(nblocks, nthreads)
    accs = np.zeros((parts, O4 * C * kh * kw * V), x.dtype)
    x2, gy2 = x.reshape(N, -1), gy.reshape(N, -1)
    args = (x2, gy2, C, H, W, ph, pw, kh, kw, dh, dw, Ho, Wo, Co, O4, V)
    if parts > 1:
        _weight_blocks_parallel(args[0], args[1], accs, *args[2:], nblocks, parts)
    else:
        _weight_blocks(args[0], args[1], accs[0], *args[2:], 0, nblocks)
    gw = np.empty(Co * C * kh * kw, x.dtype)
    _reduce_lanes(accs, gw, V)
    return gw.reshape(Co, C, kh, kw)


def backward_input(
    gy: Array, w: Array, H: int, W: int, ph: int, pw: int, dh: int, dw: int, nthreads: int
) -> Array:
    """Gradient of the input of a stride-1 single-group conv2d, as a forward convolution
    of grad_output padded by (k - 1) * d - p with the flipped, transposed kernel.
    Needs p <= (k - 1) * d on both axes."""
    kh, kw = w.shape[2], w.shape[3]
    wf = np.ascontiguousarray(w[:, :, ::-1, ::-1].transpose(1, 0, 2, 3))
    return forward(gy, wf, None, dh * (kh - 1) - ph, dw * (kw - 1) - pw, dh, dw, H, W, nthreads)
