"""A parameter that takes no part in the loss. Usage: mpirun -n N python unused.py MODE

MODE "error": DistributedDataParallel without find_unused_parameters: the first backward ends
(no hang), the next forward raises PyTorch's error naming the parameter. MODE "find": with
find_unused_parameters=True three steps train normally, the unused parameter keeps no gradient
and the ranks stay identical. Each rank prints "unused <MODE> ok <rank>"."""

import sys

from _common import TinyNet, loss_fn, make_data, shard
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.parallel.distributed import DistributedDataParallel

mode = sys.argv[1]
comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(5)
net = TinyNet()  # its parameter "unused" is never used (index 4 among the trainable ones)
ddp = DistributedDataParallel(net, find_unused_parameters=(mode == "find"))
opt = nl.optim.SGD(ddp.parameters(), lr=0.1)
x, y = make_data(12)
idx = shard(12, rank, size)
if mode == "error":
    loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()  # returns: no rank waits forever
    opt.step()
    try:
        ddp(nl.tensor(x[idx]))
    except RuntimeError as ex:
        text = str(ex)
        assert text.startswith(
            "Expected to have finished reduction in the prior iteration before starting a new "
            "one. This error indicates that your module has parameters that were not used in "
            "producing loss. You can enable unused parameter detection by passing the keyword "
            "argument `find_unused_parameters=True`"
        ), text
        assert f"Parameter indices which did not receive grad for rank {rank}: 4" in text, text
        assert f"Parameters which did not receive grad for rank {rank}: unused" in text, text
    else:
        raise AssertionError("the second forward did not raise")
elif mode == "find":
    for _ in range(3):
        opt.zero_grad()
        loss_fn(ddp(nl.tensor(x[idx])), nl.tensor(y[idx])).backward()
        assert net.unused.grad is None and net.w1.grad is not None
        opt.step()
    assert ddp.parameters_in_sync()
else:
    raise SystemExit(f"unknown mode {mode}")
print(f"unused {mode} ok {rank}", flush=True)
