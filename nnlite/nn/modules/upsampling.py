"""``Upsample`` and ``AdaptiveMaxPool2d``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..._typing import _size_any
    from ...autograd.tensor import Tensor


__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "AdaptiveMaxPool2d"]


class Upsample(Module):
    """Resize to ``size`` or by ``scale_factor`` with ``mode`` ``"nearest"``, ``"linear"`` or ``"bilinear"``.

    Args:
        size (int or tuple, optional): the output's spatial size.
        scale_factor (float or tuple, optional): the multiplier of the spatial size.
        mode (str): ``"nearest"``, ``"linear"`` or ``"bilinear"``. Default: ``"nearest"``.
        align_corners (bool, optional): for the linear modes, map corner pixels onto each other.
        recompute_scale_factor (bool, optional): as for ``F.interpolate``.

    Examples:
        >>> nl.nn.Upsample(scale_factor=2)
        Upsample(scale_factor=2.0, mode='nearest')
    """

    def __init__(
        self,
        size: _size_any | None = None,
        scale_factor: float | tuple[float, ...] | None = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor: tuple[float, ...] | float | None = tuple(
                float(f) for f in scale_factor
            )
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners, self.recompute_scale_factor = (
            mode,
            align_corners,
            recompute_scale_factor,
        )

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        what = (
            f"scale_factor={self.scale_factor!r}"
            if self.scale_factor is not None
            else f"size={self.size!r}"
        )
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour resizing, as ``torch.nn.UpsamplingNearest2d``.

    Args:
        size (int or pair, optional): the output's ``(H, W)``.
        scale_factor (float or pair, optional): the multiplier of ``(H, W)``.

    Examples:
        >>> nn.UpsamplingNearest2d(scale_factor=2)(nl.tensor([[[[1., 2.]]]]))
        tensor([[[[1., 1., 2., 2.],
                  [1., 1., 2., 2.]]]])
    """

    def __init__(
        self, size: _size_any | None = None, scale_factor: float | tuple[float, ...] | None = None
    ) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear resizing with ``align_corners=True``, as ``torch.nn.UpsamplingBilinear2d``.

    Args:
        size (int or pair, optional): the output's ``(H, W)``.
        scale_factor (float or pair, optional): the multiplier of ``(H, W)``.

    Examples:
        >>> nn.UpsamplingBilinear2d(scale_factor=2)(nl.ones(1, 1, 2, 2)).shape
        nnlite.Size([1, 1, 4, 4])
    """

    def __init__(
        self, size: _size_any | None = None, scale_factor: float | tuple[float, ...] | None = None
    ) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


class AdaptiveMaxPool2d(Module):
    """Max over ``output_size`` adaptive windows per channel.

    Args:
        output_size (int or pair): the output's ``(H, W)``; ``None`` keeps that size.
        return_indices (bool): also return where each maximum came from. Default: False.

    Examples:
        >>> nn.AdaptiveMaxPool2d(1)(nl.arange(16.).reshape(1, 1, 4, 4))
        tensor([[[[15.]]]])
    """

    def __init__(self, output_size: _size_any | None, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Tensor:
        result: Tensor = F.adaptive_max_pool2d(input, self.output_size, self.return_indices)
        return result

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
