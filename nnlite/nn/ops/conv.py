"""2-D convolution as three ops that differentiate into one another (as Chainer does).

``Conv2d(x, w, b)`` is the convolution, ``Conv2dGradInput(gy, w)`` its input gradient (a
transposed convolution) and ``Conv2dGradWeight(gy, x)`` its weight gradient. The backward of each
is written with the other two, so gradients of any order exist.

All three take the same keyword parameters: ``stride``, ``padding``, ``dilation`` (int pairs) and
``groups``; the two gradient ops also need the shape they produce (``input_hw`` / ``kernel_hw``).
When the backward pass is not recorded, ``Conv2d``'s backward calls the kernels directly instead
of going through the gradient ops (same computation, no intermediate nodes).
"""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make
from ._kernels import kernels

_grad_state = grad_mode._state


class Conv2d(Function):
    _array_forward = True
    node_name = "ConvolutionBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, w, b, stride, padding, dilation, groups):
        return kernels().conv2d_forward(x, w, b, stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        p = ctx._params
        edges = ctx.next_functions
        gx = gw = gb = None
        if not _grad_state[0]:
            k = kernels()
            g, xa, wa = grad._data, x._data, w._data
            args = (p["stride"], p["padding"], p["dilation"], p["groups"])
            if edges[0][0] is not None:
                gx = _make(k.conv2d_backward_input(g, wa, xa.shape[2:], *args))
            if edges[1][0] is not None:
                gw = _make(k.conv2d_backward_weight(g, xa, wa.shape[2:], *args))
            if edges[2][0] is not None:
                gb = _make(np.einsum("nchw->c", g))  # twice as fast as g.sum((0, 2, 3)) here
            return gx, gw, gb
        if edges[0][0] is not None:
            gx = Conv2dGradInput.apply(grad, w, input_hw=x.shape[2:], **p)
        if edges[1][0] is not None:
            gw = Conv2dGradWeight.apply(grad, x, kernel_hw=w.shape[2:], **p)
        if edges[2][0] is not None:
            gb = grad.sum((0, 2, 3))
        return gx, gw, gb


class Conv2dGradInput(Function):
    """The gradient of a convolution with respect to its input: ``conv_transpose2d(gy, w)``."""

    _array_forward = True
    node_name = "ConvolutionBackwardBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, gy, w, input_hw, stride, padding, dilation, groups):
        return kernels().conv2d_backward_input(gy, w, tuple(input_hw), stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad):
        gy, w = ctx.saved_tensors
        p = dict(ctx._params)
        del p["input_hw"]
        edges = ctx.next_functions
        g_gy = g_w = None
        if edges[0][0] is not None:
            g_gy = Conv2d.apply(grad, w, None, **p)
        if edges[1][0] is not None:
            g_w = Conv2dGradWeight.apply(gy, grad, kernel_hw=w.shape[2:], **p)
        return g_gy, g_w


class Conv2dGradWeight(Function):
    """The gradient of a convolution with respect to its weight."""

    _array_forward = True
    node_name = "ConvolutionBackwardBackward1"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, gy, x, kernel_hw, stride, padding, dilation, groups):
        return kernels().conv2d_backward_weight(gy, x, tuple(kernel_hw), stride, padding, dilation, groups)

    @staticmethod
    def backward(ctx, grad):
        gy, x = ctx.saved_tensors
        p = dict(ctx._params)
        del p["kernel_hw"]
        edges = ctx.next_functions
        g_gy = g_x = None
        if edges[0][0] is not None:
            g_gy = Conv2d.apply(x, grad, None, **p)
        if edges[1][0] is not None:
            g_x = Conv2dGradInput.apply(gy, grad, input_hw=x.shape[2:], **p)
        return g_gy, g_x
