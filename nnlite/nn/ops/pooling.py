"""Max, average and adaptive-average pooling over NCHW arrays, and their entry functions.

Max pooling records the winning position of each window (``argmax``, a flat index into the
input plane). Its backward scatters the gradient to those positions (``MaxPool2dScatter``), and
the backward of that is a gather from the same positions (``MaxPool2dGather``), so max pooling
has gradients of every order. Average pooling is linear: its backward (``AvgPool2dGrad``) is its
transpose, whose backward is average pooling again.

The entry functions (``max_pool2d``, ``avg_pool2d``, ``adaptive_avg_pool2d``) check every
argument with PyTorch's messages; the ops and kernels below them trust what they are given.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.tensor import _make
from ._kernels import kernels
from ._messages import LayerInputError, dims, pair

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import TypeAlias

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor

    # kernel, stride, padding and dilation as (h, w) pairs
    _WindowArgs: TypeAlias = tuple[
        tuple[int, int], tuple[int, int], tuple[int, int], tuple[int, int]
    ]


class MaxPool2d(Op):
    """Max pooling; params ``kernel, stride, padding, dilation, ceil_mode`` (int pairs, bool)."""

    node_name = "MaxPool2DWithIndicesBackward0"

    def forward(self, x: Array) -> Array:
        y: Array
        y, self.argmax = kernels().max_pool2d_forward(
            x, self.kernel, self.stride, self.padding, self.dilation, self.ceil_mode
        )
        self.input_hw = x.shape[2:]
        return y

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(MaxPool2dScatter, grad, argmax=self.argmax, input_hw=self.input_hw)
        return gx


class MaxPool2dScatter(Op):
    """Zeros of the input's shape with each ``grad`` entry added at its window's ``argmax``."""

    node_name = "MaxPool2DWithIndicesBackwardBackward0"

    def forward(self, grad: Array) -> Array:
        out: Array = kernels().max_pool2d_backward(grad, self.argmax, self.input_hw)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(MaxPool2dGather, grad, argmax=self.argmax)
        return gx


class MaxPool2dGather(Op):
    """``x`` read at the ``argmax`` positions: max pooling with the windows' winners fixed."""

    node_name = "MaxPool2DWithIndicesBackward0"

    def forward(self, x: Array) -> Array:
        n, c, h, w = x.shape
        self.input_hw = (h, w)
        argmax = self.argmax
        flat = np.take_along_axis(x.reshape(n, c, h * w), argmax.reshape(n, c, -1), axis=2)
        out: Array = flat.reshape(argmax.shape)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(MaxPool2dScatter, grad, argmax=self.argmax, input_hw=self.input_hw)
        return gx


class AvgPool2d(Op):
    """Average pooling; params ``kernel, stride, padding, ceil_mode, count_include_pad, divisor_override``."""

    node_name = "AvgPool2DBackward0"

    def forward(self, x: Array) -> Array:
        self.input_hw = x.shape[2:]
        out: Array = kernels().avg_pool2d_forward(
            x,
            self.kernel,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(
            AvgPool2dGrad,
            grad,
            input_hw=self.input_hw,
            kernel=self.kernel,
            stride=self.stride,
            padding=self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
        )
        return gx


class AvgPool2dGrad(Op):
    """The transpose of average pooling: each output gradient spread over its window."""

    node_name = "AvgPool2DBackwardBackward0"

    def forward(self, grad: Array) -> Array:
        out: Array = kernels().avg_pool2d_backward(
            grad,
            self.input_hw,
            self.kernel,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(
            AvgPool2d,
            grad,
            kernel=self.kernel,
            stride=self.stride,
            padding=self.padding,
            ceil_mode=self.ceil_mode,
            count_include_pad=self.count_include_pad,
            divisor_override=self.divisor_override,
        )
        return gx


def adaptive_windows(size: int, out: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive pooling windows along one axis: [floor(i*size/out), ceil((i+1)*size/out))."""
    return [((i * size) // out, -(-((i + 1) * size) // out)) for i in range(out)]


class AdaptiveAvgPool2d(Op):
    """Average over PyTorch's adaptive windows (used when they are not a plain strided grid)."""

    node_name = "AdaptiveAvgPool2DBackward0"

    def forward(self, x: Array) -> Array:
        oh, ow = self.output_hw
        h, w = x.shape[-2:]
        self.input_hw = (h, w)
        out = np.empty(x.shape[:-2] + (oh, ow), dtype=x.dtype)
        for i, (h0, h1) in enumerate(adaptive_windows(h, oh)):
            for j, (w0, w1) in enumerate(adaptive_windows(w, ow)):
                out[..., i, j] = x[..., h0:h1, w0:w1].mean(axis=(-2, -1))
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(AdaptiveAvgPool2dGrad, grad, input_hw=self.input_hw)
        return gx


class AdaptiveAvgPool2dGrad(Op):
    node_name = "AdaptiveAvgPool2DBackwardBackward0"

    def forward(self, grad: Array) -> Array:
        h, w = self.input_hw
        oh, ow = grad.shape[-2:]
        self.output_hw = (oh, ow)
        out = np.zeros(grad.shape[:-2] + (h, w), dtype=grad.dtype)
        for i, (h0, h1) in enumerate(adaptive_windows(h, oh)):
            for j, (w0, w1) in enumerate(adaptive_windows(w, ow)):
                out[..., h0:h1, w0:w1] += (grad[..., i, j] / ((h1 - h0) * (w1 - w0)))[
                    ..., None, None
                ]
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(AdaptiveAvgPool2d, grad, output_hw=self.output_hw)
        return gx


# ---------------------------------------------------------------------------------------- entries
def _pool_input(input: Tensor) -> bool:
    """Whether ``input`` is unbatched (CHW); raises for anything but non-empty CHW, or NCHW
    with non-empty C, H and W (a batch of 0 is allowed, as PyTorch)."""
    shape = input._data.shape
    if len(shape) not in (3, 4):
        raise LayerInputError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if 0 in shape[-3:]:
        raise LayerInputError(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but "
            f"got:{list(shape)}"
        )
    return len(shape) == 3


# Checked window arguments by their given values and types: a layer passes the same ones on
# every call, and checking them again cost a tenth of a small pooling layer's time.
_checked_args: dict[tuple[Any, ...], _WindowArgs] = {}
_MAX_CHECKED = 256


def pool_args(kernel_size: Any, stride: Any, padding: Any, dilation: Any, fn: str) -> _WindowArgs:
    """Window arguments as int pairs, checked as PyTorch checks them; ``stride`` None means the kernel."""
    # the types are part of the key: 2.0 == 2, but a float kernel size is an error
    key = (kernel_size, stride, padding, dilation, fn)
    key += (type(kernel_size), type(stride), type(padding), type(dilation))
    try:
        return _checked_args[key]
    except KeyError:
        pass
    except TypeError:  # a list among the arguments: not hashable, checked every time
        return _check_pool_args(kernel_size, stride, padding, dilation, fn)
    checked = _check_pool_args(kernel_size, stride, padding, dilation, fn)
    if len(_checked_args) >= _MAX_CHECKED:
        _checked_args.clear()
    _checked_args[key] = checked
    return checked


def _check_pool_args(
    kernel_size: Any, stride: Any, padding: Any, dilation: Any, fn: str
) -> _WindowArgs:
    kernel = pair(kernel_size, "kernel_size", fn)
    stride = (
        kernel
        if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0)
        else pair(stride, "stride", fn)
    )
    padding = pair(padding, "padding", fn)
    dilation = pair(dilation, "dilation", fn)
    if min(kernel) <= 0:
        raise RuntimeError(
            f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}"
        )
    if min(stride) <= 0:
        raise RuntimeError(
            "stride should not be zero"
            if min(stride) == 0
            else f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}"
        )
    if min(dilation) <= 0:
        raise RuntimeError(
            f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: "
            f"{dilation[1]}"
        )
    for p, k, d in zip(padding, kernel, dilation):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation={d}"
            )
    # PyTorch's second rule, on the kernel itself whatever the dilation
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        raise RuntimeError(
            f"pad should be smaller than or equal to half of kernel size, but got padW = "
            f"{padding[1]}, padH = {padding[0]}, kW = {kernel[1]}, kH = {kernel[0]}"
        )
    return kernel, stride, padding, dilation


def _pool_out(size: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool_output(
    x: Array,
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    ceil_mode: bool,
) -> None:
    c, h, w = x.shape[-3:]
    oh = _pool_out(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    ow = _pool_out(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise LayerInputError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output "
            "size is too small"
        )


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """2-D max pooling of NCHW (or unbatched CHW) ``input``; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size, stride, padding, dilation: ints or (h, w) pairs.
        ceil_mode: round the output size up instead of down.
        return_indices: also return the flat position (in each H*W plane) of every maximum.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.max_pool2d(nl.arange(16.).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    unbatched = _pool_input(input)
    kernel, stride, padding, dilation = pool_args(
        kernel_size, stride, padding, dilation, "max_pool2d"
    )
    _check_pool_output(input._data, kernel, stride, padding, dilation, ceil_mode)
    x = input.unsqueeze(0) if unbatched else input
    if return_indices:
        # max pooling is a gather at the windows' winners: find them, then gather (differentiably)
        _, argmax = kernels().max_pool2d_forward(
            x._data, kernel, stride, padding, dilation, bool(ceil_mode)
        )
        out = MaxPool2dGather.apply(x, argmax=argmax)
        indices = _make(argmax)
        return (out.squeeze(0), indices.squeeze(0)) if unbatched else (out, indices)
    out = MaxPool2d.apply(
        x,
        kernel=kernel,
        stride=stride,
        padding=padding,
        dilation=dilation,
        ceil_mode=bool(ceil_mode),
    )
    return out.squeeze(0) if unbatched else out


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """2-D average pooling of NCHW (or unbatched CHW) ``input``; ``stride`` defaults to ``kernel_size``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or pair): the window.
        stride (int or pair, optional): the step. Default: ``kernel_size``.
        padding (int or pair): zeros added on each side. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.
        divisor_override (int, optional): divide by this instead of the window size.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.avg_pool2d(nl.ones(1, 1, 4, 4), 2).shape
        nnlite.Size([1, 1, 2, 2])
    """
    unbatched = _pool_input(input)
    kernel, stride, padding, _ = pool_args(kernel_size, stride, padding, 1, "avg_pool2d")
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_output(input._data, kernel, stride, padding, (1, 1), ceil_mode)
    x = input.unsqueeze(0) if unbatched else input
    out: Tensor = AvgPool2d.apply(
        x,
        kernel=kernel,
        stride=stride,
        padding=padding,
        ceil_mode=bool(ceil_mode),
        count_include_pad=bool(count_include_pad),
        divisor_override=divisor_override,
    )
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling to a fixed ``output_size`` (int, pair, with ``None`` keeping that dimension).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or pair): the output's ``(H, W)``; ``None`` keeps that size.

    Returns:
        Tensor: ``(N, C, *output_size)``.

    Examples:
        >>> F.adaptive_avg_pool2d(nl.ones(1, 3, 7, 7), 1).shape
        nnlite.Size([1, 3, 1, 1])
    """
    nd = input._data.ndim
    if nd not in (3, 4):
        raise LayerInputError(
            f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {dims(input._data.shape)}"
        )
    h, w = input._data.shape[-2:]
    if isinstance(output_size, numbers.Integral):
        output_size = (output_size, output_size)
    oh, ow = output_size
    oh = h if oh is None else int(oh)
    ow = w if ow is None else int(ow)
    if (oh, ow) == (1, 1):
        return input.mean((-2, -1), keepdim=True)
    if h % oh == 0 and w % ow == 0:  # regular windows: plain average pooling
        kernel = (h // oh, w // ow)
        x = input.unsqueeze(0) if nd == 3 else input
        out: Tensor = AvgPool2d.apply(
            x,
            kernel=kernel,
            stride=kernel,
            padding=(0, 0),
            ceil_mode=False,
            count_include_pad=True,
            divisor_override=None,
        )
        return out.squeeze(0) if nd == 3 else out
    result: Tensor = AdaptiveAvgPool2d.apply(input, output_hw=(oh, ow))
    return result
