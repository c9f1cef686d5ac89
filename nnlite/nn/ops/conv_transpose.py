"""``conv_transpose2d`` (a convolution's input gradient, run forward) and ``conv1d`` (a 2-D
convolution over a height of one)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from ._messages import LayerInputError, dims, pair
from .conv import Conv2dGradInput, conv2d

if TYPE_CHECKING:
    from ..._typing import _size_any
    from ...autograd.tensor import Tensor


def transposed_output_size(
    in_hw: Sequence[int],
    kernel_hw: Sequence[int],
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    output_padding: Sequence[int],
) -> tuple[int, ...]:
    return tuple(
        (i - 1) * s - 2 * p + d * (k - 1) + op + 1
        for i, k, s, p, d, op in zip(in_hw, kernel_hw, stride, padding, dilation, output_padding)
    )


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: _size_any = 1,
    padding: _size_any = 0,
    output_padding: _size_any = 0,
    groups: int = 1,
    dilation: _size_any = 1,
) -> Tensor:
    """2-D transposed convolution ("deconvolution") of NCHW ``input``.

    Args:
        input: (N, C_in, H, W) or (C_in, H, W).
        weight: (C_in, C_out / groups, kh, kw).
        output_padding: extra rows/columns on one side of the output (smaller than stride or dilation).

    Returns:
        Tensor: ``(N, C_out, H_out, W_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv_transpose2d(nl.ones(1, 2, 3, 3), nl.ones(2, 4, 3, 3), stride=2).shape
        nnlite.Size([1, 4, 7, 7])
    """
    if input.ndim == 3:
        return conv_transpose2d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    if input.ndim != 4:
        raise LayerInputError(
            f"Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of "
            f"size: {dims(input.shape)}"
        )
    stride, padding, dilation = (
        pair(stride, "stride"),
        pair(padding, "padding"),
        pair(dilation, "dilation"),
    )
    output_padding = pair(output_padding, "output_padding")
    w = weight._data
    if w.ndim != 4:
        raise LayerInputError(
            f"Expected 4-dimensional weight for 4-dimensional input, but got {w.ndim}-dimensional "
            f"weight of size {dims(w.shape)} instead"
        )
    if input.shape[1] != w.shape[0]:
        raise LayerInputError(
            f"Given transposed=1, weight of size {dims(w.shape)}, expected input"
            f"{dims(input.shape)} to have {w.shape[0]} channels, but got {input.shape[1]} "
            "channels instead"
        )
    if w.shape[0] % groups:
        raise LayerInputError(
            f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0"
        )
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= max(s, d):
            raise RuntimeError(
                "output padding must be smaller than either stride or dilation, but got "
                f"output_padding_height: {output_padding[0]} output_padding_width: "
                f"{output_padding[1]} stride_height: {stride[0]} stride_width: {stride[1]} "
                f"dilation_height: {dilation[0]} dilation_width: {dilation[1]}"
            )
    out_hw = transposed_output_size(
        input.shape[2:], w.shape[2:], stride, padding, dilation, output_padding
    )
    if min(out_hw) <= 0:
        raise RuntimeError(
            f"Given input size per channel: ({input.shape[2]} x {input.shape[3]}). Calculated output "
            f"size per channel: ({out_hw[0]} x {out_hw[1]}). Output size is too small"
        )
    out: Tensor = Conv2dGradInput.apply(
        input,
        weight,
        input_hw=out_hw,
        stride=stride,
        padding=padding,
        dilation=dilation,
        groups=groups,
    )
    return out if bias is None else out + bias.reshape(1, -1, 1, 1)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: _size_any = 1,
    padding: _size_any | str = 0,
    dilation: _size_any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D convolution of (N, C_in, L) (or (C_in, L)) input with (C_out, C_in / groups, k) weight.

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_out, C_in / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int): the step between windows. Default: 1.
        padding (int or str): zeros added at both ends, ``"valid"`` or ``"same"``. Default: 0.
        dilation (int): the spacing of kernel taps. Default: 1.
        groups (int): split the channels into this many independent convolutions. Default: 1.

    Returns:
        Tensor: ``(N, C_out, L_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv1d(nl.ones(1, 2, 5), nl.ones(4, 2, 3)).shape
        nnlite.Size([1, 4, 3])
    """
    if input.ndim not in (2, 3):
        raise LayerInputError(
            f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: "
            f"{dims(input.shape)}"
        )
    if weight.ndim != 3:
        raise LayerInputError(
            f"Expected 3-dimensional weight for 3-dimensional input, but got {weight.ndim}-"
            f"dimensional weight of size {dims(weight.shape)} instead"
        )

    def single(v: _size_any) -> int:
        return v[0] if isinstance(v, (tuple, list)) else cast(int, v)

    padding = padding if isinstance(padding, str) else (0, single(padding))
    out = conv2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride)),
        padding,
        (1, single(dilation)),
        groups,
    )
    return out.squeeze(-2)
