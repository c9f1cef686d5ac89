"""Softmax and log-softmax along a dimension, with their analytic backward."""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make

_grad_state = grad_mode._state


class Softmax(Function):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim``; backward ``y * (g - sum(g * y))``."""

    _array_forward = True
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, x, dim):
        e = np.exp(x - np.max(x, axis=dim, keepdims=True))
        e /= np.sum(e, axis=dim, keepdims=True)
        return e

    @staticmethod
    def backward(ctx, grad):
        dim = ctx._params["dim"]
        if not _grad_state[0]:
            y, g = ctx._output_array(), grad._data
            return _make(y * (g - (g * y).sum(dim, keepdims=True)))
        y = ctx.saved_output()
        return y * (grad - (grad * y).sum(dim, keepdim=True))


class LogSoftmax(Function):
    """``x - logsumexp(x)`` along ``dim``; backward ``g - exp(y) * sum(g)``."""

    _array_forward = True
    saved_inputs = (0,)
    saves_output = True

    @staticmethod
    def forward(ctx, x, dim):
        return _log_softmax(x, dim)

    @staticmethod
    def backward(ctx, grad):
        dim = ctx._params["dim"]
        if not _grad_state[0]:
            y, g = ctx._output_array(), grad._data
            return _make(g - np.exp(y) * g.sum(dim, keepdims=True))
        y = ctx.saved_output()
        return grad - y.exp() * grad.sum(dim, keepdim=True)


def _log_softmax(x, dim):
    shifted = x - np.max(x, axis=dim, keepdims=True)
    shifted -= np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))
    return shifted
