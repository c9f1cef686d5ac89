"""``Conv2d``, ``Conv1d`` and ``ConvTranspose2d``."""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ...device import check_device
from .. import functional as F
from .. import init
from ..ops._messages import pair
from ..parameter import Parameter
from .linear import factory_dtype, input_type_error
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike, _size_any
    from ...autograd.tensor import Tensor


__all__ = ["Conv2d", "Conv1d", "ConvTranspose2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def ntuple(value: Any, n: int) -> tuple[int, ...]:
    """An int, or a sequence of one or ``n`` ints, as ``n`` ints (``pair`` when ``n`` is 2)."""
    if n == 2:
        return pair(value)
    if isinstance(value, numbers.Integral):
        return (int(value),) * n
    return tuple(int(v) for v in value)


def check_groups(in_channels: int, out_channels: int, groups: int) -> None:
    """PyTorch's checks of ``groups`` against the channels of a convolution layer."""
    if groups <= 0:
        raise ValueError("groups must be a positive integer")
    if in_channels % groups != 0:
        raise ValueError("in_channels must be divisible by groups")
    if out_channels % groups != 0:
        raise ValueError("out_channels must be divisible by groups")


class Conv2d(Module):
    """2-D convolution over NCHW (or unbatched CHW) input, as ``torch.nn.Conv2d``.

    ``padding`` is an int, a pair, ``"valid"`` or ``"same"``; ``padding_mode`` is ``"zeros"``,
    ``"reflect"``, ``"replicate"`` or ``"circular"``.
    ``weight`` has shape (out_channels, in_channels / groups, kh, kw); the initialisation is
    PyTorch's (``kaiming_uniform_(a=sqrt(5))``, bias U(-1/sqrt(fan_in), 1/sqrt(fan_in))).

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int or pair): the window.
        stride (int or pair): the step. Default: 1.
        padding (int, pair or str): added on each side, or ``"valid"``/``"same"``. Default: 0.
        dilation (int or pair): the spacing of kernel taps. Default: 1.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        padding_mode (str): as described above. Default: ``"zeros"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nl.nn.Conv2d(3, 6, 5)
        Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))
    """

    kernel_size: tuple[int, ...]
    stride: tuple[int, ...]
    padding: str | tuple[int, ...]
    dilation: tuple[int, ...]
    output_padding: tuple[int, ...]

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: _size_any,
        stride: _size_any = 1,
        padding: _size_any | str = 0,
        dilation: _size_any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        check_device(device)
        check_groups(in_channels, out_channels, groups)
        kernel_size, stride, dilation = pair(kernel_size), pair(stride), pair(dilation)
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(
                    f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}"
                )
            if padding == "same" and stride != (1, 1):
                raise ValueError("padding='same' is not supported for strided convolutions")
        else:
            padding = pair(padding)
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'replicate', 'circular', 'reflect'}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = kernel_size
        self.stride = stride
        self.padding = padding
        self.dilation = dilation
        self.transposed = False
        self.output_padding = (0, 0)
        self.groups = groups
        self.padding_mode = padding_mode
        dt = factory_dtype(dtype)
        self.weight = Parameter(
            np.empty((out_channels, in_channels // groups) + kernel_size, dtype=dt)
        )
        if bias:
            self.bias = Parameter(np.empty((out_channels,), dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw new weights and bias with PyTorch's initialisation.

        Examples:
            >>> conv = nn.Conv2d(1, 1, 3)
            >>> before = conv.weight.clone()
            >>> conv.reset_parameters()
            >>> bool((conv.weight == before).all())
            False
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        params = self._parameters
        weight, bias = cast(Parameter, params["weight"]), params["bias"]  # the weight is never None
        if not hasattr(input, "_data"):
            raise input_type_error(self, input)
        padding = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._mode_padding(), mode=self.padding_mode)
            padding = 0
        try:
            return F.conv2d(input, weight, bias, self.stride, padding, self.dilation, self.groups)
        except F.LayerInputError as e:
            raise F.LayerInputError(f"{self!r}: {e}") from None

    def _mode_padding(self) -> Any:
        """``F.pad``'s (left, right, top, bottom) for this layer's padding ("same": split as PyTorch)."""
        if self.padding == "valid":
            return (0, 0, 0, 0)
        if self.padding == "same":
            amounts = []
            for k, d in reversed(list(zip(self.kernel_size, self.dilation))):
                total = d * (k - 1)
                amounts += [total // 2, total - total // 2]
            return tuple(amounts)
        assert not isinstance(self.padding, str)  # "valid" and "same" are handled above
        ph, pw = self.padding
        return (pw, pw, ph, ph)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * len(self.padding):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s


def _single(value: Any) -> Any:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class Conv1d(Conv2d):
    """1-D convolution over (N, C, L) (or unbatched (C, L)) input, as ``torch.nn.Conv1d``.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int): the window.
        stride (int): the step. Default: 1.
        padding (int or str): added at both ends, or ``"valid"``/``"same"``. Default: 0.
        dilation (int): the spacing of kernel taps. Default: 1.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        padding_mode (str): ``"zeros"``, ``"reflect"``, ``"replicate"`` or ``"circular"``. Default: ``"zeros"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nl.nn.Conv1d(16, 33, 3, stride=2)
        Conv1d(16, 33, kernel_size=(3,), stride=(2,))
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: _size_any,
        stride: _size_any = 1,
        padding: _size_any | str = 0,
        dilation: _size_any = 1,
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
        self.kernel_size, self.stride, self.dilation = (
            _single(kernel_size),
            _single(stride),
            _single(dilation),
        )
        self.padding = padding if isinstance(padding, str) else _single(padding)
        self.transposed, self.output_padding, self.padding_mode = False, (0,), padding_mode
        dt = factory_dtype(dtype)
        self.weight = Parameter(
            np.empty((out_channels, in_channels // groups) + self.kernel_size, dtype=dt)
        )
        self.register_parameter(
            "bias", Parameter(np.empty((out_channels,), dtype=dt)) if bias else None
        )
        self.reset_parameters()

    def forward(self, input: Tensor) -> Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            input = F.pad(input, self._mode_padding()[:2], mode=self.padding_mode)
            padding = 0
        return F.conv1d(
            input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups
        )

    def _mode_padding(self) -> Any:
        if self.padding == "valid":
            return (0, 0)
        if self.padding == "same":
            total = self.dilation[0] * (self.kernel_size[0] - 1)
            return (total // 2, total - total // 2)
        return (self.padding[0], self.padding[0])


class ConvTranspose2d(Conv2d):
    """2-D transposed convolution, as ``torch.nn.ConvTranspose2d``: ``weight`` is
    (in_channels, out_channels / groups, kh, kw); ``forward(input, output_size=None)``.

    Args:
        in_channels (int): C_in.
        out_channels (int): C_out.
        kernel_size (int or pair): the window.
        stride (int or pair): the step. Default: 1.
        padding (int or pair): removed from each side of the output (``dilation * (k - 1) - padding`` added). Default: 0.
        output_padding (int or pair): extra rows and columns on one side of the output. Default: 0.
        groups (int): independent channel groups. Default: 1.
        bias (bool): learn a bias. Default: True.
        dilation (int or pair): the spacing of kernel taps. Default: 1.
        padding_mode (str): only ``"zeros"``. Default: ``"zeros"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> up = nl.nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        >>> up(nl.randn(1, 16, 7, 7)).shape
        nnlite.Size([1, 8, 14, 14])
    """

    padding: tuple[int, ...]  # no padding modes for transposed convolutions
    # the number of spatial dimensions and the functional form: ConvTranspose1d and
    # ConvTranspose3d (nn/modules/conv_volume.py) are this code with 1 and 3
    _dims = 2
    _conv = staticmethod(F.conv_transpose2d)

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: _size_any,
        stride: _size_any = 1,
        padding: _size_any | str = 0,
        output_padding: _size_any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: _size_any = 1,
        padding_mode: str = "zeros",
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        Module.__init__(self)
        check_device(device)
        check_groups(in_channels, out_channels, groups)
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        n = self._dims
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = ntuple(kernel_size, n), ntuple(stride, n)
        self.padding, self.dilation = ntuple(padding, n), ntuple(dilation, n)
        self.output_padding = ntuple(output_padding, n)
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
                f"requested an output size of {list(wanted)}, but valid sizes range from {smallest} to "
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
