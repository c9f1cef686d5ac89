"""One rank raises while the others wait in a collective. Usage:
mpirun -n N python raise_on_rank.py MODE FAILING_RANK

MODE "ddp": the hook comes from building a DistributedDataParallel; the failing rank raises before
its backward, the waiting ranks are inside theirs (the all-reduce of a gradient bucket). MODE "helper": only abort_on_exception() was called; the waiting ranks are in
a Barrier. Without the abort the job would hang forever."""

import sys
import time

from _common import TinyNet, loss_fn, make_data
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel, abort_on_exception

mode, failing = sys.argv[1], int(sys.argv[2])
comm = MPI.COMM_WORLD
rank = comm.Get_rank()

if mode == "ddp":
    ddp = DistributedDataParallel(TinyNet(with_unused=False))
    x, y = make_data(4)
    loss = loss_fn(ddp(nl.tensor(x)), nl.tensor(y))
    if rank == failing:
        time.sleep(0.5)
        raise ValueError(f"deliberate failure on rank {rank}")
    loss.backward()
elif mode == "helper":
    abort_on_exception()
    if rank == failing:
        raise ValueError(f"deliberate failure on rank {rank}")
    comm.Barrier()
else:
    raise SystemExit(f"unknown mode {mode}")
print(f"rank {rank} passed the collective", flush=True)
