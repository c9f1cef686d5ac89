"""nn's differentiable ops, each with its entry function and argument checks in its own file.

``nn.functional`` re-exports the entries; layers call them.
"""

from .conv import Conv2d, Conv2dGradInput, Conv2dGradWeight, conv2d
from .dropout import Dropout, dropout
from .linear import Linear, LinearNoBias, linear
from .loss import (
    BinaryCrossEntropyWithLogits,
    CrossEntropy,
    CrossEntropyProb,
    L1Loss,
    MseLoss,
    NllLoss,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from .normalization import BatchNorm, batch_norm
from .padding import ConstantPad, pad
from .pooling import (
    AdaptiveAvgPool2d,
    AdaptiveAvgPool2dGrad,
    AvgPool2d,
    AvgPool2dGrad,
    MaxPool2d,
    MaxPool2dGather,
    MaxPool2dScatter,
    adaptive_avg_pool2d,
    avg_pool2d,
    max_pool2d,
)
from .shape import flatten

__all__ = [name for name in dir() if not name.startswith("_")]
