"""``Fold`` and ``Unfold``: sliding blocks to columns (im2col) and back (col2im)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = ["Fold", "Unfold"]


class Unfold(Module):
    """Extract sliding local blocks: ``(N, C, H, W)`` to ``(N, C * kh * kw, L)``.

    Args:
        kernel_size (int or pair): the block's size.
        dilation (int or pair): the spacing of a block's elements. Default: 1.
        padding (int or pair): zeros added on each side. Default: 0.
        stride (int or pair): the step between blocks. Default: 1.

    Examples:
        >>> nn.Unfold(2)(nl.ones(1, 3, 4, 4)).shape
        nnlite.Size([1, 12, 9])
    """

    def __init__(
        self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
            f"stride={self.stride}"
        )


class Fold(Unfold):
    """Sum sliding local blocks into an image: ``(N, C * kh * kw, L)`` to ``(N, C, H, W)``.

    Args:
        output_size (int or pair): the image's ``(H, W)``.
        kernel_size (int or pair): the block's size.
        dilation (int or pair): the spacing of a block's elements. Default: 1.
        padding (int or pair): the padding the blocks were taken with. Default: 0.
        stride (int or pair): the step between blocks. Default: 1.

    Examples:
        >>> nn.Fold((4, 5), 2)
        Fold(output_size=(4, 5), kernel_size=2, dilation=1, padding=0, stride=1)
    """

    def __init__(
        self,
        output_size: Any,
        kernel_size: Any,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
    ) -> None:
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(
            input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}, " + super().extra_repr()
