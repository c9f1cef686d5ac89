"""``nnlite.nn.functional`` (``import nnlite.nn.functional as F``): layers as functions.

Each function is defined next to its op (``nnlite/nn/ops/`` and ``nnlite/autograd/ops/``), with
its argument checks; this module only gathers them under PyTorch's names.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

from ..autograd.ops.activation import (
    leaky_relu,
    leaky_relu_,
    log_softmax,
    relu,
    relu_,
    sigmoid,
    softmax,
    tanh,
)
from ..autograd.providers import provide
from ..autograd.torch_function import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from .functional_helpers import assert_int_or_pair, boolean_dispatch
from .ops._messages import LayerInputError as LayerInputError  # layers catch F.LayerInputError
from .ops.activation import (
    celu,
    celu_,
    elu,
    elu_,
    gelu,
    glu,
    gumbel_softmax,
    hardshrink,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    logsigmoid,
    mish,
    prelu,
    relu6,
    rrelu,
    rrelu_,
    selu,
    selu_,
    silu,
    softmin,
    softplus,
    softshrink,
    softsign,
    tanhshrink,
    threshold,
    threshold_,
)
from .ops.attention import scaled_dot_product_attention
from .ops.bilinear import bilinear
from .ops.composite_loss import (
    binary_cross_entropy,
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    linear_cross_entropy,
    margin_ranking_loss,
    multi_margin_loss,
    multilabel_margin_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
    triplet_margin_with_distance_loss,
)
from .ops.conv import conv2d
from .ops.conv_transpose import conv1d, conv_transpose2d
from .ops.conv_volume import conv3d, conv_tbc, conv_transpose1d, conv_transpose3d
from .ops.ctc_loss import ctc_loss
from .ops.distance import cosine_similarity, normalize, pairwise_distance, pdist
from .ops.dropout import (
    alpha_dropout,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from .ops.embedding import embedding
from .ops.embedding_bag import embedding_bag
from .ops.encoding import one_hot
from .ops.fold import fold, unfold
from .ops.fractional_max_pool import (
    fractional_max_pool2d,
    fractional_max_pool2d_with_indices,
    fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .ops.grid_sample import affine_grid, grid_sample
from .ops.group_norms import (
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    rms_norm,
)
from .ops.grouped_mm import grouped_mm
from .ops.interpolate import adaptive_max_pool2d, interpolate
from .ops.linear import linear
from .ops.loss import (
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from .ops.multi_head_attention import multi_head_attention_forward
from .ops.normalization import batch_norm
from .ops.padding import pad
from .ops.pixel_shuffle import (
    channel_shuffle,
    native_channel_shuffle,
    pixel_shuffle,
    pixel_unshuffle,
)
from .ops.pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d
from .ops.pooling_nd import (
    adaptive_avg_pool1d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool1d_with_indices,
    adaptive_max_pool2d_with_indices,
    adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices,
    avg_pool1d,
    avg_pool3d,
    lp_pool1d,
    lp_pool2d,
    lp_pool3d,
    max_pool1d,
    max_pool1d_with_indices,
    max_pool2d_with_indices,
    max_pool3d,
    max_pool3d_with_indices,
    max_unpool1d,
    max_unpool2d,
    max_unpool3d,
)
from .ops.shape import flatten

if TYPE_CHECKING:
    from .._typing import _size_any
    from ..autograd.tensor import Tensor

__all__ = [
    "linear",
    "relu",
    "relu_",
    "leaky_relu",
    "leaky_relu_",
    "sigmoid",
    "tanh",
    "softmax",
    "log_softmax",
    "conv2d",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "batch_norm",
    "dropout",
    "mse_loss",
    "l1_loss",
    "cross_entropy",
    "nll_loss",
    "binary_cross_entropy_with_logits",
    "flatten",
    "pad",
    "one_hot",
    "elu",
    "gelu",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "mish",
    "prelu",
    "relu6",
    "silu",
    "softplus",
    "binary_cross_entropy",
    "cosine_embedding_loss",
    "huber_loss",
    "kl_div",
    "margin_ranking_loss",
    "smooth_l1_loss",
    "triplet_margin_loss",
    "cosine_similarity",
    "normalize",
    "pairwise_distance",
    "dropout1d",
    "dropout2d",
    "embedding",
    "group_norm",
    "instance_norm",
    "layer_norm",
    "pixel_shuffle",
    "pixel_unshuffle",
    "interpolate",
    "upsample",
    "adaptive_max_pool2d",
    "scaled_dot_product_attention",
    "conv1d",
    "conv_transpose2d",
    "celu",
    "celu_",
    "elu_",
    "glu",
    "hardshrink",
    "hardtanh_",
    "logsigmoid",
    "rrelu",
    "rrelu_",
    "selu",
    "selu_",
    "softmin",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_with_distance_loss",
    "alpha_dropout",
    "dropout3d",
    "feature_alpha_dropout",
    "fold",
    "unfold",
    "affine_grid",
    "grid_sample",
    "adaptive_avg_pool1d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool3d",
    "avg_pool1d",
    "avg_pool3d",
    "lp_pool1d",
    "lp_pool2d",
    "lp_pool3d",
    "max_pool1d",
    "max_pool3d",
    "max_unpool1d",
    "max_unpool2d",
    "max_unpool3d",
    "adaptive_max_pool1d_with_indices",
    "adaptive_max_pool2d_with_indices",
    "adaptive_max_pool3d_with_indices",
    "max_pool1d_with_indices",
    "max_pool2d_with_indices",
    "max_pool3d_with_indices",
    "bilinear",
    "channel_shuffle",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose3d",
    "embedding_bag",
    "gumbel_softmax",
    "local_response_norm",
    "native_channel_shuffle",
    "pdist",
    "rms_norm",
    "upsample_bilinear",
    "upsample_nearest",
    "conv_tbc",
    "linear_cross_entropy",
    "assert_int_or_pair",
    "boolean_dispatch",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "handle_torch_function",
    "multi_head_attention_forward",
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
    "ctc_loss",
    "grouped_mm",
]


def upsample(
    input: Tensor,
    size: _size_any | None = None,
    scale_factor: float | tuple[float, ...] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """Deprecated name of ``interpolate``, kept as PyTorch keeps it.

    Args:
        input (Tensor): ``(N, C, *)``.
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): as for ``interpolate``. Default: ``"nearest"``.
        align_corners (bool, optional): as for ``interpolate``.

    Returns:
        Tensor: the resized tensor.

    Examples:
        >>> F.upsample(nl.ones(1, 1, 2, 2), scale_factor=2).shape
        nnlite.Size([1, 1, 4, 4])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def _deprecated_upsample(name: str) -> None:
    warnings.warn(
        f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=3,
    )


def upsample_nearest(
    input: Tensor, size: _size_any | None = None, scale_factor: float | None = None
) -> Tensor:
    """Deprecated: ``interpolate(input, size, scale_factor, mode="nearest")``, with PyTorch's warning.

    Args:
        input (Tensor): ``(N, C, *)``.
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float, optional): the multiplier of the spatial size.

    Returns:
        Tensor: the resized tensor.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     F.upsample_nearest(nl.ones(1, 1, 2, 2), scale_factor=2).shape
        nnlite.Size([1, 1, 4, 4])
    """
    _deprecated_upsample("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(
    input: Tensor, size: _size_any | None = None, scale_factor: float | None = None
) -> Tensor:
    """Deprecated: ``interpolate(..., mode="bilinear", align_corners=True)``, with PyTorch's warning.

    Args:
        input (Tensor): ``(N, C, H, W)``.
        size (int or pair, optional): the output's spatial size.
        scale_factor (float, optional): the multiplier of the spatial size.

    Returns:
        Tensor: the resized tensor.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     F.upsample_bilinear(nl.ones(1, 1, 2, 2), size=3).shape
        nnlite.Size([1, 1, 3, 3])
    """
    _deprecated_upsample("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# what the nl.* forms call by name (autograd/providers.py explains why)
provide("nn.functional", {name: globals()[name] for name in __all__})
