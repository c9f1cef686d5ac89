"""``conv3d``, ``conv_transpose3d``, ``conv_transpose1d`` and ``conv_tbc``, composed from the 2-D
convolutions.

A 3-D convolution is a sum over the kernel's depth taps of 2-D convolutions, each applied to every
output depth's matching input slice (the slices go into the batch, so each tap is one 2-D call).
The transposed 3-D convolution runs each tap's 2-D transposed convolution over every input slice
and adds the results at their output depths. 1-D transposed convolution is the 2-D one over a
height of one. Gradients of every order come from the 2-D ops.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from ._messages import LayerInputError, dims
from .conv import conv2d
from .conv_transpose import conv_transpose2d

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...autograd.tensor import Tensor


def _triple(value: Any, name: str) -> tuple[int, int, int]:
    if isinstance(value, numbers.Integral):
        return (int(value),) * 3
    value = tuple(int(v) for v in value)
    if len(value) == 1:
        return (value[0],) * 3
    if len(value) != 3:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 3 values to match the "
            f"convolution dimensions, but got {name}={list(value)}"
        )
    return (value[0], value[1], value[2])


def _zeros_along(t: Tensor, dim: int, count: int) -> Tensor:
    from ...autograd.creation import zeros

    shape = list(t.shape)
    shape[dim] = count
    return zeros(*shape, dtype=t.dtype)


def _pad_dim(t: Tensor, dim: int, before: int, after: int) -> Tensor:
    """``t`` with ``before`` / ``after`` zeros along ``dim``."""
    from ...autograd.creation import cat

    parts = [_zeros_along(t, dim, before)] if before else []
    parts.append(t)
    if after:
        parts.append(_zeros_along(t, dim, after))
    return cat(parts, dim) if len(parts) > 1 else t


def _check(input: Tensor, weight: Tensor, name: str) -> None:
    if input.ndim not in (4, 5):
        raise LayerInputError(
            f"Expected 4D (unbatched) or 5D (batched) input to {name}, but got input of size: "
            f"{dims(input.shape)}"
        )
    if weight.ndim != 5:
        raise LayerInputError(
            f"Expected 5-dimensional weight for 5-dimensional input, but got {weight.ndim}-"
            f"dimensional weight of size {dims(weight.shape)} instead"
        )


def _same_padding(
    kernel: Sequence[int], dilation: Sequence[int], stride: Sequence[int]
) -> list[tuple[int, int]]:
    if any(s != 1 for s in stride):
        raise ValueError("padding='same' is not supported for strided convolutions")
    return [(d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2) for k, d in zip(kernel, dilation)]


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D convolution of ``(N, C_in, D, H, W)`` with ``(C_out, C_in / groups, kd, kh, kw)`` weight.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_out, C_in / groups, kd, kh, kw)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or triple): the step between windows. Default: 1.
        padding (int, triple or str): zeros on each side, ``"valid"`` or ``"same"``. Default: 0.
        dilation (int or triple): the spacing of kernel taps. Default: 1.
        groups (int): split the channels into this many independent convolutions. Default: 1.

    Returns:
        Tensor: ``(N, C_out, D_out, H_out, W_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv3d(nl.ones(1, 2, 4, 4, 4), nl.ones(3, 2, 3, 3, 3)).shape
        nnlite.Size([1, 3, 2, 2, 2])
    """
    _check(input, weight, "conv3d")
    if input.ndim == 4:
        return conv3d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(
            0
        )
    stride, dilation = _triple(stride, "stride"), _triple(dilation, "dilation")
    kernel = tuple(weight.shape[2:])
    x = input
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise ValueError(
                f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}"
            )
        if padding == "same":
            for dim, (before, after) in enumerate(_same_padding(kernel, dilation, stride)):
                x = _pad_dim(x, 2 + dim, before, after)
        padding = (0, 0, 0)
    padding = _triple(padding, "padding")
    x = _pad_dim(x, 2, padding[0], padding[0])
    n, c, depth, h, w = x.shape
    out_depth = (depth - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    if out_depth < 1:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({depth} x {h} x {w}). Kernel size: "
            f"({kernel[0]} x {kernel[1]} x {kernel[2]}). Kernel size can't be greater than actual "
            "input size"
        )
    total = None
    for tap in range(kernel[0]):
        start = tap * dilation[0]
        slab = x[:, :, start : start + stride[0] * (out_depth - 1) + 1 : stride[0]]
        slab = slab.transpose(1, 2).reshape(n * out_depth, c, h, w)
        part = conv2d(slab, weight[:, :, tap], None, stride[1:], padding[1:], dilation[1:], groups)
        total = part if total is None else total + part
    assert total is not None
    out = total.reshape(n, out_depth, *total.shape[1:]).transpose(1, 2)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1, 1)


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-D transposed convolution of ``(N, C_in, D, H, W)`` with ``(C_in, C_out / groups, kd, kh, kw)``.

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or ``(C_in, D, H, W)``.
        weight (Tensor): ``(C_in, C_out / groups, kd, kh, kw)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride, padding, output_padding, dilation (int or triple): as for ``conv_transpose2d``.
        groups (int): split the channels into this many independent convolutions. Default: 1.

    Returns:
        Tensor: ``(N, C_out, D_out, H_out, W_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv_transpose3d(nl.ones(1, 2, 2, 2, 2), nl.ones(2, 3, 3, 3, 3), stride=2).shape
        nnlite.Size([1, 3, 5, 5, 5])
    """
    _check(input, weight, "conv_transpose3d")
    if input.ndim == 4:
        return conv_transpose3d(
            input.unsqueeze(0), weight, bias, stride, padding, output_padding, groups, dilation
        ).squeeze(0)
    stride, padding = _triple(stride, "stride"), _triple(padding, "padding")
    output_padding, dilation = (
        _triple(output_padding, "output_padding"),
        _triple(dilation, "dilation"),
    )
    n, c, depth, h, w = input.shape
    kernel = weight.shape[2]
    slices = input.transpose(1, 2).reshape(n * depth, c, h, w)
    spread = (depth - 1) * stride[0] + 1  # input slices at every stride-th output depth
    full = spread + dilation[0] * (kernel - 1) + output_padding[0]
    total = None
    for tap in range(kernel):
        part = conv_transpose2d(
            slices,
            weight[:, :, tap],
            None,
            stride[1:],
            padding[1:],
            output_padding[1:],
            groups,
            dilation[1:],
        )
        part = part.reshape(n, depth, 1, *part.shape[1:])
        if stride[0] > 1:  # zeros between the slices
            part = _pad_dim(part, 2, 0, stride[0] - 1)
        part = part.reshape(n, depth * stride[0], *part.shape[3:])[:, :spread]
        start = tap * dilation[0]
        part = _pad_dim(part, 1, start, full - start - spread)
        total = part if total is None else total + part
    assert total is not None
    out_depth = full - 2 * padding[0]
    out = total[:, padding[0] : padding[0] + out_depth].transpose(1, 2)
    return out if bias is None else out + bias.reshape(1, -1, 1, 1, 1)


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-D transposed convolution of ``(N, C_in, L)`` with ``(C_in, C_out / groups, k)`` weight.

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_in, C_out / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride, padding, output_padding, dilation (int): as for ``conv_transpose2d``.
        groups (int): split the channels into this many independent convolutions. Default: 1.

    Returns:
        Tensor: ``(N, C_out, L_out)`` (no N for unbatched input).

    Examples:
        >>> F.conv_transpose1d(nl.ones(1, 2, 3), nl.ones(2, 4, 3), stride=2).shape
        nnlite.Size([1, 4, 7])
    """
    if input.ndim not in (2, 3):
        raise LayerInputError(
            f"Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of "
            f"size: {dims(input.shape)}"
        )
    if weight.ndim != 3:
        raise LayerInputError(
            f"Expected 3-dimensional weight for 3-dimensional input, but got {weight.ndim}-"
            f"dimensional weight of size {dims(weight.shape)} instead"
        )

    def single(v: Any) -> int:
        return int(v if isinstance(v, numbers.Integral) else v[0])

    out = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, single(stride)),
        (0, single(padding)),
        (0, single(output_padding)),
        groups,
        (1, single(dilation)),
    )
    return out.squeeze(-2)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of a (time, batch, channels) sequence (fairseq's layout).

    Args:
        input (Tensor): ``(T, B, C_in)``.
        weight (Tensor): ``(k, C_in, C_out)``.
        bias (Tensor): ``(C_out,)``.
        pad (int): time steps of zeros at both ends. Default: 0.

    Returns:
        Tensor: ``(T_out, B, C_out)``.

    Examples:
        >>> F.conv_tbc(nl.ones(5, 2, 3), nl.ones(3, 3, 4), nl.zeros(4), pad=1).shape
        nnlite.Size([5, 2, 4])
    """
    from .conv_transpose import conv1d

    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError(
            "Weight tensor must have 3 dims: kernel_width, in_channels, out_channels."
        )
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)
