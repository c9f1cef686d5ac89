"""Gradient accumulation with no_sync(). Usage: mpirun -n N python accumulate.py OUT_DIR

NO_SYNC_MICRO micro-batches: all but the last backward inside ``ddp.no_sync()`` (local sums), the
last outside (averages the accumulated sum). Saves the gradients after the local backwards and
after the last one to OUT_DIR/rank<r>.npz."""

import os
import sys

import numpy as np
from _common import TinyNet, loss_fn, no_sync_batches, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

out_dir = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(100 + rank)
ddp = DistributedDataParallel(TinyNet(with_unused=False))
x, y, batches = no_sync_batches()
saved = {}
with ddp.no_sync():
    for batch in batches[:-1]:
        idx = batch[shard(len(batch), rank, size)]
        loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
saved.update(
    {
        "local_" + n: p.grad._data.copy()
        for n, p in ddp.module.named_parameters()
        if p.grad is not None
    }
)
idx = batches[-1][shard(len(batches[-1]), rank, size)]
loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
saved.update(
    {
        "grad_" + n: p.grad._data.copy()
        for n, p in ddp.module.named_parameters()
        if p.grad is not None
    }
)
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
print(f"rank {rank} done", flush=True)
