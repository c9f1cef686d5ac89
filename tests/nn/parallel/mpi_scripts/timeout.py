"""A rank that sleeps past the timeout. Usage: mpirun -n N python timeout.py SECONDS

Every rank builds DistributedDataParallel(timeout=SECONDS) and runs a forward; the last rank then
sleeps far longer than the timeout before its backward. The others time out in the all-reduce of
the first gradient bucket, raise, and the job is aborted long before the sleeper wakes up."""

import sys
import time
from datetime import timedelta

from _common import TinyNet, loss_fn, make_data
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

seconds = float(sys.argv[1])
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

ddp = DistributedDataParallel(TinyNet(with_unused=False), timeout=timedelta(seconds=seconds))
assert ddp.timeout == seconds
x, y = make_data(4)
loss = loss_fn(ddp(nl.tensor(x)), nl.tensor(y))
if rank == size - 1:
    time.sleep(60)
loss.backward()
print(f"rank {rank} passed the backward", flush=True)
