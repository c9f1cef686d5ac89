"""SyncBatchNorm against BatchNorm on the global batch. Usage: mpirun -n N python sync_bn.py OUT_DIR

BNNet converted with SyncBatchNorm.convert_sync_batchnorm, BN_STEPS SGD steps on shards of
BN_BATCH samples: saves each step's outputs (this rank's samples), the averaged gradients of the
first step, the final parameters and running statistics, and an eval-mode output."""

import os
import sys

import numpy as np
from _common import BNNet, bn_data, loss_fn, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

out_dir = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(300 + rank)
model = nl.nn.SyncBatchNorm.convert_sync_batchnorm(BNNet())
assert type(model.bn).__name__ == "SyncBatchNorm"
ddp = DistributedDataParallel(model)
opt = nl.optim.SGD(ddp.parameters(), lr=0.1)
x, y, batches = bn_data()
saved = {}
for step, batch in enumerate(batches):
    idx = batch[shard(len(batch), rank, size)]
    opt.zero_grad()
    out = ddp(nl.tensor(x[idx]))
    saved[f"out{step}"] = out._data.copy()
    saved[f"idx{step}"] = idx
    loss_fn(out, nl.tensor(y[idx])).backward()
    if step == 0:
        saved.update({"grad_" + n: p.grad._data.copy() for n, p in model.named_parameters()})
    opt.step()
saved.update({"param_" + n: p._data.copy() for n, p in model.named_parameters()})
saved.update({"buffer_" + n: b._data.copy() for n, b in model.named_buffers()})
ddp.eval()
with nl.no_grad():
    saved["eval_out"] = ddp(nl.tensor(x[:4]))._data.copy()
np.savez(os.path.join(out_dir, f"rank{rank}.npz"), **saved)
print(f"rank {rank} done", flush=True)
