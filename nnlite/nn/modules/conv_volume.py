"""``Conv3d``, ``ConvTranspose1d`` and ``ConvTranspose3d``: the convolution layers of
``conv.py`` for one and three spatial dimensions (the transposed ones are ``ConvTranspose2d``'s
code with ``_dims`` 1 and 3)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...device import check_device
from .. import functional as F
from ..parameter import Parameter
from .conv import _PADDING_MODES, Conv2d, ConvTranspose2d, check_groups, ntuple
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = ["Conv3d", "ConvTranspose1d", "ConvTranspose3d"]


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
        check_groups(in_channels, out_channels, groups)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'replicate', 'circular', 'reflect'}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = ntuple(kernel_size, 3), ntuple(stride, 3)
        self.dilation = ntuple(dilation, 3)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and self.stride != (1, 1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = ntuple(padding, 3)
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


class ConvTranspose1d(ConvTranspose2d):
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


class ConvTranspose3d(ConvTranspose2d):
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
