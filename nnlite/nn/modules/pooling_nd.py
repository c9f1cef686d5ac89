"""Pooling layers over one and three dimensions, power-average pooling and max unpooling:
``MaxPool1d/3d``, ``AvgPool1d/3d``, ``AdaptiveAvgPool1d/3d``, ``AdaptiveMaxPool1d/3d``,
``LPPool1d/2d/3d``, ``MaxUnpool1d/2d/3d``."""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = [
    "MaxPool1d",
    "MaxPool3d",
    "AvgPool1d",
    "AvgPool3d",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool3d",
    "LPPool1d",
    "LPPool2d",
    "LPPool3d",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    if isinstance(value, numbers.Integral):
        return (value,) * n
    return tuple(value)


class _MaxPoolNd(Module):
    _pool: Any  # the functional form, set by each subclass

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
        )

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling of ``(N, C, L)``; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        padding (int): ``-inf`` added at both ends. Default: 0.
        dilation (int): the spacing of window taps. Default: 1.
        return_indices (bool): also return where each maximum came from. Default: False.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nn.MaxPool1d(3)
        MaxPool1d(kernel_size=3, stride=3, padding=0, dilation=1, ceil_mode=False)
    """

    _pool = staticmethod(F.max_pool1d)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling of ``(N, C, D, H, W)``; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int or triple): the window.
        stride (int or triple, optional): the step. Default: ``kernel_size``.
        padding (int or triple): ``-inf`` added on each side. Default: 0.
        dilation (int or triple): the spacing of window taps. Default: 1.
        return_indices (bool): also return where each maximum came from. Default: False.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nn.MaxPool3d(2)
        MaxPool3d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    _pool = staticmethod(F.max_pool3d)


class AvgPool1d(Module):
    """1-D average pooling of ``(N, C, L)``; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        padding (int): zeros added at both ends. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.

    Examples:
        >>> nn.AvgPool1d(3)
        AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool3d(Module):
    """3-D average pooling of ``(N, C, D, H, W)``; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int or triple): the window.
        stride (int or triple, optional): the step. Default: ``kernel_size``.
        padding (int or triple): zeros added on each side. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.
        divisor_override (int, optional): divide by this instead of the window size.

    Examples:
        >>> nn.AvgPool3d(3)
        AvgPool3d(kernel_size=3, stride=3, padding=0)
    """

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool3d(
            input,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.count_include_pad,
            self.divisor_override,
        )

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AdaptivePool(Module):
    _pool: Any  # the functional form, set by each subclass

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class _AdaptiveMaxPool(_AdaptivePool):
    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return type(self)._pool(input, self.output_size, self.return_indices)


class AdaptiveAvgPool1d(_AdaptivePool):
    """Average pooling of ``(N, C, L)`` to a fixed length.

    Args:
        output_size (int): the output length.

    Examples:
        >>> nn.AdaptiveAvgPool1d(4)
        AdaptiveAvgPool1d(output_size=4)
    """

    _pool = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool3d(_AdaptivePool):
    """Average pooling of ``(N, C, D, H, W)`` to a fixed size.

    Args:
        output_size (int or triple): the output's ``(D, H, W)``; ``None`` keeps that size.

    Examples:
        >>> nn.AdaptiveAvgPool3d((2, None, 3))
        AdaptiveAvgPool3d(output_size=(2, None, 3))
    """

    _pool = staticmethod(F.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(_AdaptiveMaxPool):
    """Max pooling of ``(N, C, L)`` to a fixed length.

    Args:
        output_size (int): the output length.
        return_indices (bool): also return where each maximum came from. Default: False.

    Examples:
        >>> nn.AdaptiveMaxPool1d(3)
        AdaptiveMaxPool1d(output_size=3)
    """

    _pool = staticmethod(F.adaptive_max_pool1d)


class AdaptiveMaxPool3d(_AdaptiveMaxPool):
    """Max pooling of ``(N, C, D, H, W)`` to a fixed size.

    Args:
        output_size (int or triple): the output's ``(D, H, W)``; ``None`` keeps that size.
        return_indices (bool): also return where each maximum came from. Default: False.

    Examples:
        >>> nn.AdaptiveMaxPool3d(1)
        AdaptiveMaxPool3d(output_size=1)
    """

    _pool = staticmethod(F.adaptive_max_pool3d)


class _LPPool(Module):
    _pool: Any  # the functional form, set by each subclass

    def __init__(
        self, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
    ) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        result: Tensor = type(self)._pool(
            input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode
        )
        return result

    def extra_repr(self) -> str:
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, stride={self.stride}, "
            f"ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPool):
    """Power-average pooling over ``(N, C, L)``: ``(sum of x^p over the window)^(1/p)``.

    Args:
        norm_type (float): ``p``.
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nn.LPPool1d(2, 3)
        LPPool1d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _pool = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """Power-average pooling over ``(N, C, H, W)``: ``(sum of x^p over the window)^(1/p)``.

    Args:
        norm_type (float): ``p``.
        kernel_size (int or pair): the window.
        stride (int or pair, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nn.LPPool2d(2, 3)
        LPPool2d(norm_type=2, kernel_size=3, stride=None, ceil_mode=False)
    """

    _pool = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    """Power-average pooling over ``(N, C, D, H, W)``: ``(sum of x^p over the window)^(1/p)``.

    Args:
        norm_type (float): ``p``.
        kernel_size (int or triple): the window.
        stride (int or triple, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nn.LPPool3d(1, 2)
        LPPool3d(norm_type=1, kernel_size=2, stride=None, ceil_mode=False)
    """

    _pool = staticmethod(F.lp_pool3d)


class _MaxUnpool(Module):
    _unpool: Any  # the functional form, set by each subclass
    _dims: int

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, self._dims)
        self.stride = _ntuple(stride if stride is not None else kernel_size, self._dims)
        self.padding = _ntuple(padding, self._dims)

    def forward(self, input: Tensor, indices: Tensor, output_size: Any = None) -> Tensor:
        result: Tensor = type(self)._unpool(
            input, indices, self.kernel_size, self.stride, self.padding, output_size
        )
        return result

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpool):
    """The partial inverse of ``MaxPool1d``: values back at their maxima's positions, zeros elsewhere.

    Args:
        kernel_size (int): the pooling's window.
        stride (int, optional): the pooling's step. Default: ``kernel_size``.
        padding (int): the pooling's padding. Default: 0.

    Examples:
        >>> nn.MaxUnpool1d(2)
        MaxUnpool1d(kernel_size=(2,), stride=(2,), padding=(0,))
    """

    _unpool, _dims = staticmethod(F.max_unpool1d), 1


class MaxUnpool2d(_MaxUnpool):
    """The partial inverse of ``MaxPool2d``: values back at their maxima's positions, zeros elsewhere.

    Args:
        kernel_size (int or pair): the pooling's window.
        stride (int or pair, optional): the pooling's step. Default: ``kernel_size``.
        padding (int or pair): the pooling's padding. Default: 0.

    Examples:
        >>> nn.MaxUnpool2d(2)
        MaxUnpool2d(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0))
    """

    _unpool, _dims = staticmethod(F.max_unpool2d), 2


class MaxUnpool3d(_MaxUnpool):
    """The partial inverse of ``MaxPool3d``: values back at their maxima's positions, zeros elsewhere.

    Args:
        kernel_size (int or triple): the pooling's window.
        stride (int or triple, optional): the pooling's step. Default: ``kernel_size``.
        padding (int or triple): the pooling's padding. Default: 0.

    Examples:
        >>> nn.MaxUnpool3d(2)
        MaxUnpool3d(kernel_size=(2, 2, 2), stride=(2, 2, 2), padding=(0, 0, 0))
    """

    _unpool, _dims = staticmethod(F.max_unpool3d), 3
