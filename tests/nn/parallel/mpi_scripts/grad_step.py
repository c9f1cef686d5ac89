"""One data-parallel gradient step. Usage: mpirun -n N python grad_step.py OUT_DIR N_SAMPLES

Each rank starts from a different random model (the broadcast must make them equal). It first
computes its local gradients inside no_sync() (nothing averaged), then the same step again: the
plain ``loss.backward()`` must average them; ``allreduce_gradients()`` afterwards must change
nothing. A parameter used in forward on rank 0 only checks that a gradient missing on some ranks
counts as zero (find_unused_parameters=True, which also handles TinyNet's unused parameter).
Saves to OUT_DIR/rank<r>.npz."""

import os
import sys

import numpy as np
from _common import TinyNet, loss_fn, make_data, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.modules.module import Module
from nnlite.nn.parallel.distributed import DistributedDataParallel
from nnlite.nn.parameter import Parameter

out_dir, n = sys.argv[1], int(sys.argv[2])
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()


class Model(Module):
    def __init__(self):
        super().__init__()
        self.net = TinyNet()
        self.rank0_only = Parameter(nl.randn(5))

    def forward(self, x):
        # the extra loss term exists on rank 0 only: elsewhere rank0_only gets no gradient
        extra = (self.rank0_only * nl.arange(1, 6).float()).sum() if rank == 0 else None
        return self.net(x), extra


def step_loss(x, y):
    out, extra = ddp(nl.tensor(x))
    loss = loss_fn(out, nl.tensor(y))
    return loss if extra is None else loss + extra


nl.manual_seed(100 + rank)
model = Model()
model.net.running._data[:] = rank + 1.0
ddp = DistributedDataParallel(model, find_unused_parameters=True, bucket_cap_mb=0.0002)
assert ddp.rank == rank and ddp.world_size == size
assert len(ddp.reducer.buckets) > 1, "the small bucket_cap_mb must give several buckets"

saved = {}
for name, p in model.named_parameters():
    saved["init_" + name] = p._data.copy()
saved["init_running"] = model.net.running._data.copy()

x, y = make_data(n)
idx = shard(n, rank, size)
with ddp.no_sync():
    step_loss(x[idx], y[idx]).backward()
for name, p in model.named_parameters():
    if p.grad is not None:
        saved["local_" + name] = p.grad._data.copy()
ddp.zero_grad()
step_loss(x[idx], y[idx]).backward()
for name, p in model.named_parameters():
    if p.grad is not None:
        saved["grad_" + name] = p.grad._data.copy()
        assert not p.grad.requires_grad
ddp.allreduce_gradients()  # already averaged: must not average again
for name, p in model.named_parameters():
    if p.grad is not None:
        assert p.grad._data.tobytes() == saved["grad_" + name].tobytes(), f"{name} averaged twice"
saved["shard"] = idx
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
print(f"rank {rank} done", flush=True)
