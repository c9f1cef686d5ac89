"""``FractionalMaxPool2d`` and ``FractionalMaxPool3d``: fractional max pooling as layers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops.fractional_max_pool import fractional_max_pool2d, fractional_max_pool3d
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _tuple(value: Any, n: int) -> tuple[Any, ...] | None:
    if value is None:
        return None
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    _dims: int

    def __init__(
        self,
        kernel_size: Any,
        output_size: Any = None,
        output_ratio: Any = None,
        return_indices: bool = False,
        _random_samples: Tensor | None = None,
    ) -> None:
        super().__init__()
        n = self._dims
        self.kernel_size = _tuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _tuple(output_size, n)
        self.output_ratio = _tuple(output_ratio, n)
        name = type(self).__name__
        if output_size is None and output_ratio is None:
            raise ValueError(
                f"{name} requires specifying either an output size, or a pooling ratio"
            )
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        pool = fractional_max_pool2d if self._dims == 2 else fractional_max_pool3d
        return pool(
            input,
            self.kernel_size,
            self.output_size,
            self.output_ratio,
            self.return_indices,
            _random_samples=self._random_samples,
        )


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, H, W)``: windows of ``kernel_size`` at pseudo-random
    places, a fresh draw per call unless ``_random_samples`` fixes them.

    Args:
        kernel_size (int or pair): the window.
        output_size (int or pair, optional): the output's ``(oH, oW)``.
        output_ratio (float or pair, optional): the output size as a fraction in (0, 1) of the
            input's.
        return_indices (bool): also return the indices of the maxima. Default: False.
        _random_samples (Tensor, optional): ``(N, C, 2)`` samples in ``[0, 1)`` placing the windows.

    Examples:
        >>> pool = nn.FractionalMaxPool2d(3, output_ratio=(0.5, 0.5))
        >>> pool(nl.randn(2, 4, 10, 12)).shape
        nnlite.Size([2, 4, 5, 6])
    """

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """Fractional max pooling over ``(N, C, T, H, W)``.

    Args:
        kernel_size (int or triple): the window.
        output_size (int or triple, optional): the output's ``(oT, oH, oW)``.
        output_ratio (float or triple, optional): the output size as a fraction in (0, 1).
        return_indices (bool): also return the indices of the maxima. Default: False.
        _random_samples (Tensor, optional): ``(N, C, 3)`` samples in ``[0, 1)``.

    Examples:
        >>> pool = nn.FractionalMaxPool3d(2, output_size=(2, 3, 3))
        >>> pool(nl.randn(1, 2, 5, 6, 6)).shape
        nnlite.Size([1, 2, 2, 3, 3])
    """

    _dims = 3
