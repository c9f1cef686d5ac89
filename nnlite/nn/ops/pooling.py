"""Max, average and adaptive-average pooling over NCHW arrays.

Max pooling records the winning position of each window (``argmax``, a flat index into the
input plane). Its backward scatters the gradient to those positions (``MaxPool2dScatter``), and
the backward of that is a gather from the same positions (``MaxPool2dGather``), so max pooling
has gradients of every order. Average pooling is linear: its backward (``AvgPool2dGrad``) is its
transpose, whose backward is average pooling again.
"""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make
from ._kernels import kernels

_grad_state = grad_mode._state


class MaxPool2d(Function):
    """Max pooling; params ``kernel, stride, padding, dilation, ceil_mode`` (int pairs, bool)."""

    _array_forward = True
    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, dilation, ceil_mode):
        y, argmax = kernels().max_pool2d_forward(x, kernel, stride, padding, dilation, ceil_mode)
        ctx.argmax = argmax
        ctx.input_hw = x.shape[2:]
        return y

    @staticmethod
    def backward(ctx, grad):
        if not _grad_state[0]:  # nothing records: the scatter kernel straight away
            return _make(kernels().max_pool2d_backward(grad._data, ctx.argmax, ctx.input_hw))
        return MaxPool2dScatter.apply(grad, argmax=ctx.argmax, input_hw=ctx.input_hw)


class MaxPool2dScatter(Function):
    """Zeros of the input's shape with each ``grad`` entry added at its window's ``argmax``."""

    _array_forward = True
    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, argmax, input_hw):
        return kernels().max_pool2d_backward(grad, argmax, input_hw)

    @staticmethod
    def backward(ctx, grad):
        return MaxPool2dGather.apply(grad, argmax=ctx._params["argmax"])


class MaxPool2dGather(Function):
    """``x`` read at the ``argmax`` positions: max pooling with the windows' winners fixed."""

    _array_forward = True
    node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, x, argmax):
        n, c, h, w = x.shape
        ctx.input_hw = (h, w)
        flat = np.take_along_axis(x.reshape(n, c, h * w), argmax.reshape(n, c, -1), axis=2)
        return flat.reshape(argmax.shape)

    @staticmethod
    def backward(ctx, grad):
        return MaxPool2dScatter.apply(grad, argmax=ctx._params["argmax"], input_hw=ctx.input_hw)


class AvgPool2d(Function):
    """Average pooling; params ``kernel, stride, padding, ceil_mode, count_include_pad, divisor_override``."""

    _array_forward = True
    node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        ctx.input_hw = x.shape[2:]
        return kernels().avg_pool2d_forward(x, kernel, stride, padding, ceil_mode, count_include_pad,
                                            divisor_override)

    @staticmethod
    def backward(ctx, grad):
        return AvgPool2dGrad.apply(grad, input_hw=ctx.input_hw, **ctx._params)


class AvgPool2dGrad(Function):
    """The transpose of average pooling: each output gradient spread over its window."""

    _array_forward = True
    node_name = "AvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, input_hw, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return kernels().avg_pool2d_backward(grad, input_hw, kernel, stride, padding, ceil_mode,
                                             count_include_pad, divisor_override)

    @staticmethod
    def backward(ctx, grad):
        p = dict(ctx._params)
        del p["input_hw"]
        return AvgPool2d.apply(grad, **p)


def adaptive_windows(size, out):
    """PyTorch's adaptive pooling windows along one axis: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


class AdaptiveAvgPool2d(Function):
    """Average over PyTorch's adaptive windows (used when they are not a plain strided grid)."""

    _array_forward = True
    node_name = "AdaptiveAvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, output_hw):
        oh, ow = output_hw
        h, w = x.shape[-2:]
        ctx.input_hw = (h, w)
        out = np.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
        for i, (h0, h1) in enumerate(adaptive_windows(h, oh)):
            for j, (w0, w1) in enumerate(adaptive_windows(w, ow)):
                out[..., i, j] = x[..., h0:h1, w0:w1].mean(axis=(-2, -1))
        return out

    @staticmethod
    def backward(ctx, grad):
        return AdaptiveAvgPool2dGrad.apply(grad, input_hw=ctx.input_hw)


class AdaptiveAvgPool2dGrad(Function):
    _array_forward = True
    node_name = "AdaptiveAvgPool2DBackwardBackward0"

    @staticmethod
    def forward(ctx, grad, input_hw):
        h, w = input_hw
        oh, ow = grad.shape[-2:]
        ctx.output_hw = (oh, ow)
        out = np.zeros(grad.shape[:-2] + (h, w), dtype=grad.dtype)
        for i, (h0, h1) in enumerate(adaptive_windows(h, oh)):
            for j, (w0, w1) in enumerate(adaptive_windows(w, ow)):
                out[..., h0:h1, w0:w1] += (grad[..., i, j] / ((h1 - h0) * (w1 - w0)))[..., None, None]
        return out

    @staticmethod
    def backward(ctx, grad):
        return AdaptiveAvgPool2d.apply(grad, output_hw=ctx.output_hw)
