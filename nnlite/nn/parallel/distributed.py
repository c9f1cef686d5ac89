"""Data-parallel training across processes and machines on MPI (mpi4py over Open MPI).

Every rank holds a full copy of the model and works on its own shard of each batch (see
``nnlite.data.DistributedSampler``). ``DistributedDataParallel`` keeps the copies equal:

* at construction, rank 0's parameters and buffers are broadcast to every rank;
* after ``loss.backward()``, ``ddp.allreduce_gradients()`` averages the gradients over the ranks
  with one ``Allreduce`` over one fused buffer, so that the optimizer makes the same step
  everywhere.

The gradient synchronisation is an explicit call, not a hook hidden in backward: it runs once
per step however many backward passes accumulated into ``.grad``, it sees parameters that took no
part in this step's graph, and it cannot fire twice or not at all when a graph is retained or
partly reused. The training step is::

    ddp = nl.nn.parallel.DistributedDataParallel(model)
    opt = nl.optim.SGD(ddp.parameters(), lr=0.01)
    for x, y in loader:                      # loader with a DistributedSampler
        opt.zero_grad()
        loss_fn(ddp(x), y).backward()
        ddp.allreduce_gradients()            # every rank, every step
        opt.step()

and the script is launched with ``mpirun -n 4 python train_script.py``.

mpi4py is imported only when a ``DistributedDataParallel`` is built (or a helper here is called);
importing this module never needs it. Without mpi4py or an MPI library, building the class raises
an ImportError that says what to install: Open MPI from the system's packages (Debian/Ubuntu:
``apt-get install openmpi-bin libopenmpi-dev``) and ``pip install 'nnlite[mpi]'``.
"""
import hashlib
import warnings

import numpy as np

from ...autograd.grad_mode import is_grad_enabled
from ...autograd.tensor import Tensor
from ..modules.module import Module
from ._mpi import (abort_on_exception, allreduce_value, broadcast_value, check_same_on_all_ranks,
                   import_mpi)

__all__ = ["DistributedDataParallel", "abort_on_exception"]

# training forwards without any allreduce_gradients() call after which a warning says it is missing
_FORGOTTEN_SYNC_FORWARDS = 100


def _layout(module):
    """A text describing the parameters and buffers: equal on all ranks iff the models match."""
    lines = [f"P {name} {tuple(p._data.shape)} {p._data.dtype.str} {bool(p._requires_grad)}"
             for name, p in module.named_parameters()]
    lines += [f"B {name} {tuple(b._data.shape)} {b._data.dtype.str}" for name, b in module.named_buffers()]
    return "\n".join(lines)


def _broadcast_arrays(comm, arrays, root=0):
    """Broadcast the arrays from ``root`` into the arrays of the other ranks, in place, with one
    ``Bcast`` of their bytes. Returns the number of bytes sent."""
    sizes = [a.nbytes for a in arrays]
    total = sum(sizes)
    if total == 0:
        return 0
    buf = np.empty(total, dtype=np.uint8)
    rank = comm.Get_rank()
    if rank == root:
        offset = 0
        for a, n in zip(arrays, sizes):
            buf[offset:offset + n] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
            offset += n
    comm.Bcast(buf, root=root)
    if rank != root:
        offset = 0
        for a, n in zip(arrays, sizes):
            np.copyto(a, buf[offset:offset + n].view(a.dtype).reshape(a.shape))
            offset += n
    return total


class DistributedDataParallel(Module):
    """Synchronous data parallelism over MPI ranks, as ``torch.nn.parallel.DistributedDataParallel``.

    Args:
        module (Module): the model; every rank must build the same architecture.
        comm: an mpi4py communicator (default ``MPI.COMM_WORLD``).
        broadcast_buffers (bool): before every forward in training mode, copy rank 0's buffers
            (BatchNorm running statistics) to all ranks, as PyTorch does by default (one
            ``Bcast``). Default ``True``.

    At construction the parameters and buffers of rank 0 are broadcast to all ranks (in place:
    the ``Parameter`` objects and their arrays stay, so an optimizer built before or after sees
    them), the ranks check that their models have the same parameter names, shapes, dtypes and
    ``requires_grad`` flags, and :func:`abort_on_exception` is installed so that an uncaught
    exception on one rank ends the whole job instead of hanging it.

    Call :meth:`allreduce_gradients` after ``backward`` on every rank: the gradients of the
    parameters that require grad, in registration order, are packed into one float32 buffer (a
    wider float type if the model has one), summed with a single ``Allreduce`` and divided by the
    world size. A parameter whose ``.grad`` is ``None`` on a rank counts as zero there; it stays
    ``None`` only if it is ``None`` on every rank. Frozen parameters (``requires_grad=False``)
    are left out.

    Every rank must run the same number of training forwards and :meth:`allreduce_gradients`
    calls (a ``DistributedSampler`` gives every rank the same number of batches). In ``eval()``
    mode the forward communicates nothing, so ranks may evaluate different numbers of batches.
    If 100 training forwards pass without any :meth:`allreduce_gradients` call, a RuntimeWarning
    says that the call is missing.

    ``ddp(x)`` runs ``ddp.module(x)``; ``state_dict()`` keys carry the ``module.`` prefix, as in
    PyTorch (``ddp.module.state_dict()`` gives the plain keys); ``parameters()``, ``train()``,
    ``eval()``, ``zero_grad()`` work on the wrapped module.

    Raises:
        ImportError: mpi4py or the MPI library is missing (the message says what to install).

    Example (launched with ``mpirun -n 2 python script.py``):
        >>> ddp = nl.nn.parallel.DistributedDataParallel(model)
        >>> loss_fn(ddp(x_shard), y_shard).backward()
        >>> ddp.allreduce_gradients()
        >>> opt.step()
        >>> correct = ddp.allreduce(correct_on_this_rank)          # sum over the ranks
    """

    def __init__(self, module, comm=None, broadcast_buffers=True):
        super().__init__()
        MPI = import_mpi("DistributedDataParallel")
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel expects an nnlite.nn.Module, got {type(module).__name__}")
        if comm is None:
            comm = MPI.COMM_WORLD
        self.module = module
        self.comm = comm
        self.broadcast_buffers = bool(broadcast_buffers)
        self._MPI = MPI
        self._grad_layout = None
        self._forwards_before_first_sync = 0
        self._synced = False
        abort_on_exception()
        check_same_on_all_ranks(MPI, comm, _layout(module), "parameters and buffers")
        self.broadcast_parameters()

    # ------------------------------------------------------------------ identity
    @property
    def rank(self):
        """This process's rank in ``comm`` (0 .. world_size - 1)."""
        return self.comm.Get_rank()

    @property
    def world_size(self):
        """The number of ranks in ``comm``."""
        return self.comm.Get_size()

    # ------------------------------------------------------------------ forward
    def forward(self, *args, **kwargs):
        if self.module.training:
            if self.broadcast_buffers and self.comm.Get_size() > 1:
                self._sync_buffers()
            if not self._synced and is_grad_enabled():
                self._forwards_before_first_sync += 1
                if self._forwards_before_first_sync == _FORGOTTEN_SYNC_FORWARDS:
                    warnings.warn(f"DistributedDataParallel: {_FORGOTTEN_SYNC_FORWARDS} training forwards and "
                                  "allreduce_gradients() was never called: the ranks' gradients are not averaged "
                                  "and their parameters drift apart. Call ddp.allreduce_gradients() after "
                                  "loss.backward() and before optimizer.step().", RuntimeWarning, stacklevel=2)
        return self.module(*args, **kwargs)

    def _sync_buffers(self):
        buffers = [b._data for b in self.module.buffers()]
        if buffers:
            _broadcast_arrays(self.comm, buffers)

    def broadcast_parameters(self, root=0):
        """Copy rank ``root``'s parameters and buffers to all ranks, in place (one ``Bcast``).

        Done at construction; call it again after loading a checkpoint on one rank only.
        """
        arrays = [p._data for p in self.module.parameters()] + [b._data for b in self.module.buffers()]
        _broadcast_arrays(self.comm, arrays, root)

    # ------------------------------------------------------------------ gradients
    def _trainable(self):
        params = [p for p in self.module.parameters() if p._requires_grad]
        key = tuple((id(p), p._data.shape, p._data.dtype.str) for p in params)
        if key != self._grad_layout:
            # the set of trainable parameters changed (first call, or freeze/unfreeze): make sure
            # every rank agrees before sizing the collective on it
            check_same_on_all_ranks(self._MPI, self.comm, _layout(self.module), "trainable parameters")
            self._grad_layout = key
        return params

    def allreduce_gradients(self):
        """Average the gradients of the trainable parameters over all ranks, in one ``Allreduce``.

        Call it on every rank after ``backward()`` (after the last one, when gradients are
        accumulated over several batches) and before ``optimizer.step()``. Afterwards every rank
        holds the same ``.grad`` tensors: the sum over the ranks divided by the world size, a
        missing gradient counting as zero. A parameter whose gradient is ``None`` on every rank
        keeps ``None`` (the optimizer skips it, as it would in one process). The new ``.grad``
        tensors are fresh (they do not require grad and share no memory with the old ones).
        """
        self._synced = True
        params = self._trainable()
        if not params:
            return
        size = self.comm.Get_size()
        dtype = np.result_type(np.float32, *[p._data.dtype for p in params])
        counts = [p._data.size for p in params]
        n = sum(counts)
        # the gradients, then one "has a gradient" flag per parameter: the flags are summed by the
        # same Allreduce and tell which gradients are None on every rank
        buf = np.empty(n + len(params), dtype=dtype)
        offset = 0
        for i, (p, c) in enumerate(zip(params, counts)):
            g = p._grad
            if g is None:
                buf[offset:offset + c] = 0
                buf[n + i] = 0
            else:
                buf[offset:offset + c] = g._data.reshape(-1)
                buf[n + i] = 1
            offset += c
        if size > 1:
            self.comm.Allreduce(self._MPI.IN_PLACE, buf, op=self._MPI.SUM)
            np.divide(buf[:n], size, out=buf[:n])
        offset = 0
        for i, (p, c) in enumerate(zip(params, counts)):
            if buf[n + i] == 0:
                p._grad = None
            else:
                g = buf[offset:offset + c].reshape(p._data.shape)
                if g.dtype != p._data.dtype:
                    g = g.astype(p._data.dtype)
                p._grad = Tensor(g)
            offset += c

    # ------------------------------------------------------------------ helpers for the loop
    def allreduce(self, value, op="sum"):
        """Reduce a metric over all ranks; every rank gets the result.

        ``value`` is a Python number, a numpy array or scalar, a Tensor, or a list of numbers;
        ``op`` is ``"sum"`` (default), ``"mean"``, ``"max"``, ``"min"``, ``"prod"`` or an
        ``MPI.Op``. Floats are summed in float64. The result has the type of ``value`` (a list
        comes back as a list).

        Example:
            >>> correct = ddp.allreduce(int((pred == y).sum()))
            >>> per_class = ddp.allreduce(np.bincount(y, minlength=10))
        """
        return allreduce_value(self._MPI, self.comm, value, op)

    def broadcast(self, value, root=0):
        """Rank ``root``'s ``value`` (str, bytes, number, bool, None, numpy array or Tensor) on
        every rank, e.g. the run directory that rank 0 chose. Every rank must call it."""
        return broadcast_value(self._MPI, self.comm, value, root)

    def barrier(self):
        """Wait until every rank gets here."""
        self.comm.Barrier()

    def parameters_in_sync(self, buffers=False):
        """Whether all ranks hold bit-identical parameters (and buffers, with ``buffers=True``).

        One Allgather of a digest; every rank must call it. A cheap check for a training loop
        that forgot :meth:`allreduce_gradients`. Buffers normally differ after a training step:
        BatchNorm updates its running statistics from each rank's own shard.
        """
        h = hashlib.sha256()
        tensors = list(self.module.parameters()) + (list(self.module.buffers()) if buffers else [])
        for t in tensors:
            h.update(np.ascontiguousarray(t._data).tobytes())
        digest = np.frombuffer(h.digest(), dtype=np.uint8).copy()
        gathered = np.empty((self.comm.Get_size(), digest.size), dtype=np.uint8)
        self.comm.Allgather(digest, gathered)
        return bool((gathered == gathered[0]).all())

