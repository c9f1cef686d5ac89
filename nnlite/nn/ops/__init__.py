"""nn's differentiable ops: one ``Function`` per op, forward on arrays, backward with Tensor ops.

``nn.functional`` and the layers are thin calls into these classes.
"""
from .linear import Linear, LinearNoBias
from .activation import Softmax, LogSoftmax
from .conv import Conv2d, Conv2dGradInput, Conv2dGradWeight
from .pooling import (MaxPool2d, MaxPool2dScatter, MaxPool2dGather, AvgPool2d, AvgPool2dGrad, AdaptiveAvgPool2d,
                      AdaptiveAvgPool2dGrad)
from .normalization import BatchNorm
from .dropout import Dropout
from .padding import ConstantPad
from .loss import MseLoss, L1Loss, NllLoss, CrossEntropy, CrossEntropyProb, BinaryCrossEntropyWithLogits

__all__ = [name for name in dir() if name[0].isupper()]
