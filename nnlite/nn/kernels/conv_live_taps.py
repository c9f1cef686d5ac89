"""Kernel taps that only ever read padding: dropped before a convolution runs.

On planes smaller than the kernel's reach some taps fall in the zero padding for every output
pixel: a 3x3 kernel with padding 1 on a 1x1 plane (ResNet-18's last layers on 32x32 images) reads
the input with its centre tap only, and a 3x3 stride-2 kernel on a 2x2 plane with its lower-right
2x2 taps. Those taps add exact zeros to the output and get exact zeros as weight gradient, so the
convolution equals one with the live taps only and the padding reduced to match, which the
kernels then run with a fraction of the multiply-adds (a ninth for the 1x1 plane).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.jit import njit

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array

__all__ = ["live_taps", "worth_cropping", "cropped_weight", "embed_weight_grad"]

# Copying a weight value into the cropped weight costs about as much as this many multiply-adds
# of the GEMM the crop shortens (measured: cropping a 512 x 256 x 3 x 3 weight to 2x2 for 8 images
# on a 2x2 plane made the call 1.7x slower; to 1x1 for 8 images on a 1x1 plane, 2.8x faster).
_COPY_MACS = 30


def _axis(
    size: int, k: int, stride: int, pad: int, dilation: int, out: int
) -> tuple[int, int, int] | None:
    """(first, stop, new padding) of the live taps along one axis, or None when nothing is dead
    or the live taps cannot be run as a convolution with symmetric padding of the same output."""
    live = [
        i for i in range(k) if any(0 <= o * stride - pad + i * dilation < size for o in range(out))
    ]
    if not live or len(live) == k or live != list(range(live[0], live[-1] + 1)):
        return None
    first, stop = live[0], live[-1] + 1
    new_pad = pad - first * dilation
    new_out = (size + 2 * new_pad - dilation * (stop - first - 1) - 1) // stride + 1
    if new_pad < 0 or new_out != out:
        return None
    return first, stop, new_pad


@functools.lru_cache(maxsize=4096)
def live_taps(
    input_hw: tuple[int, int],
    kernel_hw: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    output_hw: tuple[int, int],
) -> tuple[tuple[slice, ...], tuple[int, ...]] | None:
    """((rows, cols), new padding) of the taps that read the input at least once, or None when
    every tap does (or dropping the others would change the output's geometry). The arguments are
    int pairs (tuples); the answer is cached per shape, so a call costs a dictionary look-up."""
    axes = [
        _axis(n, k, s, p, d, o)
        for n, k, s, p, d, o in zip(input_hw, kernel_hw, stride, padding, dilation, output_hw)
    ]
    if axes[0] is None and axes[1] is None:
        return None
    slices, pads = [], []
    for axis, k, p in zip(axes, kernel_hw, padding):
        first, stop, new_pad = axis if axis is not None else (0, k, p)
        slices.append(slice(first, stop))
        pads.append(new_pad)
    return tuple(slices), tuple(pads)


@njit(cache=True, nogil=True)
def _copy_taps(src: Array, dst: Array, r0: int, c0: int, crop: bool) -> None:
    """crop: dst[o, c] = src[o, c, r0:, c0:] (dst's size); else src[o, c] = dst[o, c, r0:, c0:]."""
    Co, C, kh, kw = (dst if crop else src).shape
    for o in range(Co):
        for c in range(C):
            for i in range(kh):
                for j in range(kw):
                    if crop:
                        dst[o, c, i, j] = src[o, c, r0 + i, c0 + j]
                    else:
                        dst[o, c, r0 + i, c0 + j] = src[o, c, i, j]


def worth_cropping(
    N: int, output_hw: Sequence[int], kernel_hw: Sequence[int], taps: Sequence[slice]
) -> bool:
    """Whether the multiply-adds saved by dropping the dead taps outweigh copying the live ones:
    per (output, input) channel pair, N * Ho * Wo * (dead taps) against the live taps' copy."""
    rows, cols = taps
    live: int = (rows.stop - rows.start) * (cols.stop - cols.start)
    dead = kernel_hw[0] * kernel_hw[1] - live
    return N * output_hw[0] * output_hw[1] * dead >= _COPY_MACS * live


def cropped_weight(weight: Array, taps: Sequence[slice]) -> Array:
    """The weight's live taps, C-contiguous. (numpy's copy of the sliced view runs its inner loop
    over a few taps at a time: 3 ms for a 512 x 256 x 3 x 3 weight, ten times this loop's.)"""
    rows, cols = taps
    if rows.stop - rows.start == 1 and cols.stop - cols.start == 1:
        # A single tap: numpy's strided gather is the faster copy (0.3 against 2 ms for 512 x 512).
        return np.ascontiguousarray(weight[:, :, rows, cols])
    Co, C = weight.shape[:2]
    out = np.empty((Co, C, rows.stop - rows.start, cols.stop - cols.start), weight.dtype)
    _copy_taps(weight, out, rows.start, cols.start, True)
    return out


def embed_weight_grad(grad: Array, kernel_hw: Sequence[int], taps: Sequence[slice]) -> Array:
    """The full (Co, C, kh, kw) weight gradient from the live taps' one (zeros elsewhere)."""
    rows, cols = taps
    full = np.zeros(grad.shape[:2] + tuple(kernel_hw), grad.dtype)
    if rows.stop - rows.start == 1 and cols.stop - cols.start == 1:
        full[:, :, rows, cols] = grad  # a single tap: numpy's strided scatter is faster
    else:
        _copy_taps(grad, full, rows.start, cols.start, False)
    return full
