"""``Conv3d``, ``ConvTranspose1d`` and ``ConvTranspose3d``: the convolution layers' code
(parameters, PyTorch's initialisation, ``repr``) for one and three spatial dimensions."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.tensor import check_device
from .. import functional as F
from ..parameter import Parameter
from .conv import _PADDING_MODES, Conv2d, ConvTranspose2d
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = ["Conv3d", "ConvTranspose1d", "ConvTranspose3d"]


def _ntuple(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    return tuple(int(v) for v in value)


def _check_groups(in_channels: int, out_channels: int, groups: int) -> None:
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")


class Conv3d(Conv2d):
    """3-D convolution of ``(N, C_in, D, H, W)``; weight ``(C_out, C_in / groups, kd, kh, kw)``,
    PyTorch's initialisation.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int or triple): the window.
        stride (int or triple): the step. Default: 1.
        padding (int, triple or str): added on each side, or ``"valid"``/``"same"``. Default: 0.
        dilation (int or triple): the spacing of kernel taps. Default: 1.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        padding_mode (str): ``"zeros"``, ``"reflect"``, ``"replicate"`` or ``"circular"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.Conv3d(2, 4, 3)
        Conv3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        Module.__init__(self)
        check_device(device)
        _check_groups(in_channels, out_channels, groups)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'replicate', 'circular', 'reflect'}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(kernel_size, 3), _ntuple(stride, 3)  # type: ignore[assignment]
        self.dilation = _ntuple(dilation, 3)  # type: ignore[assignment]
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and self.stride != (1, 1, 1):  # type: ignore[comparison-overlap]
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _ntuple(padding, 3)
        self.transposed, self.output_padding = False, (0, 0, 0)
        self.padding_mode = padding_mode
        dt = factory_dtype(dtype)
        self.weight = Parameter(
            np.empty((out_channels, in_channels // groups) + self.kernel_size, dtype=dt)
        )
        self.register_parameter(
            "bias", Parameter(np.empty((out_channels,), dtype=dt)) if bias else None
        )
        self.reset_parameters()

    def _mode_padding(self) -> Any:
        if self.padding == "valid":
            return (0,) * 6
        if self.padding == "same":
            amounts: list[int] = []
            for k, d in reversed(list(zip(self.kernel_size, self.dilation))):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
            return tuple(amounts)
        return tuple(p for p in reversed(self.padding) for _ in range(2))

    def forward(self, input: Tensor) -> Tensor:
        padding: Any = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._mode_padding(), mode=self.padding_mode)
            padding = 0
        return F.conv3d(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )


class _ConvTransposeNd(ConvTranspose2d):
    _dims: int
    _conv: Any  # the functional form, set by each subclass

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        Module.__init__(self)
        check_device(device)
        _check_groups(in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self._dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)  # type: ignore[assignment]
        self.padding, self.dilation = _ntuple(padding, n), _ntuple(dilation, n)  # type: ignore[assignment]
        self.output_padding = _ntuple(output_padding, n)
        self.transposed, self.padding_mode = True, padding_mode
        dt = factory_dtype(dtype)
        self.weight = Parameter(
            np.empty((in_channels, out_channels // groups) + self.kernel_size, dtype=dt)
        )
        self.register_parameter(
            "bias", Parameter(np.empty((out_channels,), dtype=dt)) if bias else None
        )
        self.reset_parameters()

    def _output_padding(self, input: Tensor, output_size: Sequence[int] | None) -> Any:
        if output_size is None:
            return self.output_padding
        n = self._dims
        wanted = tuple(output_size)[-n:]
        smallest = [
            (i - 1) * s - 2 * p + d * (k - 1) + 1
            for i, k, s, p, d in zip(
                input.shape[-n:], self.kernel_size, self.stride, self.padding, self.dilation
            )
        ]
        extra = tuple(w - m for w, m in zip(wanted, smallest))
        if any(e < 0 or e >= max(s, d) for e, s, d in zip(extra, self.stride, self.dilation)):
            raise ValueError(
                f"requested an output size of {list(wanted)}, but valid sizes range from "
                f"{smallest} to "
                f"{[m + max(s, d) - 1 for m, s, d in zip(smallest, self.stride, self.dilation)]} "
                f"(for an input of {list(input.shape[-n:])})"
            )
        return extra

    def forward(self, input: Tensor, output_size: Sequence[int] | None = None) -> Tensor:
        return type(self)._conv(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._output_padding(input, output_size),
            self.groups,
            self.dilation,
        )


class ConvTranspose1d(_ConvTransposeNd):
    """1-D transposed convolution of ``(N, C_in, L)``; weight ``(C_in, C_out / groups, k)``.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int): the window.
        stride (int): the step. Default: 1.
        padding (int): removed from both ends of the output. Default: 0.
        output_padding (int): added at the end of the output. Default: 0.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        dilation (int): the spacing of kernel taps. Default: 1.
        padding_mode (str): only ``"zeros"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.ConvTranspose1d(2, 4, 3, stride=2)
        ConvTranspose1d(2, 4, kernel_size=(3,), stride=(2,))
    """

    _dims, _conv = 1, staticmethod(F.conv_transpose1d)


class ConvTranspose3d(_ConvTransposeNd):
    """3-D transposed convolution of ``(N, C_in, D, H, W)``; weight ``(C_in, C_out / groups, kd, kh, kw)``.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int or triple): the window.
        stride (int or triple): the step. Default: 1.
        padding (int or triple): removed from both ends of each output dimension. Default: 0.
        output_padding (int or triple): added at the end of each output dimension. Default: 0.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        dilation (int or triple): the spacing of kernel taps. Default: 1.
        padding_mode (str): only ``"zeros"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.ConvTranspose3d(2, 4, 3)
        ConvTranspose3d(2, 4, kernel_size=(3, 3, 3), stride=(1, 1, 1))
    """

    _dims, _conv = 3, staticmethod(F.conv_transpose3d)
