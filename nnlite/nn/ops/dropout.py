"""Dropout: multiplication by a fixed random mask (zeros, and 1/(1-p) elsewhere)."""
from ...autograd.function import Function
from ...autograd.tensor import _make


class Dropout(Function):
    _array_forward = True
    node_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        return x * mask

    @staticmethod
    def backward(ctx, grad):
        return grad * _make(ctx._params["mask"])
