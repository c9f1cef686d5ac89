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

Strided convolutions of few input channels (an image network's stem) go to ``STEM``
(``conv_stem``: polyphase im2col per block of images, 1.3-1.5x faster than ``PLANES`` there).

The rule below is the measured crossover: the lanes kernel up to ``_LANES_MAX_CHANNELS`` input
and output channels (not for 1x1 kernels, plain matrix products), the channels-last kernel from
``_WIDE_CHANNELS`` input channels on, the NCHW kernel otherwise.
"""

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


def conv_kernel(N, C, Co, kernel_hw, stride, groups, itemsize):
    """The kernel (``LANES``, ``CHANNELS_LAST``, ``STEM`` or ``PLANES``) for a convolution of N
    images with C input and Co output channels; the same choice serves its forward and both
    gradients."""
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
        return LANES
    if C >= _WIDE_CHANNELS:
        return CHANNELS_LAST
    if stride[0] > 1 or stride[1] > 1:
        return STEM  # forward and weight gradient; its input gradient stays with PLANES
    return PLANES
