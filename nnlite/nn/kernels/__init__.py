"""numba compute kernels for convolution and pooling on raw NCHW numpy arrays.

No autograd here: the layer code calls these from its Function forward/backward.

nnlite forks processes (data-loader workers, DataParallel replicas) that run these kernels. GNU
OpenMP, numba's default threading layer on Linux, does not survive a fork once its pool is
running, so a fork-safe layer is chosen unless the user picked one.
"""
import os

if "NUMBA_THREADING_LAYER" not in os.environ:
    import numba

    if numba.config.THREADING_LAYER == "default":
        numba.config.THREADING_LAYER = "forksafe"

from .conv import (
    conv2d_backward_input,
    conv2d_backward_weight,
    conv2d_forward,
    conv2d_output_hw,
)
from .pool import (
    avg_pool2d_backward,
    avg_pool2d_forward,
    max_pool2d_backward,
    max_pool2d_forward,
    pool2d_output_hw,
)

__all__ = [
    "conv2d_forward",
    "conv2d_backward_input",
    "conv2d_backward_weight",
    "conv2d_output_hw",
    "max_pool2d_forward",
    "max_pool2d_backward",
    "avg_pool2d_forward",
    "avg_pool2d_backward",
    "pool2d_output_hw",
]
