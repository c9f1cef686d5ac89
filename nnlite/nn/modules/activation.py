"""Activation layers: ``ReLU``, ``ReLU6``, ``Sigmoid``, ``Tanh``, ``Softmax``, ``LogSoftmax``."""
from ...autograd.ops import Relu as _Relu, Sigmoid as _Sigmoid, Tanh as _Tanh
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "ReLU6", "Sigmoid", "Tanh", "Softmax", "LogSoftmax"]


class ReLU(Module):
    """``max(x, 0)``; with ``inplace=True`` the input is overwritten."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        if self.inplace:
            return input.relu_()
        return _Relu.apply(input)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class ReLU6(Module):
    """``min(max(x, 0), 6)``; with ``inplace=True`` the input is overwritten.

    Example:
        >>> nn.ReLU6()(nl.tensor([-1., 3., 8.]))
        tensor([0., 3., 6.])
    """

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.relu6(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input):
        return _Sigmoid.apply(input)


class Tanh(Module):
    def forward(self, input):
        return _Tanh.apply(input)


class Softmax(Module):
    """Softmax along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim``."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self):
        return f"dim={self.dim}"
