"""Which convolution kernel runs a given shape: a cost model checked against ``benchmarks/kernels.py``.

Three kernels compute every convolution, and each wins somewhere:

- ``LANES`` (``_conv_lanes``): direct loops with one image per vector lane. No copies and no
  wasted positions, but each weight is a scalar broadcast into a vector FMA: fast while the
  channels are few (LeNet's 3-16), slow from a few dozen on, where a GEMM reuses every value from
  registers many times. Needs stride 1, one group and a full vector of images.
- ``CHANNELS_LAST`` (``conv_gemm``): a channels-last copy and im2col, then one BLAS GEMM per
  chunk of images. Its copies move runs of ``C`` values, so it wants many channels; it is the
  kernel for wide layers (ResNet's 64-512 channels at 32x32 down to 1x1 planes).
- ``PLANES`` (``conv``): NCHW im2col with one input row per copy, then a BLAS GEMM per group.
  The only kernel for grouped convolutions, and the better one for few channels on large planes
  at small batch.

Inside the channels-last family, ``channels_last_variant`` chooses per operation between im2col
(``conv_gemm``) and the tap sum (``conv_tap_sum``: one GEMM over every kernel tap on the input as
it is, then a shifted sum), by a cost model: values moved by layout copies, at ``_COPY_MACS``
multiply-adds each, plus GEMM multiply-adds slowed in proportion when a GEMM dimension is below
``_FULL_GEMM_DIM``. The tap sum copies ``kh * kw * Co`` values per input pixel where im2col copies
``kh * kw * C`` per output pixel (with a stride, per phase of the input: see ``conv_tap_sum``), so
it wins on thin layers (few outputs, many inputs, large kernels) and loses on wide ones.

The rule for the three kernels is the measured crossover: the lanes kernel up to ``_LANES_MAX_CHANNELS`` input
and output channels (not for 1x1 kernels, plain matrix products), the channels-last kernel from
``_WIDE_CHANNELS`` input channels on, the NCHW kernel otherwise.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

OPS = ("forward", "backward_input", "backward_weight")

LANES = "lanes"
CHANNELS_LAST = "channels_last"
PLANES = "planes"
STEM = "stem"

# Smallest float32 batch for the lanes kernel (half as many for float64: a vector holds 8).
_LANES_MIN_IMAGES = 16
# Above this many channels (in or out) a GEMM beats the lanes kernel's broadcast FMAs.
_LANES_MAX_CHANNELS = 16
# From this many input channels the channels-last copies move runs long enough to be cheap.
_WIDE_CHANNELS = 16


@functools.lru_cache(maxsize=4096)
def conv_kernel(
    N: int,
    C: int,
    Co: int,
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    groups: int,
    itemsize: int,
    op: str = "forward",
) -> str:
    """The kernel (``LANES``, ``CHANNELS_LAST`` or ``PLANES``) for ``op`` (one of ``OPS``) of a
    convolution of N images with C input and Co output channels. The choice is the same for the
    three operations, except that an input gradient with more output channels than input ones
    leaves the lanes kernel for ``PLANES``: its GEMM then reduces over the larger side (LeNet's
    6 -> 16 layer: 2-2.5x faster at batch 16-256)."""
    if groups != 1:
        return PLANES
    if (
        stride[0] == 1
        and stride[1] == 1
        and N * itemsize >= _LANES_MIN_IMAGES * 4
        and kernel_hw[0] * kernel_hw[1] > 1
        and C <= _LANES_MAX_CHANNELS
        and Co <= _LANES_MAX_CHANNELS
    ):
        return PLANES if op == "backward_input" and Co > C else LANES
    if C >= _WIDE_CHANNELS:
        return CHANNELS_LAST
    if stride[0] > 1 or stride[1] > 1:
        return STEM  # forward and weight gradient; its input gradient stays with PLANES
    return PLANES


TAP_SUM = "tap_sum"

# A value moved by a layout copy (im2col, col2im, a transpose) costs about as much time as this
# many multiply-adds of a GEMM at full speed (about 1 ns against 30 per ns, on one core here).
_COPY_MACS = 30
# Fixed cost of one GEMM and its copies from Python (about 10 us), in multiply-adds: the tap sum
# makes one such round per phase of a strided input.
_ROUND_MACS = 300_000
# BLAS GEMMs run near full speed once every dimension has this many rows; below it, in proportion.
_FULL_GEMM_DIM = 48
# The tap sum is chosen only when it is estimated this much cheaper: in a near tie im2col, the
# kernel measured on ResNet's layers, stays.
_TAP_SUM_MARGIN = 0.75
# Below this many pixels per image the channels-last kernels transpose to rows (see conv_tap_sum).
_PER_IMAGE_POSITIONS = 64


def _gemm(m: int, n: int, k: int) -> float:
    """Estimated cost of an (m, k) @ (k, n) GEMM, in full-speed multiply-adds."""
    return m * n * k * max(1.0, _FULL_GEMM_DIM / max(1, min(m, n, k)))


def _costs(
    op: str,
    N: int,
    C: int,
    H: int,
    W: int,
    Co: int,
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> tuple[float, float]:
    """(im2col, tap sum) estimated costs of one operation of a one-group convolution."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel_hw, stride, padding, dilation
    Ho = (H + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    Wo = (W + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    P, Q, T = Ho * Wo, H * W, kh * kw
    # The tap sum splits a strided input into sh * sw phases, each read by its own taps: per
    # phase, Q / (sh * sw) pixels times about T / (sh * sw) taps (and a copy of the phase).
    phases = sh * sw
    Qp, Tp = max(1, Q // phases), max(1, T // phases)
    phase_copy = Q * C if phases > 1 else 0
    # Per image: values copied; GEMM rows counted over the batch.
    nhwc = Q * C  # the channels-last copy of an NCHW input (or back)
    rows_in = nhwc if Qp < _PER_IMAGE_POSITIONS else 0
    if op == "forward":
        im2col = N * (nhwc + P * T * C) * _COPY_MACS + _gemm(N * P, Co, T * C)
        taps = N * (phase_copy + rows_in + 2 * Q * Tp * Co) * _COPY_MACS
        taps += phases * _gemm(N * Qp, Tp * Co, C)
    elif op == "backward_input":
        im2col = N * (P * Co + 2 * P * T * C + nhwc) * _COPY_MACS + _gemm(N * P, T * C, Co)
        taps = N * (P * Co + Q * Tp * Co + rows_in + phase_copy) * _COPY_MACS
        taps += phases * _gemm(N * Qp, C, Tp * Co)
    else:
        im2col = N * (nhwc + P * T * C + P * Co) * _COPY_MACS + _gemm(Co, T * C, N * P)
        taps = N * (P * Co + Q * Tp * Co + rows_in + phase_copy) * _COPY_MACS
        taps += phases * _gemm(Tp * Co, C, N * Qp)
    return im2col + _ROUND_MACS, taps + phases * _ROUND_MACS


@functools.lru_cache(maxsize=4096)
def channels_last_variant(
    op: str,
    N: int,
    C: int,
    H: int,
    W: int,
    Co: int,
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
) -> str:
    """``CHANNELS_LAST`` (im2col) or ``TAP_SUM`` for ``op`` (one of ``OPS``) of a one-group
    convolution the selector gave to the channels-last family. 1x1 kernels stay with im2col,
    whose 1x1 paths need no copy at all."""
    if kernel_hw[0] * kernel_hw[1] == 1:
        return CHANNELS_LAST
    im2col, taps = _costs(op, N, C, H, W, Co, kernel_hw, stride, padding, dilation)
    return TAP_SUM if taps < _TAP_SUM_MARGIN * im2col else CHANNELS_LAST
