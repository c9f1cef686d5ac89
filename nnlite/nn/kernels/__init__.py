"""numba compute kernels for convolution and pooling on raw NCHW numpy arrays.

No autograd here: the ops of ``nnlite/nn/ops`` call these from their forward and backward.
"""

from ._dispatch import configure_threading_layer

configure_threading_layer()  # before any kernel starts numba's pool

from .conv import (  # noqa: E402  (imported after the threading layer is set)
    conv2d_backward_input,
    conv2d_backward_weight,
    conv2d_forward,
    conv2d_output_hw,
)
from .pool import (  # noqa: E402  (imported after the threading layer is set)
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
