"""nn's differentiable ops, each with its entry function and argument checks in its own file.

``nn.functional`` re-exports the entries; layers call them.
"""
from .linear import Linear, LinearNoBias, linear
from .conv import Conv2d, Conv2dGradInput, Conv2dGradWeight, conv2d
from .pooling import (MaxPool2d, MaxPool2dScatter, MaxPool2dGather, AvgPool2d, AvgPool2dGrad, AdaptiveAvgPool2d,
                      AdaptiveAvgPool2dGrad, max_pool2d, avg_pool2d, adaptive_avg_pool2d)
from .normalization import BatchNorm, batch_norm
from .dropout import Dropout, dropout
from .padding import ConstantPad, pad
from .loss import (MseLoss, L1Loss, NllLoss, CrossEntropy, CrossEntropyProb, BinaryCrossEntropyWithLogits,
                   mse_loss, l1_loss, nll_loss, cross_entropy, binary_cross_entropy_with_logits)
from .shape import flatten

__all__ = [name for name in dir() if not name.startswith("_")]
