"""nnlite.models.LeNet (convolutions, pooling) under data parallelism.
Usage: mpirun -n N python lenet_steps.py OUT_DIR

Buckets of 0.02 MiB split LeNet's gradients into several all-reduces. Saves the averaged
gradients of the first step and the parameters after the SGD steps to OUT_DIR/rank<r>.npz."""

import os
import sys

import numpy as np
from _common import lenet_data, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

out_dir = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(200 + rank)
ddp = DistributedDataParallel(nl.models.LeNet(), bucket_cap_mb=0.02)
assert len(ddp.reducer.buckets) > 2
opt = nl.optim.SGD(ddp.parameters(), lr=0.05, momentum=0.9)
criterion = nl.nn.CrossEntropyLoss()
x, y, batches = lenet_data()
saved = {}
for step, batch in enumerate(batches):
    idx = batch[shard(len(batch), rank, size)]
    opt.zero_grad()
    criterion(ddp(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
    if step == 0:
        saved.update({"grad_" + n: p.grad._data.copy() for n, p in ddp.module.named_parameters()})
    opt.step()
assert ddp.parameters_in_sync()
saved.update({"param_" + n: p._data.copy() for n, p in ddp.module.named_parameters()})
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
print(f"rank {rank} done", flush=True)
