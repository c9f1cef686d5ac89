"""Layers and models' building blocks."""
from .module import Module
from .container import Sequential, ModuleList, ModuleDict
from .linear import Linear, Identity
from .conv import Conv2d
from .pooling import MaxPool2d, AvgPool2d, AdaptiveAvgPool2d
from .batchnorm import BatchNorm1d, BatchNorm2d
from .dropout import Dropout
from .activation import ReLU, ReLU6, Sigmoid, Tanh, Softmax, LogSoftmax
from .flatten import Flatten
from .loss import MSELoss, L1Loss, NLLLoss, CrossEntropyLoss, BCEWithLogitsLoss

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "Linear", "Identity", "Conv2d", "MaxPool2d",
           "AvgPool2d", "AdaptiveAvgPool2d", "BatchNorm1d", "BatchNorm2d", "Dropout", "ReLU", "ReLU6", "Sigmoid", "Tanh",
           "Softmax", "LogSoftmax", "Flatten", "MSELoss", "L1Loss", "NLLLoss", "CrossEntropyLoss",
           "BCEWithLogitsLoss"]
