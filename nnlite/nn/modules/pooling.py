"""``MaxPool2d``, ``AvgPool2d``, ``AdaptiveAvgPool2d``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..._typing import _size_any
    from ...autograd.tensor import Tensor


__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"]


class _PoolNd(Module):
    def _reraise(self, e: Any) -> Any:
        return F.LayerInputError(f"{self!r}: {e}")


class MaxPool2d(_PoolNd):
    """2-D max pooling; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int or pair): the window.
        stride (int or pair, optional): the step. Default: ``kernel_size``.
        padding (int or pair): ``-inf`` added on each side. Default: 0.
        dilation (int or pair): the spacing of window taps. Default: 1.
        return_indices (bool): also return where each maximum came from. Default: False.
        ceil_mode (bool): round the output size up. Default: False.

    Examples:
        >>> nl.nn.MaxPool2d(2, 2)
        MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
    """

    def __init__(
        self,
        kernel_size: _size_any,
        stride: _size_any | None = None,
        padding: _size_any | str = 0,
        dilation: _size_any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        if not hasattr(input, "_data"):
            raise TypeError(f"{self!r}: expected a Tensor as input, got {type(input).__name__}")
        try:
            result: Tensor = F.max_pool2d(
                input,
                self.kernel_size,
                self.stride,
                self.padding,
                self.dilation,
                self.ceil_mode,
                self.return_indices,
            )
            return result
        except F.LayerInputError as e:
            raise self._reraise(e) from None

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class AvgPool2d(_PoolNd):
    """2-D average pooling; ``stride`` defaults to ``kernel_size``.

    Args:
        kernel_size (int or pair): the window.
        stride (int or pair, optional): the step. Default: ``kernel_size``.
        padding (int or pair): zeros added on each side. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.
        divisor_override (int, optional): divide by this instead of the window size.

    Examples:
        >>> nn.AvgPool2d(2)(nl.ones(1, 1, 4, 4)).shape
        nnlite.Size([1, 1, 2, 2])
    """

    def __init__(
        self,
        kernel_size: _size_any,
        stride: _size_any | None = None,
        padding: _size_any | str = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        try:
            return F.avg_pool2d(
                input,
                self.kernel_size,
                self.stride,
                self.padding,
                self.ceil_mode,
                self.count_include_pad,
                self.divisor_override,
            )
        except F.LayerInputError as e:
            raise self._reraise(e) from None

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(_PoolNd):
    """Average pooling to a fixed output size (``None`` in it keeps that input dimension).

    Args:
        output_size (int or pair): the output's ``(H, W)``; ``None`` keeps that size.

    Examples:
        >>> nn.AdaptiveAvgPool2d((1, 1))(nl.ones(2, 3, 7, 7)).shape
        nnlite.Size([2, 3, 1, 1])
    """

    def __init__(self, output_size: _size_any | None) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        try:
            return F.adaptive_avg_pool2d(input, self.output_size)
        except F.LayerInputError as e:
            raise self._reraise(e) from None

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
