"""``nnlite.nn.functional`` (``import nnlite.nn.functional as F``): layers as functions.

Each function is defined next to its op (``nnlite/nn/ops/`` and ``nnlite/autograd/ops/``), with
its argument checks; this module only gathers them under PyTorch's names.
"""
from ..autograd.ops.activation import leaky_relu, leaky_relu_, log_softmax, relu, relu_, sigmoid, softmax, tanh
from .ops import (adaptive_avg_pool2d, avg_pool2d, batch_norm, binary_cross_entropy_with_logits, conv2d,
                  cross_entropy, dropout, flatten, l1_loss, linear, max_pool2d, mse_loss, nll_loss, pad)
from .ops._messages import LayerInputError

__all__ = ["linear", "relu", "relu_", "leaky_relu", "leaky_relu_", "sigmoid", "tanh", "softmax", "log_softmax",
           "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "dropout", "mse_loss",
           "l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy_with_logits", "flatten", "pad"]
