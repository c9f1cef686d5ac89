"""``LayerNorm``, ``GroupNorm``, ``InstanceNorm1d/2d``, ``LocalResponseNorm`` and ``RMSNorm``."""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ...device import check_device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .batchnorm import _BatchNorm
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike, _size_any
    from ...autograd.tensor import Tensor


__all__ = [
    "LayerNorm",
    "GroupNorm",
    "InstanceNorm1d",
    "InstanceNorm2d",
    "LocalResponseNorm",
    "RMSNorm",
]


class LayerNorm(Module):
    """Normalise over the trailing ``normalized_shape`` dimensions, with a learned elementwise affine.

    Args:
        normalized_shape (int or tuple of ints): the trailing shape to normalise over.
        eps (float): added to the variance. Default: 1e-5.
        elementwise_affine (bool): learn a scale (and shift) of that shape. Default: True.
        bias (bool): learn the shift. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nl.nn.LayerNorm(8)
        LayerNorm((8,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    weight: Parameter | None  # registered by __init__ (None without affine parameters)
    bias: Parameter | None

    def __init__(
        self,
        normalized_shape: _size_any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        if isinstance(normalized_shape, (int, numbers.Integral)):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        dt = factory_dtype(dtype)
        affine_shape = self.normalized_shape
        self.register_parameter(
            "weight", Parameter(np.ones(affine_shape, dtype=dt)) if elementwise_affine else None
        )
        self.register_parameter(
            "bias",
            Parameter(np.zeros(affine_shape, dtype=dt)) if elementwise_affine and bias else None,
        )

    def reset_parameters(self) -> None:
        """Set the scale to 1 and the shift to 0.

        Examples:
            >>> ln = nn.LayerNorm(2)
            >>> with nl.no_grad():
            ...     _ = ln.weight.fill_(3.)
            >>> ln.reset_parameters()
            >>> ln.weight.detach()
            tensor([1., 1.])
        """
        if self.elementwise_affine and self.weight is not None:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
            f"bias={self.bias is not None}"
        )


class GroupNorm(Module):
    """Normalise ``num_groups`` groups of channels per sample, with a per-channel affine.

    Args:
        num_groups (int): the number of groups; divides ``num_channels``.
        num_channels (int): C.
        eps (float): added to the variance. Default: 1e-5.
        affine (bool): learn a per-channel scale and shift. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.
        bias (bool): learn the shift (with ``affine``). Default: True.

    Examples:
        >>> nl.nn.GroupNorm(2, 4)
        GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
    """

    weight: Parameter | None  # registered by __init__ (None without affine parameters)
    bias: Parameter | None

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (
            num_groups,
            num_channels,
            eps,
            affine,
        )
        dt = factory_dtype(dtype)
        self.register_parameter(
            "weight", Parameter(np.ones((num_channels,), dtype=dt)) if affine else None
        )
        self.register_parameter(
            "bias", Parameter(np.zeros((num_channels,), dtype=dt)) if affine and bias else None
        )

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )


class _InstanceNorm(_BatchNorm):
    """Per-sample, per-channel normalisation; the parameters and buffers are batch norm's, with
    PyTorch's instance-norm defaults (no affine, no running statistics)."""

    _spatial_dims: int  # set by each subclass

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = False,
        track_running_stats: bool = False,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )

    def _check_input_dim(self, input: Tensor) -> None:
        allowed = (self._spatial_dims + 1, self._spatial_dims + 2)
        if input.ndim not in allowed:
            raise ValueError(
                f"expected {allowed[0]}D or {allowed[1]}D input (got {input.ndim}D input)"
            )

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        unbatched = input.ndim == self._spatial_dims + 1
        x = input.unsqueeze(0) if unbatched else input
        use_running = self.track_running_stats and not self.training
        out = F.instance_norm(
            x,
            self.running_mean,
            self.running_var,
            self.weight,
            self.bias,
            use_input_stats=not use_running,
            momentum=self.momentum if self.momentum is not None else 0.1,
            eps=self.eps,
        )
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) input.

    Args:
        num_features (int): C, the number of channels.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): the running statistics' update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: False.
        track_running_stats (bool): keep running mean and variance for evaluation. Default: False.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.
        bias (bool): learn the shift (with ``affine``). Default: True.

    Examples:
        >>> nn.InstanceNorm1d(3)(nl.randn(2, 3, 5)).shape
        nnlite.Size([2, 3, 5])
    """

    _spatial_dims = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) input.

    Args:
        num_features (int): C, the number of channels.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): the running statistics' update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: False.
        track_running_stats (bool): keep running mean and variance for evaluation. Default: False.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.
        bias (bool): learn the shift (with ``affine``). Default: True.

    Examples:
        >>> nl.nn.InstanceNorm2d(3)
        InstanceNorm2d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _spatial_dims = 2


class LocalResponseNorm(Module):
    """Normalise each element by the squares of its neighbours across ``size`` channels.

    Args:
        size (int): the number of neighbouring channels.
        alpha (float): the multiplicative factor. Default: 1e-4.
        beta (float): the exponent. Default: 0.75.
        k (float): the additive factor. Default: 1.

    Examples:
        >>> nn.LocalResponseNorm(2)
        LocalResponseNorm(2, alpha=0.0001, beta=0.75, k=1.0)
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: Tensor) -> Tensor:
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class RMSNorm(Module):
    """Root-mean-square normalisation over the trailing ``normalized_shape``, with a learned
    elementwise scale (ones at first).

    Args:
        normalized_shape (int or sequence): the trailing dimensions to normalise over.
        eps (float, optional): added to the mean square. Default: the dtype's machine epsilon.
        elementwise_affine (bool): learn the scale. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.RMSNorm(4)
        RMSNorm((4,), eps=None, elementwise_affine=True)
    """

    def __init__(
        self,
        normalized_shape: int | Sequence[int],
        eps: float | None = None,
        elementwise_affine: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        check_device(device)
        shape = (
            (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        )
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, dtype=factory_dtype(dtype)))
        else:
            self.register_parameter("weight", None)

    def reset_parameters(self) -> None:
        """Set the scale back to ones.

        Examples:
            >>> norm = nn.RMSNorm(2)
            >>> norm.reset_parameters()
            >>> norm.weight.detach()
            tensor([1., 1.])
        """
        if self.weight is not None:
            init.ones_(self.weight)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )
