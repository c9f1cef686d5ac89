"""``nnlite.distributed``: ``torch.distributed``'s API on MPI (mpi4py over Open MPI).

The ranks are the processes of one MPI job, started in one of three ways:

* ``python -m nnlite.distributed.run --nproc-per-node=N script.py args`` (torchrun's flags);
* ``nnlite.multiprocessing.spawn(fn, args=(world_size,), nprocs=world_size)``;
* ``mpirun -n N python script.py``.

In each, the script calls ``init_process_group("gloo")`` (or ``"mpi"``, or no backend), then the
collectives (``all_reduce``, ``broadcast``, ``all_gather``, ...), ``DistributedDataParallel`` and
``DistributedSampler`` work on that group. Tensors are reduced in place; objects
(``all_gather_object``, ``broadcast_object_list``) travel as pickles. Importing this package never
loads MPI; ``init_process_group`` does. See docs/guides/distributed.md.

Example:
    >>> import nnlite.distributed as dist
    >>> dist.is_initialized()
    False
"""

from ._mpi import DistBackendError, abort_on_exception
from .collectives import (
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_reduce,
    barrier,
    broadcast,
    gather,
    irecv,
    isend,
    monitored_barrier,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    send,
)
from .object_collectives import (
    all_gather_object,
    broadcast_object_list,
    gather_object,
    scatter_object_list,
)
from .process_group import (
    Backend,
    GroupMember,
    ProcessGroup,
    default_pg_timeout,
    destroy_process_group,
    get_backend,
    get_default_backend_for_device,
    get_global_rank,
    get_group_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
)

__all__ = [
    "Backend",
    "DistBackendError",
    "GroupMember",
    "ProcessGroup",
    "ReduceOp",
    "Work",
    "abort_on_exception",
    "all_gather",
    "all_gather_into_tensor",
    "all_gather_object",
    "all_reduce",
    "barrier",
    "broadcast",
    "broadcast_object_list",
    "default_pg_timeout",
    "destroy_process_group",
    "gather",
    "gather_object",
    "get_backend",
    "get_default_backend_for_device",
    "get_global_rank",
    "get_group_rank",
    "get_process_group_ranks",
    "get_rank",
    "get_world_size",
    "group",
    "init_process_group",
    "irecv",
    "is_available",
    "is_gloo_available",
    "is_initialized",
    "is_mpi_available",
    "is_nccl_available",
    "is_torchelastic_launched",
    "isend",
    "monitored_barrier",
    "new_group",
    "recv",
    "reduce",
    "reduce_scatter",
    "reduce_scatter_tensor",
    "scatter",
    "scatter_object_list",
    "send",
]
