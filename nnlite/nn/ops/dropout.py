"""Dropout: multiplication by a fixed random mask (zeros, and 1/(1-p) elsewhere)."""
from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make

_grad_state = grad_mode._state


class Dropout(Function):
    _array_forward = True
    node_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        return x * mask

    @staticmethod
    def backward(ctx, grad):
        if not _grad_state[0]:
            return _make(grad._data * ctx._params["mask"])
        return grad * _make(ctx._params["mask"])
