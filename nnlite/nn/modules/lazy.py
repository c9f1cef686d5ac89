"""Lazy layers: ``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``. The input size
(``in_features``, ``in_channels``, ``num_features``) is read from the first input; the
parameters are then given their shapes and PyTorch's initialisation, and the layer becomes the
ordinary one (``LazyLinear`` turns into ``Linear``), as PyTorch's lazy modules do.

The parameter objects stay the same, so an optimizer built before the first call updates them.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv1d, Conv2d
from .conv_volume import Conv3d
from .linear import Linear
from .volume_norm import BatchNorm3d

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = [
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
]


def _built_empty(build: Any) -> None:
    """Build the layer with a zero input size (its zero-element initialisation warns, as
    PyTorch's lazy layers do not)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        build()


def _reshape(tensor: Any, shape: tuple[int, ...]) -> None:
    """Give ``tensor`` (a parameter or buffer) a fresh array of ``shape``, keeping the object."""
    if tensor is not None:
        tensor._data = np.zeros(shape, dtype=tensor._data.dtype)


class _LazyMixin:
    cls_to_become: Any  # the ordinary layer, set by each lazy class

    def has_uninitialized_params(self) -> bool:
        """Whether the input size is still unknown (before the first call).

        Returns:
            bool: True until the first call.

        Examples:
            >>> nn.LazyLinear(2).has_uninitialized_params()
            True
        """
        return type(self) is not self.cls_to_become

    def _materialize(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor, *args: Any, **kwargs: Any) -> Any:
        self._materialize(input)
        self.__class__ = self.cls_to_become
        return self.forward(input, *args, **kwargs)


class LazyLinear(_LazyMixin, Linear):
    """``Linear`` whose ``in_features`` is the last dimension of its first input.

    Args:
        out_features (int): the output size.
        bias (bool): learn a bias. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> layer = nn.LazyLinear(3)
        >>> layer
        LazyLinear(in_features=0, out_features=3, bias=True)
        >>> layer(nl.ones(2, 5)).shape
        nnlite.Size([2, 3])
        >>> layer
        Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        _built_empty(lambda: Linear.__init__(self, 0, out_features, bias, device, dtype))

    def _materialize(self, input: Tensor) -> None:
        self.in_features = int(input.shape[-1])
        _reshape(self.weight, (self.out_features, self.in_features))
        self.reset_parameters()


class _LazyConv(_LazyMixin):
    _spatial: int

    def _materialize(self, input: Tensor) -> None:
        layer: Any = self
        batched = input.ndim == self._spatial + 2
        layer.in_channels = int(input.shape[1] if batched else input.shape[0])
        if layer.in_channels % layer.groups:
            raise ValueError("in_channels must be divisible by groups")
        shape = (layer.out_channels, layer.in_channels // layer.groups) + tuple(layer.kernel_size)
        _reshape(layer.weight, shape)
        layer.reset_parameters()


def _lazy_conv_init(
    self: Any, base: Any, out_channels: int, kernel_size: Any, args: tuple, kwargs: dict
) -> None:
    _built_empty(lambda: base.__init__(self, 0, out_channels, kernel_size, *args, **kwargs))


class LazyConv1d(_LazyConv, Conv1d):
    """``Conv1d`` whose ``in_channels`` comes from its first input.

    Args:
        out_channels (int): C_out.
        kernel_size (int): the window.
        *args, **kwargs: as for ``Conv1d`` (``stride``, ``padding``, ...).

    Examples:
        >>> nn.LazyConv1d(4, 3)(nl.ones(1, 2, 5)).shape
        nnlite.Size([1, 4, 3])
    """

    cls_to_become, _spatial = Conv1d, 1

    def __init__(self, out_channels: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        _lazy_conv_init(self, Conv1d, out_channels, kernel_size, args, kwargs)


class LazyConv2d(_LazyConv, Conv2d):
    """``Conv2d`` whose ``in_channels`` comes from its first input.

    Args:
        out_channels (int): C_out.
        kernel_size (int or pair): the window.
        *args, **kwargs: as for ``Conv2d`` (``stride``, ``padding``, ...).

    Examples:
        >>> layer = nn.LazyConv2d(4, 3)
        >>> layer
        LazyConv2d(0, 4, kernel_size=(3, 3), stride=(1, 1))
        >>> layer(nl.ones(1, 2, 5, 5)).shape
        nnlite.Size([1, 4, 3, 3])
    """

    cls_to_become, _spatial = Conv2d, 2

    def __init__(self, out_channels: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        _lazy_conv_init(self, Conv2d, out_channels, kernel_size, args, kwargs)


class LazyConv3d(_LazyConv, Conv3d):
    """``Conv3d`` whose ``in_channels`` comes from its first input.

    Args:
        out_channels (int): C_out.
        kernel_size (int or triple): the window.
        *args, **kwargs: as for ``Conv3d`` (``stride``, ``padding``, ...).

    Examples:
        >>> nn.LazyConv3d(4, 3)(nl.ones(1, 2, 4, 4, 4)).shape
        nnlite.Size([1, 4, 2, 2, 2])
    """

    cls_to_become, _spatial = Conv3d, 3

    def __init__(self, out_channels: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        _lazy_conv_init(self, Conv3d, out_channels, kernel_size, args, kwargs)


class _LazyBatchNorm(_LazyMixin):
    def _materialize(self, input: Tensor) -> None:
        layer: Any = self
        channels = int(input.shape[1] if input.ndim > 1 else input.shape[0])
        layer.num_features = channels
        for name in ("weight", "bias"):
            _reshape(layer._parameters.get(name), (channels,))
        for name in ("running_mean", "running_var"):
            _reshape(layer._buffers.get(name), (channels,))
        if layer._buffers.get("running_var") is not None:
            layer._buffers["running_var"]._data[...] = 1
        if layer._parameters.get("weight") is not None:
            layer._parameters["weight"]._data[...] = 1


def _lazy_norm_init(self: Any, base: Any, kwargs: dict) -> None:
    _built_empty(lambda: base.__init__(self, 0, **kwargs))


class LazyBatchNorm1d(_LazyBatchNorm, BatchNorm1d):
    """``BatchNorm1d`` whose ``num_features`` comes from its first input.

    Args:
        eps, momentum, affine, track_running_stats, device, dtype: as for ``BatchNorm1d``.

    Examples:
        >>> nn.LazyBatchNorm1d()(nl.randn(4, 3)).shape
        nnlite.Size([4, 3])
    """

    cls_to_become = BatchNorm1d

    def __init__(self, **kwargs: Any) -> None:
        _lazy_norm_init(self, BatchNorm1d, kwargs)


class LazyBatchNorm2d(_LazyBatchNorm, BatchNorm2d):
    """``BatchNorm2d`` whose ``num_features`` comes from its first input.

    Args:
        eps, momentum, affine, track_running_stats, device, dtype: as for ``BatchNorm2d``.

    Examples:
        >>> layer = nn.LazyBatchNorm2d()
        >>> layer
        LazyBatchNorm2d(0, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> layer(nl.randn(2, 3, 4, 4)).shape
        nnlite.Size([2, 3, 4, 4])
    """

    cls_to_become = BatchNorm2d

    def __init__(self, **kwargs: Any) -> None:
        _lazy_norm_init(self, BatchNorm2d, kwargs)


class LazyBatchNorm3d(_LazyBatchNorm, BatchNorm3d):
    """``BatchNorm3d`` whose ``num_features`` comes from its first input.

    Args:
        eps, momentum, affine, track_running_stats, device, dtype: as for ``BatchNorm3d``.

    Examples:
        >>> nn.LazyBatchNorm3d()(nl.randn(2, 3, 2, 2, 2)).shape
        nnlite.Size([2, 3, 2, 2, 2])
    """

    cls_to_become = BatchNorm3d

    def __init__(self, **kwargs: Any) -> None:
        _lazy_norm_init(self, BatchNorm3d, kwargs)
