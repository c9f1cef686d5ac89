"""``SyncBatchNorm``: batch normalisation whose batch statistics are taken over all MPI ranks.

In training mode each rank computes, per channel, its sample count, mean and sum of squared
deviations (in float64); one Allgather combines them exactly into the statistics of the global
batch (Chan's parallel formula: no cancellation, unlike summing x and x squared). Backward sums
the two per-channel reductions the input gradient needs over the ranks with one all-reduce. The
result equals ``BatchNorm`` on the concatenated batch in one process, within float32 rounding.
With one rank, in eval mode, or outside an MPI job it is plain ``BatchNorm``.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.tensor import _make
from .batchnorm import _BatchNorm

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor
    from ...distributed._mpi import Group
    from .module import Module


__all__ = ["SyncBatchNorm"]


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation over the batch of all ranks, as ``torch.nn.SyncBatchNorm``.

    Args:
        num_features (int): channels ``C`` of the ``(N, C, ...)`` input.
        eps, momentum, affine, track_running_stats, bias: as ``BatchNorm2d``.
        process_group: a ``nnlite.distributed`` process group or an mpi4py communicator whose
            ranks share statistics (default: the communicator of the ``DistributedDataParallel``
            that wraps the model, else the group of ``init_process_group``, else
            ``MPI.COMM_WORLD``).

    Every rank must run the same number of training forwards and backwards through the layer
    (each is a collective). Inside ``DistributedDataParallel`` the collectives use its timeout.

    Examples:
        >>> model = nl.nn.Sequential(nl.nn.Conv2d(3, 8, 3), nl.nn.BatchNorm2d(8))
        >>> model = nl.nn.SyncBatchNorm.convert_sync_batchnorm(model)
        >>> type(model[1]).__name__
        'SyncBatchNorm'
        >>> ddp = nl.nn.parallel.DistributedDataParallel(model)  # under mpirun  # doctest: +SKIP
    """

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        process_group: Any = None,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        self.process_group = process_group
        self._group: Group | None = None  # set by DistributedDataParallel, or built on first use

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def _check_non_zero_input_channels(self, input: Tensor) -> None:
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")

    def _sync_group(self) -> Any:
        """The group to share statistics with, or None when there is nothing to share."""
        group = self._group
        if group is None:
            from ...distributed._mpi import Group
            from ...distributed.process_group import GroupMember, ProcessGroup

            chosen = self.process_group if self.process_group is not None else GroupMember.WORLD
            if isinstance(chosen, ProcessGroup):  # nnlite.distributed's group (and its timeout)
                group = self._group = Group(chosen.group.MPI, chosen.comm, chosen.timeout)
                return group if group.size > 1 else None
            mpi = sys.modules.get(
                "mpi4py.MPI"
            )  # as torch.distributed.is_initialized(): never starts MPI
            if mpi is None or not mpi.Is_initialized() or mpi.Is_finalized():
                return None
            group = self._group = Group(mpi, chosen if chosen is not None else mpi.COMM_WORLD)
        return group if group.size > 1 else None

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        self._check_non_zero_input_channels(input)
        group = self._sync_group() if self.training else None
        if group is None:
            return super().forward(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            tracked = self.num_batches_tracked
            assert tracked is not None  # registered with running stats
            tracked._data += 1
            tracked._bump_version()
            factor = 1.0 / float(tracked._data) if self.momentum is None else self.momentum
        running = (
            (self.running_mean, self.running_var) if self.track_running_stats else (None, None)
        )
        args = [input] + [t for t in (self.weight, self.bias) if t is not None]
        result: Tensor = _SyncBatchNormFunction.apply(
            *args,
            has_weight=self.weight is not None,
            has_bias=self.bias is not None,
            running=running,
            momentum=factor,
            eps=self.eps,
            group=group,
        )
        return result

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Any:
        """Replace every ``BatchNorm1d``/``BatchNorm2d`` inside ``module`` by a ``SyncBatchNorm``.

        The new layers share the old ones' parameters and running statistics and keep their
        training mode. Returns ``module`` (changed in place), or a new layer if ``module`` is
        itself a batch norm.

        Args:
            module (Module): a model, or a batch norm layer.
            process_group (optional): the MPI communicator the new layers use. Default: ``MPI.COMM_WORLD``.

        Returns:
            Module: ``module``, or the new layer.

        Examples:
            >>> net = nl.nn.Sequential(nl.nn.Linear(20, 100), nl.nn.BatchNorm1d(100))
            >>> nl.nn.SyncBatchNorm.convert_sync_batchnorm(net)[1]
            SyncBatchNorm(100, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        """
        result = module
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            result = cls(
                module.num_features,
                module.eps,
                module.momentum,
                module.affine,
                module.track_running_stats,
                process_group,
                bias=module.bias is not None,
            )
            if module.affine:
                result.weight = module.weight
                if module.bias is not None:
                    result.bias = module.bias
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                result._buffers[name] = module._buffers[name]
            result.training = module.training
        for name, child in module.named_children():
            result.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return result


class _SyncBatchNormFunction(Function):
    """Forward and backward of batch norm with statistics over all ranks (arrays inside)."""

    @staticmethod
    def forward(
        ctx: Any,
        x: Tensor,
        *affine: Any,
        has_weight: Any,
        has_bias: Any,
        running: Any,
        momentum: float,
        eps: float,
        group: Any,
    ) -> Tensor:
        data = x._data
        channels = data.shape[1]
        axes = (0,) + tuple(range(2, data.ndim))
        count = data.size // channels
        # per rank: count, mean, sum of squared deviations; combined exactly over the ranks
        local = np.zeros((3, channels), dtype=np.float64)
        local[0] = count
        if count:
            wide = data.astype(np.float64)
            local[1] = wide.mean(axis=axes)
            shape = [1, channels] + [1] * (data.ndim - 2)
            local[2] = ((wide - local[1].reshape(shape)) ** 2).sum(axis=axes)
        gathered = np.empty((group.size, 3, channels), dtype=np.float64)
        group.allgather(local, gathered, "allgather of SyncBatchNorm statistics")
        counts, means, m2s = gathered[:, 0], gathered[:, 1], gathered[:, 2]
        total = counts.sum(axis=0)
        if total[0] <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{list(x.shape)} on this rank and {int(total[0])} value(s) per channel in all"
            )
        mean = (counts * means).sum(axis=0) / total
        m2 = (m2s + counts * (means - mean) ** 2).sum(axis=0)
        var = m2 / total
        invstd = 1.0 / np.sqrt(var + eps)
        running_mean, running_var = running
        if running_mean is not None:
            f = momentum
            running_mean._data[...] = (1 - f) * running_mean._data + f * mean
            running_var._data[...] = (1 - f) * running_var._data + f * (m2 / (total - 1))
            running_mean._bump_version()
            running_var._bump_version()
        shape = [1, channels] + [1] * (data.ndim - 2)
        dtype = data.dtype
        xhat = (data - mean.astype(dtype).reshape(shape)) * invstd.astype(dtype).reshape(shape)
        weight = affine[0]._data.reshape(shape) if has_weight else None
        out = xhat * weight if has_weight else xhat.copy()
        if has_bias:
            out += affine[1 if has_weight else 0]._data.reshape(shape)
        ctx.statistics = (
            xhat,
            invstd.astype(dtype),
            weight,
        )  # arrays: this backward is first order only
        ctx.layout = (axes, shape, total[0], group, has_weight, has_bias)
        return _make(out.astype(dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        if is_grad_enabled():  # a recorded backward (create_graph=True): the formula is on arrays
            raise RuntimeError(
                "SyncBatchNorm's backward is first order only: it does not support "
                "create_graph=True (gradients of gradients)"
            )
        xhat, invstd, weight = ctx.statistics
        axes, shape, total, group, has_weight, has_bias = ctx.layout
        gy = grad._data
        grads: list[Tensor | None] = []
        needs = ctx.needs_input_grad
        # the two reductions; every rank takes part when the input needs a gradient (the same
        # decision on every rank: it depends only on the model)
        sums = np.stack(
            [gy.sum(axis=axes, dtype=np.float64), (gy * xhat).sum(axis=axes, dtype=np.float64)]
        )
        if needs[0]:
            global_sums = sums.copy()
            group.allreduce(global_sums, "allreduce of SyncBatchNorm gradients")
            mean_dy = (global_sums[0] / total).astype(gy.dtype).reshape(shape)
            mean_dy_xhat = (global_sums[1] / total).astype(gy.dtype).reshape(shape)
            scale = invstd.reshape(shape) * (weight if weight is not None else 1)
            grads.append(_make(scale * (gy - mean_dy - xhat * mean_dy_xhat)))
        else:
            grads.append(None)
        # the affine parameters get this rank's gradient; DistributedDataParallel averages them
        if has_weight:
            grads.append(_make(sums[1].astype(gy.dtype)) if needs[len(grads)] else None)
        if has_bias:
            grads.append(_make(sums[0].astype(gy.dtype)) if needs[len(grads)] else None)
        return tuple(grads)
