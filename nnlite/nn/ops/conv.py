"""2-D convolution as three ops that differentiate into one another (as Chainer does), and ``conv2d``.

``Conv2d(x, w, b)`` is the convolution, ``Conv2dGradInput(gy, w)`` its input gradient (a
transposed convolution) and ``Conv2dGradWeight(gy, x)`` its weight gradient. The backward of each
is written with the other two, so gradients of any order exist; a first-order backward runs the
other two ops' kernels directly on arrays.

All three take the same parameters: ``stride``, ``padding``, ``dilation`` (int pairs) and
``groups``; the two gradient ops also need the shape they produce (``input_hw`` / ``kernel_hw``).
The entry ``conv2d`` checks every argument with PyTorch's messages; the ops trust it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ...autograd.op import Op
from ...autograd.ops import vjp
from ._kernels import kernels
from ._messages import LayerInputError, dims, pair, type_name
from .padding import pad

if TYPE_CHECKING:
    from ..._typing import Array, Gradient, _size_any
    from ...autograd.tensor import Tensor


class _ConvOp(Op):
    def conv_params(self) -> dict[str, Any]:
        return {
            "stride": self.stride,
            "padding": self.padding,
            "dilation": self.dilation,
            "groups": self.groups,
        }


class Conv2d(_ConvOp):
    node_name = "ConvolutionBackward0"
    saved_inputs = (0, 1)

    def forward(self, x: Array, w: Array, b: Array | None) -> Array:
        out: Array = kernels().conv2d_forward(
            x, w, b, self.stride, self.padding, self.dilation, self.groups
        )
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, w = self.inputs()
        p = self.conv_params()
        gx = vjp.call(Conv2dGradInput, grad, w, input_hw=x.shape[2:], **p) if needs[0] else None
        gw = vjp.call(Conv2dGradWeight, grad, x, kernel_hw=w.shape[2:], **p) if needs[1] else None
        gb = vjp.channel_sum(grad) if needs[2] else None
        return gx, gw, gb


class Conv2dGradInput(_ConvOp):
    """The gradient of a convolution with respect to its input: ``conv_transpose2d(gy, w)``."""

    node_name = "ConvolutionBackwardBackward0"
    saved_inputs = (0, 1)

    def forward(self, gy: Array, w: Array) -> Array:
        out: Array = kernels().conv2d_backward_input(
            gy, w, tuple(self.input_hw), self.stride, self.padding, self.dilation, self.groups
        )
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        gy, w = self.inputs()
        p = self.conv_params()
        g_gy = vjp.call(Conv2d, grad, w, None, **p) if needs[0] else None
        g_w = vjp.call(Conv2dGradWeight, gy, grad, kernel_hw=w.shape[2:], **p) if needs[1] else None
        return g_gy, g_w


class Conv2dGradWeight(_ConvOp):
    """The gradient of a convolution with respect to its weight."""

    node_name = "ConvolutionBackwardBackward1"
    saved_inputs = (0, 1)

    def forward(self, gy: Array, x: Array) -> Array:
        out: Array = kernels().conv2d_backward_weight(
            gy, x, tuple(self.kernel_hw), self.stride, self.padding, self.dilation, self.groups
        )
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        gy, x = self.inputs()
        p = self.conv_params()
        g_gy = vjp.call(Conv2d, x, grad, None, **p) if needs[0] else None
        g_x = vjp.call(Conv2dGradInput, gy, grad, input_hw=x.shape[2:], **p) if needs[1] else None
        return g_gy, g_x


# ---------------------------------------------------------------------------------------- entry
def _same_padding(kernel_hw: Sequence[int], dilation: Sequence[int]) -> list[tuple[int, int]]:
    """Left/right padding per axis that keeps the size at stride 1 (extra on the right, as PyTorch)."""
    pads = []
    for k, d in zip(kernel_hw, dilation):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return pads


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: _size_any = 1,
    padding: _size_any | str = 0,
    dilation: _size_any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D convolution (cross-correlation) of NCHW ``input`` (or unbatched CHW) with ``weight``.

    Args:
        input: (N, C_in, H, W) or (C_in, H, W).
        weight: (C_out, C_in / groups, kh, kw).
        bias: (C_out) or None.
        stride, dilation: ints or (h, w) pairs.
        padding: an int, a pair, ``"valid"`` or ``"same"`` (zeros only).
        groups: split the channels into this many independent convolutions.

    Returns:
        Tensor: ``(N, C_out, H_out, W_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv2d(nl.ones(1, 1, 4, 4), nl.ones(1, 1, 3, 3)).shape
        nnlite.Size([1, 1, 2, 2])
    """
    x = input._data
    w = weight._data
    if w.ndim != 4:
        raise LayerInputError(
            "weight should have at least three dimensions"
            if w.ndim < 3
            else f"Expected 4-dimensional weight for 4-dimensional input, but got {w.ndim}-dimensional "
            f"weight of size {dims(w.shape)} instead"
        )
    if x.ndim == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(
            0
        )
    if x.ndim != 4:
        raise LayerInputError(
            "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
            f"{dims(x.shape)}"
        )
    stride = pair(stride, "stride")
    dilation = pair(dilation, "dilation")
    groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_padding(w.shape[2:], dilation)
            if any(lo != hi for lo, hi in pads):
                (th, bh), (lw, rw) = pads
                input = pad(input, (0, rw - lw, 0, bh - th))
                x = input._data
            padding = (pads[0][0], pads[1][0])
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = pair(padding, "padding")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_conv_shapes(x, w, bias, padding, dilation, groups)
    out: Tensor = Conv2d.apply(
        input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups
    )
    return out


def _check_conv_shapes(
    x: Array,
    w: Array,
    bias: Tensor | None,
    padding: tuple[int, int],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    if w.shape[0] % groups:
        raise LayerInputError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
            f"but got weight of size [{dims(w.shape)}] instead"
        )  # PyTorch's double brackets
    if x.shape[1] != w.shape[1] * groups:
        raise LayerInputError(
            f"Given groups={groups}, weight of size {dims(w.shape)}, expected input"
            f"{dims(x.shape)} to have {w.shape[1] * groups} channels, but got {x.shape[1]} "
            "channels instead"
        )
    if bias is not None and bias._data.shape != (w.shape[0],):
        raise LayerInputError(
            f"Given weight of size {dims(w.shape)}, expected bias to be 1-dimensional with "
            f"{w.shape[0]} elements, but got bias of size {dims(bias._data.shape)} instead"
        )
    if x.dtype != w.dtype:
        raise LayerInputError(f"expected scalar type {type_name(x)} but found {type_name(w)}")
    if bias is not None and bias._data.dtype != x.dtype:
        raise LayerInputError(
            f"Input type ({type_name(x).lower()}) and bias type "
            f"({type_name(bias._data).lower()}) should be the same"
        )
    ph, pw = x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1]
    kh, kw = dilation[0] * (w.shape[2] - 1) + 1, dilation[1] * (w.shape[3] - 1) + 1
    if ph < kh or pw < kw:
        raise LayerInputError(
            f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({kh} x "
            f"{kw}). Kernel size can't be greater than actual input size"
        )
