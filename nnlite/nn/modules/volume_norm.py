"""``BatchNorm3d`` and ``InstanceNorm3d``: the batch and instance normalisations of volumes
(``(N, C, D, H, W)``), the 2-D layers' code with a five-dimensional input check."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .batchnorm import _BatchNorm
from .normalization import _InstanceNorm

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = ["BatchNorm3d", "InstanceNorm3d"]


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) input.

    Args:
        num_features (int): C, the number of channels.
        eps (float): added to the variance. Default: 1e-5.
        momentum (float): the running statistics' update rate. Default: 0.1.
        affine (bool): learn a per-channel scale and shift. Default: True.
        track_running_stats (bool): keep running mean and variance for evaluation. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.
        bias (bool): learn the shift (with ``affine``). Default: True.

    Examples:
        >>> nl.nn.BatchNorm3d(3)
        BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) input.

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
        >>> nl.nn.InstanceNorm3d(3)
        InstanceNorm3d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, track_running_stats=False)
    """

    _spatial_dims = 3
