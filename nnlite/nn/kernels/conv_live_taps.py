"""Kernel taps that only ever read padding: dropped before a convolution runs.

On planes smaller than the kernel's reach some taps fall in the zero padding for every output
pixel: a 3x3 kernel with padding 1 on a 1x1 plane (ResNet-18's last layers on 32x32 images) reads
the input with its centre tap only, and a 3x3 stride-2 kernel on a 2x2 plane with its lower-right
2x2 taps. Those taps add exact zeros to the output and get exact zeros as weight gradient, so the
convolution equals one with the live taps only and the padding reduced to match, which the
kernels then run with a fraction of the multiply-adds (a ninth for the 1x1 plane).
"""

import functools

import numpy as np

__all__ = ["live_taps", "cropped_weight", "embed_weight_grad"]


def _axis(size, k, stride, pad, dilation, out):
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
def live_taps(input_hw, kernel_hw, stride, padding, dilation, output_hw):
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


def cropped_weight(weight, taps):
    """The weight's live taps, C-contiguous."""
    rows, cols = taps
    return np.ascontiguousarray(weight[:, :, rows, cols])


def embed_weight_grad(grad, kernel_hw, taps):
    """The full (Co, C, kh, kw) weight gradient from the live taps' one (zeros elsewhere)."""
    rows, cols = taps
    full = np.zeros(grad.shape[:2] + tuple(kernel_hw), grad.dtype)
    full[:, :, rows, cols] = grad
    return full
