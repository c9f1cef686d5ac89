"""Data-parallel training across processes and machines on MPI (mpi4py over Open MPI).

Every rank holds a full copy of the model and works on its own shard of each batch (see
``nnlite.data.DistributedSampler``). ``DistributedDataParallel`` keeps the copies equal, with
PyTorch's contract:

* at construction, rank 0's parameters and buffers are broadcast to every rank;
* ``loss.backward()`` on the output of ``ddp(x)`` averages the gradients over the ranks while it
  runs: gradients are grouped into buckets (``bucket_cap_mb``), each bucket is summed with a
  non-blocking MPI all-reduce as soon as its gradients are ready, and backward waits for the
  outstanding ones only at its end (``_reducer.py``). The optimizer then makes the same step
  everywhere. The training step is PyTorch's::

    ddp = nl.nn.parallel.DistributedDataParallel(model)
    opt = nl.optim.SGD(ddp.parameters(), lr=0.01)
    for x, y in loader:                      # loader with a DistributedSampler
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()        # gradients averaged over the ranks here
        opt.step()

and the script is launched with ``python -m nnlite.distributed.run --nproc-per-node=4
train_script.py`` or ``mpirun -n 4 python train_script.py`` (after ``init_process_group`` the
model uses its group; without it, ``MPI.COMM_WORLD``).

mpi4py is imported only when a ``DistributedDataParallel`` is built (or a helper here is called);
importing this module never needs it. Without mpi4py or an MPI library, building the class raises
an ImportError that says what to install: Open MPI from the system's packages (Debian/Ubuntu:
``apt-get install openmpi-bin libopenmpi-dev``) and ``pip install 'nnlite[mpi]'``.
"""

from __future__ import annotations

import hashlib
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeAlias, overload

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ...device import check_device
from ...distributed._mpi import (
    Group,
    abort_on_exception,
    allreduce_value,
    broadcast_value,
    check_same_on_all_ranks,
    import_mpi,
)
from ...distributed.process_group import GroupMember, ProcessGroup
from ..modules.module import Module
from ._reducer import Reducer, model_layout

if TYPE_CHECKING:
    from datetime import timedelta

    from mpi4py.MPI import Comm, Op

    from ..._typing import Array
    from ...device import device
    from ...distributed.process_group import NonGroupMember

#: a collective timeout as given: a ``timedelta``, seconds, or None (the group's, else 30 minutes)
_Timeout: TypeAlias = "timedelta | float | None"
#: a device as ``device_ids``/``output_device`` name it
_DeviceLike: TypeAlias = "int | str | device"

__all__ = ["DistributedDataParallel", "abort_on_exception"]


def _broadcast_arrays(group: Group, arrays: Sequence[Array], what: str, root: int = 0) -> int:
    """Broadcast the arrays from ``root`` into the arrays of the other ranks, in place, with one
    broadcast of their bytes. Returns the number of bytes sent."""
    sizes = [a.nbytes for a in arrays]
    total = sum(sizes)
    if total == 0:
        return 0
    buf = np.empty(total, dtype=np.uint8)
    if group.rank == root:
        offset = 0
        for a, n in zip(arrays, sizes):
            buf[offset : offset + n] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
            offset += n
    group.bcast(buf, what, root=root)
    if group.rank != root:
        offset = 0
        for a, n in zip(arrays, sizes):
            np.copyto(a, buf[offset : offset + n].view(a.dtype).reshape(a.shape))
            offset += n
    return total


def _check_cpu_devices(
    device_ids: Sequence[_DeviceLike] | None, output_device: _DeviceLike | None
) -> None:
    for d in list(device_ids or []) + ([] if output_device is None else [output_device]):
        try:
            check_device(d)
        except RuntimeError:
            raise ValueError(
                f"DistributedDataParallel device_ids and output_device must name the CPU (or be None): "
                f"nnlite runs on the CPU only, got device_ids {device_ids}, output_device "
                f"{output_device}"
            ) from None


@overload
def _communicator(
    process_group: ProcessGroup | Comm, timeout: _Timeout
) -> tuple[Comm, _Timeout]: ...
@overload
def _communicator(
    process_group: ProcessGroup | Comm | NonGroupMember | None, timeout: _Timeout
) -> tuple[Comm | None, _Timeout]: ...
def _communicator(
    process_group: ProcessGroup | Comm | NonGroupMember | None, timeout: _Timeout
) -> tuple[Comm | None, _Timeout]:
    """(mpi4py communicator or None, timeout) for DDP: a ``nnlite.distributed`` ProcessGroup
    gives its communicator and timeout; ``None`` the default group once ``init_process_group``
    ran; an mpi4py communicator stays."""
    if process_group is None or process_group is GroupMember.WORLD:
        if GroupMember.WORLD is None:
            return None, timeout
        process_group = GroupMember.WORLD
    if isinstance(process_group, ProcessGroup):
        return process_group.comm, process_group.timeout if timeout is None else timeout
    if process_group == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("DistributedDataParallel: this rank is not a member of process_group")
    return process_group, timeout


class DistributedDataParallel(Module):
    """Synchronous data parallelism over MPI ranks, as ``torch.nn.parallel.DistributedDataParallel``.

    Args:
        module (Module): the model; every rank must build the same architecture.
        device_ids, output_device: accepted for PyTorch scripts; only ``None``, ``"cpu"`` or
            ``nl.device("cpu")`` values (nnlite runs on the CPU).
        dim (int): accepted, unused (one device per rank).
        broadcast_buffers (bool): deprecated in PyTorch 2.13 in favour of ``forward_sync_buffers``
            (a FutureWarning says so); ``False`` also leaves buffers out of the broadcast at
            construction. Default ``None`` (= ``True``).
        init_sync (bool): broadcast rank 0's parameters and buffers at construction (default ``True``).
        process_group: a ``nnlite.distributed`` process group or an mpi4py communicator (default:
            the group of ``init_process_group``, else ``MPI.COMM_WORLD``); ``comm`` is the same.
        bucket_cap_mb (float): bucket size in MiB (default ``None``: 25 MiB, with a 1 MiB first
            bucket so that the first all-reduce starts early, as PyTorch).
        find_unused_parameters (bool): after each forward, walk the autograd graph from the outputs
            and treat parameters it does not reach as ready (zero on this rank). Without it, a
            parameter that gets no gradient leaves its bucket unreduced and the next forward raises
            PyTorch's "Expected to have finished reduction in the prior iteration" error.
        check_reduction (bool): accepted, unused (deprecated in PyTorch).
        gradient_as_bucket_view (bool): the averaged ``.grad`` tensors are views into the bucket
            buffers instead of copies (saves memory and a copy; the buffers are reused next step).
        static_graph (bool): accepted; the graph is handled as dynamic (same results).
        forward_sync_buffers (bool): before every forward that averages gradients (training mode,
            grad enabled, outside ``no_sync``), copy rank 0's buffers (BatchNorm running
            statistics) to all ranks, in one broadcast. Default ``None`` (= ``True``).
        comm: an mpi4py communicator (nnlite's name for ``process_group``).
        timeout (datetime.timedelta or float seconds): how long any collective waits for the other
            ranks (default: the process group's timeout, else 30 minutes, as PyTorch's). After it, the waiting rank raises
            ``DistBackendError`` (a RuntimeError) naming the operation, e.g. "allreduce of gradient
            bucket 2 timed out after 3.0 s", and the job is aborted (:func:`abort_on_exception`).

    After ``loss.backward()`` on an output of ``ddp(...)``, every trainable parameter's ``.grad``
    is the average of the ranks' gradients (the sum over the ranks divided by the world size; a
    gradient missing on a rank counts as zero there; ``None`` on every rank stays ``None``).
    :meth:`allreduce_gradients` is the explicit form for custom loops; after a synchronised
    backward it does nothing, so calling both never averages twice. Inside :meth:`no_sync`
    backward accumulates local gradients; the next synchronised backward averages their sum.

    At construction the ranks check that their models have the same parameter names, shapes,
    dtypes and ``requires_grad`` flags, rank 0's state is broadcast (in place: the ``Parameter``
    objects stay, so an optimizer built before or after sees them), ``SyncBatchNorm`` layers
    inside get a communicator of their own with the same timeout, and
    :func:`abort_on_exception` is installed so that an uncaught exception on one rank ends the
    whole job instead of hanging it.

    Every rank must run the same number of training forwards and backwards (a
    ``DistributedSampler`` gives every rank the same number of batches). Forwards under
    ``nl.no_grad()`` or in ``eval()`` mode communicate nothing, so ranks may evaluate different
    numbers of batches.

    ``ddp(x)`` runs ``ddp.module(x)``; ``state_dict()`` keys carry the ``module.`` prefix, as in
    PyTorch; ``parameters()``, ``train()``, ``eval()``, ``zero_grad()`` work on the wrapped module.

    Raises:
        ImportError: mpi4py or the MPI library is missing (the message says what to install).

    Example (launched with ``mpirun -n 2 python script.py``):
        >>> ddp = nl.nn.parallel.DistributedDataParallel(model)  # doctest: +SKIP
        >>> loss_fn(ddp(x_shard), y_shard).backward()      # averaged over the ranks  # doctest: +SKIP
        >>> opt.step()  # doctest: +SKIP
        >>> correct = ddp.allreduce(correct_on_this_rank)   # sum over the ranks  # doctest: +SKIP
    """

    def __init__(
        self,
        module: Module,
        device_ids: Sequence[_DeviceLike] | None = None,
        output_device: _DeviceLike | None = None,
        dim: int = 0,
        broadcast_buffers: bool | None = None,
        init_sync: bool = True,
        process_group: ProcessGroup | Comm | NonGroupMember | None = None,
        bucket_cap_mb: float | None = None,
        find_unused_parameters: bool = False,
        check_reduction: bool = False,
        gradient_as_bucket_view: bool = False,
        static_graph: bool = False,
        forward_sync_buffers: bool | None = None,
        *,
        comm: Comm | None = None,
        timeout: _Timeout = None,
    ) -> None:
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(
                f"DistributedDataParallel expects an nnlite.nn.Module, got {type(module).__name__}"
            )
        _check_cpu_devices(device_ids, output_device)
        MPI = import_mpi("DistributedDataParallel")
        if comm is not None and process_group is not None and comm is not process_group:
            raise ValueError(
                "DistributedDataParallel: pass the communicator as process_group or comm, not both"
            )
        comm, timeout = _communicator(comm if comm is not None else process_group, timeout)
        if comm is None:
            comm = MPI.COMM_WORLD
        if broadcast_buffers is not None:
            warnings.warn(
                "`broadcast_buffers` is deprecated. Use `forward_sync_buffers` instead. IMPORTANT: unlike "
                "`broadcast_buffers=False`, `forward_sync_buffers=False` still syncs buffers at init. If you "
                "rely on buffers NOT being synced at init (e.g. rank-local buffers), keep using "
                "`broadcast_buffers=False` until `init_sync_buffers` is available."
                if forward_sync_buffers is None
                else "Both `broadcast_buffers` and `forward_sync_buffers` were specified. `broadcast_buffers` "
                "is deprecated and its value is ignored when `forward_sync_buffers` is provided.",
                FutureWarning,
                stacklevel=2,
            )
        if forward_sync_buffers is not None:
            self.forward_sync_buffers, init_sync_buffers = bool(forward_sync_buffers), True
        else:
            self.forward_sync_buffers = init_sync_buffers = broadcast_buffers is None or bool(
                broadcast_buffers
            )
        self.module = module
        self.comm: Comm = comm
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)
        self.require_backward_grad_sync = True
        self._MPI = MPI
        self._group = Group(MPI, comm, timeout)
        abort_on_exception()
        if init_sync:
            check_same_on_all_ranks(self._group, model_layout(module), "parameters and buffers")
            self.broadcast_parameters(buffers=init_sync_buffers)
        self._give_sync_batchnorms_a_group()
        self.reducer = Reducer(
            module,
            self._group,
            bucket_cap_mb,
            self.find_unused_parameters,
            self.gradient_as_bucket_view,
        )

    def _give_sync_batchnorms_a_group(self) -> None:
        from ..modules.sync_batchnorm import SyncBatchNorm

        layers = [m for m in self.module.modules() if isinstance(m, SyncBatchNorm)]
        if not layers:
            return
        # a duplicate of the communicator: their statistics all-reduces can never be matched with
        # a gradient bucket's all-reduce, whatever order backward runs them in
        shared = Group(self._MPI, self.comm.Dup(), self._group.timeout)
        for m in layers:
            m._group = (
                shared
                if m.process_group is None
                else Group(self._MPI, _communicator(m.process_group, None)[0], self._group.timeout)
            )

    # ------------------------------------------------------------------ identity
    @property
    def rank(self) -> int:
        """This process's rank in ``comm`` (0 .. world_size - 1)."""
        return self._group.rank

    @property
    def world_size(self) -> int:
        """The number of ranks in ``comm``."""
        return self._group.size

    @property
    def broadcast_buffers(self) -> bool:
        """Same as ``forward_sync_buffers`` (PyTorch's older name)."""
        return self.forward_sync_buffers

    @broadcast_buffers.setter
    def broadcast_buffers(self, value: bool) -> None:
        self.forward_sync_buffers = bool(value)

    @property
    def timeout(self) -> float:
        """The collectives' timeout in seconds."""
        return self._group.timeout

    # ------------------------------------------------------------------ forward
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        sync_grads = is_grad_enabled() and self.require_backward_grad_sync
        if sync_grads:
            self.reducer.ensure_prior_reduction_finished()
            self.reducer.refresh()
            if self.module.training and self.forward_sync_buffers and self._group.size > 1:
                self._sync_buffers()
        output = self.module(*inputs, **kwargs)
        if sync_grads:
            self.reducer.prepare_for_backward(output)
        return output

    @contextmanager
    def no_sync(self) -> Iterator[None]:
        """Within this context, backward accumulates gradients locally without averaging them.

        The first synchronised backward after it averages the accumulated sum. Every rank must
        run the same number of forward-backward passes inside and outside.

        Examples:
            >>> with ddp.no_sync():  # doctest: +SKIP
            ...     for x, y in micro_batches[:-1]:
            ...         loss_fn(ddp(x), y).backward()    # local accumulation
            >>> x, y = micro_batches[-1]  # doctest: +SKIP
            >>> loss_fn(ddp(x), y).backward()    # averaged  # doctest: +SKIP
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def _sync_buffers(self) -> None:
        buffers = [b._data for b in self.module.buffers()]
        if buffers:
            _broadcast_arrays(self._group, buffers, "broadcast of the module's buffers")

    def broadcast_parameters(self, root: int = 0, buffers: bool = True) -> None:
        """Copy rank ``root``'s parameters (and buffers) to all ranks, in place (one broadcast).

        Done at construction; call it again after loading a checkpoint on one rank only.
        """
        arrays = [p._data for p in self.module.parameters()]
        if buffers:
            arrays += [b._data for b in self.module.buffers()]
        _broadcast_arrays(self._group, arrays, "broadcast of the parameters", root)

    # ------------------------------------------------------------------ gradients
    def allreduce_gradients(self) -> None:
        """Average the gradients of the trainable parameters over all ranks, if not done already.

        The explicit form, for custom loops (e.g. gradients accumulated by backward passes that
        did not start from this wrapper's forward, or inside :meth:`no_sync`). Gradients that a
        synchronised backward already averaged, and that have not changed since, are left as they
        are: calling it after ``loss.backward()`` costs nothing and never averages twice. Every
        rank must call it at the same point. A gradient missing on a rank counts as zero there;
        ``None`` on every rank stays ``None``.
        """
        self.reducer.allreduce_remaining()

    # ------------------------------------------------------------------ helpers for the loop
    def allreduce(self, value: Any, op: str | Op = "sum") -> Any:
        """Reduce a metric over all ranks; every rank gets the result.

        ``value`` is a Python number, a numpy array or scalar, a Tensor, or a list of numbers;
        ``op`` is ``"sum"`` (default), ``"mean"``, ``"max"``, ``"min"``, ``"prod"`` or an
        ``MPI.Op``. Floats are summed in float64. The result has the type of ``value`` (a list
        comes back as a list).

        Examples:
            >>> correct = ddp.allreduce(int((pred == y).sum()))  # doctest: +SKIP
            >>> per_class = ddp.allreduce(np.bincount(y, minlength=10))  # doctest: +SKIP
        """
        return allreduce_value(self._group, value, op)

    def broadcast(self, value: Any, root: int = 0) -> Any:
        """Rank ``root``'s ``value`` (str, bytes, number, bool, None, numpy array or Tensor) on
        every rank, e.g. the run directory that rank 0 chose. Every rank must call it."""
        return broadcast_value(self._group, value, root)

    def barrier(self) -> None:
        """Wait until every rank gets here."""
        self._group.barrier()

    def parameters_in_sync(self, buffers: bool = False) -> bool:
        """Whether all ranks hold bit-identical parameters (and buffers, with ``buffers=True``).

        One Allgather of a digest; every rank must call it. Buffers differ after a training step
        unless ``forward_sync_buffers`` or ``SyncBatchNorm`` keep them equal: BatchNorm updates its
        running statistics from each rank's own shard.
        """
        h = hashlib.sha256()
        tensors = list(self.module.parameters()) + (list(self.module.buffers()) if buffers else [])
        for t in tensors:
            h.update(np.ascontiguousarray(t._data).tobytes())
        digest = np.frombuffer(h.digest(), dtype=np.uint8).copy()
        gathered = np.empty((self._group.size, digest.size), dtype=np.uint8)
        self._group.allgather(digest, gathered, "parameters_in_sync")
        return bool((gathered == gathered[0]).all())
