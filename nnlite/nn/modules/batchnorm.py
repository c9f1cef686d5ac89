"""``BatchNorm1d`` and ``BatchNorm2d``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.tensor import Tensor
from ...device import check_device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike


__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _BatchNorm(Module):
    """Batch normalisation over the channel dimension, with running statistics as buffers.

    ``bias=False`` (keyword only, as in PyTorch 2.13) keeps the scale but drops the shift.
    In training mode the batch statistics normalise the input and update ``running_mean`` and
    ``running_var`` (``momentum=None`` gives a cumulative average); in eval mode the running
    statistics are used. ``num_batches_tracked`` counts the training batches.
    """

    # registered by __init__; None without affine parameters or running statistics
    weight: Parameter | None
    bias: Parameter | None
    running_mean: Tensor | None
    running_var: Tensor | None
    num_batches_tracked: Tensor | None

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        check_device(device)
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        dt = factory_dtype(dtype)
        if affine:
            self.weight = Parameter(np.empty((num_features,), dtype=dt))
            if bias:
                self.bias = Parameter(np.empty((num_features,), dtype=dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros((num_features,), dtype=dt)))
            self.register_buffer("running_var", Tensor(np.ones((num_features,), dtype=dt)))
            self.register_buffer("num_batches_tracked", Tensor(np.zeros((), dtype=np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, batch count 0.

        Examples:
            >>> bn = nn.BatchNorm1d(2)
            >>> _ = bn(nl.randn(8, 2) + 5)
            >>> bn.reset_running_stats()
            >>> bn.running_mean, bn.running_var
            (tensor([0., 0.]), tensor([1., 1.]))
        """
        if self.track_running_stats:
            assert self.running_mean is not None and self.running_var is not None
            assert self.num_batches_tracked is not None  # all registered with running stats
            self.running_mean._data[...] = 0
            self.running_var._data[...] = 1
            self.num_batches_tracked._data[...] = 0

    def reset_parameters(self) -> None:
        """Reset the running statistics and set the scale to 1 and the shift to 0.

        Examples:
            >>> bn = nn.BatchNorm1d(2)
            >>> _ = bn(nl.randn(8, 2) + 5)
            >>> bn.reset_parameters()
            >>> bn.running_mean, bn.weight.detach()
            (tensor([0., 0.]), tensor([1., 1.]))
        """
        self.reset_running_stats()
        if self.affine and self.weight is not None:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        buffers = self._buffers
        if self.training and self.track_running_stats:
            tracked = buffers["num_batches_tracked"]
            if tracked is not None:
                tracked._data += 1
                tracked._bump_version()
                factor = 1.0 / float(tracked._data) if self.momentum is None else self.momentum
        use_batch_stats = self.training or (
            buffers["running_mean"] is None and buffers["running_var"] is None
        )
        use_running = not self.training or self.track_running_stats
        params = self._parameters
        try:
            return F.batch_norm(
                input,
                buffers["running_mean"] if use_running else None,
                buffers["running_var"] if use_running else None,
                params["weight"],
                params["bias"],
                use_batch_stats,
                factor,
                self.eps,
            )
        except F.LayerInputError as e:
            raise F.LayerInputError(f"{self!r}: {e}") from None

    def _load_from_state_dict(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        missing: list[str],
        unexpected: list[str],
        errors: list[str],
        assign: bool = False,
    ) -> None:
        # state dicts written before num_batches_tracked existed still load (PyTorch does the same)
        key = prefix + "num_batches_tracked"
        if self.track_running_stats and key not in state_dict:
            before = len(missing)
            super()._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)
            if key in missing[before:]:
                missing.remove(key)
            return
        super()._load_from_state_dict(state_dict, prefix, missing, unexpected, errors, assign)

    def extra_repr(self) -> str:
        # PyTorch 2.13 prints the bias flag too (its BatchNorm gained a ``bias`` argument)
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
            f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input.

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
        >>> bn = nn.BatchNorm1d(4)
        >>> bn(nl.randn(8, 4)).shape
        nnlite.Size([8, 4])
        >>> bn.running_mean.shape
        nnlite.Size([4])
    """

    def _check_input_dim(self, input: Tensor) -> None:
        nd = input.ndim
        if nd != 2 and nd != 3:
            raise ValueError(f"expected 2D or 3D input (got {nd}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of (N, C, H, W) input.

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
        >>> nl.nn.BatchNorm2d(64)
        BatchNorm2d(64, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
    """

    def _check_input_dim(self, input: Tensor) -> None:
        nd = input.ndim
        if nd != 4:
            raise ValueError(f"expected 4D input (got {nd}D input)")
