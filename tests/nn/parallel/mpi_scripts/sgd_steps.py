"""SGD_STEPS data-parallel SGD steps written as in PyTorch: zero_grad, backward, step.
Usage: mpirun -n N python sgd_steps.py OUT_DIR [explicit]

With ``explicit`` the loop also calls ``allreduce_gradients()`` after backward (as custom loops
and the trainer do): the result must be the same, never averaged twice. After every step the
ranks compare digests of their parameter bytes (they must be identical); the final parameters go
to OUT_DIR/rank<r>.npz."""

import os
import sys

import numpy as np
from _common import SGD_KW, TinyNet, loss_fn, param_digest, sgd_batches, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

out_dir = sys.argv[1]
explicit = len(sys.argv) > 2 and sys.argv[2] == "explicit"
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(100 + rank)
ddp = DistributedDataParallel(TinyNet(with_unused=False))
opt = nl.optim.SGD(ddp.parameters(), **SGD_KW)
x, y, batches = sgd_batches()
digests = []
for step, batch in enumerate(batches):
    idx = batch[shard(len(batch), rank, size)]
    opt.zero_grad()
    loss = loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx]))
    loss.backward()
    if explicit:
        ddp.allreduce_gradients()
    opt.step()
    mine = param_digest(ddp.module)
    every = comm.allgather(mine)
    if len(set(every)) != 1:
        raise AssertionError(f"step {step}: parameters differ between ranks: {every}")
    assert ddp.parameters_in_sync()
    digests.append(mine)
params = {name: p._data.copy() for name, p in ddp.module.named_parameters()}
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), digests=np.array(digests), **params)
print(f"rank {rank} done", flush=True)
