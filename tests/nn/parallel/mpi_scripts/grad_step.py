"""One data-parallel gradient step. Usage: mpirun -n N python grad_step.py OUT_DIR N_SAMPLES

Each rank starts from a different random model (the broadcast must make them equal), computes
the loss on its shard, and saves its local and its all-reduced gradients to OUT_DIR/rank<r>.npz.
A parameter used on rank 0 only checks that a gradient missing on some ranks counts as zero."""
import os
import sys

import numpy as np
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.modules.module import Module
from nnlite.nn.parallel.distributed import DistributedDataParallel
from nnlite.nn.parameter import Parameter

from _common import TinyNet, loss_fn, make_data, shard

out_dir, n = sys.argv[1], int(sys.argv[2])
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


class Model(Module):
    def __init__(self):
        super().__init__()
        self.net = TinyNet()
        self.rank0_only = Parameter(nl.randn(5))

    def forward(self, x):
        return self.net(x)


nl.manual_seed(100 + rank)
model = Model()
model.net.running._data[:] = rank + 1.0
ddp = DistributedDataParallel(model)
assert ddp.rank == rank and ddp.world_size == size

saved = {}
for name, p in model.named_parameters():
    saved["init_" + name] = p._data.copy()
saved["init_running"] = model.net.running._data.copy()

x, y = make_data(n)
idx = shard(n, rank, size)
loss = loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx]))
if rank == 0:
    loss = loss + (model.rank0_only * nl.arange(1, 6).float()).sum()
loss.backward()
for name, p in model.named_parameters():
    if p.grad is not None:
        saved["local_" + name] = p.grad._data.copy()
ddp.allreduce_gradients()
for name, p in model.named_parameters():
    if p.grad is not None:
        saved["grad_" + name] = p.grad._data.copy()
        assert not p.grad.requires_grad
saved["shard"] = idx
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
print(f"rank {rank} done", flush=True)
