"""The rest of DistributedDataParallel's API under MPI. Usage: mpirun -n N python api.py

Asserts on every rank (a failed assert aborts the job with a non-zero status); each rank prints
"api ok <rank>" at the end."""

import numpy as np
from _common import TinyNet, loss_fn, make_data
from mpi4py import MPI

import nnlite as nl
from nnlite.nn.modules.module import Module
from nnlite.nn.parallel.distributed import DistributedDataParallel
from nnlite.nn.parameter import Parameter

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

nl.manual_seed(7 + rank)
net = TinyNet(with_unused=False)
ddp = DistributedDataParallel(net, comm=comm)
assert ddp.module is net
assert ddp.comm is comm and ddp.rank == rank and ddp.world_size == size
assert [id(p) for p in ddp.parameters()] == [id(p) for p in net.parameters()]
assert [n for n, _ in ddp.named_parameters()] == ["module." + n for n, _ in net.named_parameters()]
assert repr(ddp).startswith("DistributedDataParallel(\n  (module): TinyNet(")

# state_dict: PyTorch's "module." prefix; load_state_dict round trip
sd = ddp.state_dict()
assert list(sd) == ["module." + k for k in net.state_dict()], list(sd)
changed = {k: v * 0 + 3.0 for k, v in sd.items()}
ddp.load_state_dict(changed)
assert all(float(v._data.min()) == 3.0 == float(v._data.max()) for v in net.state_dict().values())
ddp.load_state_dict(sd)  # sd shares memory with the parameters: the values are 3 now too
try:
    ddp.load_state_dict(net.state_dict())
except RuntimeError as ex:
    assert "Missing key(s)" in str(ex) and "module.w1" in str(ex)
else:
    raise AssertionError("plain keys must not load into the wrapper strictly")

# train/eval reach the wrapped module; eval forwards use no communication
ddp.eval()
assert not ddp.training and not net.training
if rank == 0:  # only rank 0 runs extra eval forwards: must not hang
    for _ in range(3):
        ddp(nl.tensor(make_data(2)[0]))
ddp.train()
assert ddp.training and net.training

# broadcast_buffers: a training forward first copies rank 0's buffers
net.running._data[:] = 10.0 * (rank + 1)
x, y = make_data(4, seed=5)
ddp(nl.tensor(x))
expected = (
    0.9 * 10.0
)  # rank 0's value decayed by the running-mean update, plus this rank's batch term
h = (nl.tensor(x) @ net.w1.t() + net.b1).tanh() * net.scale
assert np.allclose(net.running._data, expected + 0.1 * h.mean(0)._data, atol=1e-5)

# zero_grad and a step with no gradient at all: grads stay None
ddp.zero_grad()
ddp.allreduce_gradients()
assert all(p.grad is None for p in ddp.parameters())

# freezing the same parameter everywhere changes the fused layout; it must still work
net.w1.requires_grad_(False)
loss_fn(ddp(nl.tensor(x)), nl.tensor(y)).backward()
ddp.allreduce_gradients()
assert net.w1.grad is None and net.w2.grad is not None
net.w1.requires_grad_(True)
ddp.zero_grad()

# allreduce for metrics
assert ddp.allreduce(1) == size and isinstance(ddp.allreduce(1), int)
assert ddp.allreduce(0.5) == 0.5 * size and isinstance(ddp.allreduce(0.5), float)
assert ddp.allreduce(float(rank), "max") == size - 1
assert ddp.allreduce(rank, op="min") == 0
assert ddp.allreduce(2, "mean") == 2.0
assert ddp.allreduce(True) == size
arr = np.arange(4, dtype=np.int64) * (rank + 1)
red = ddp.allreduce(arr)
assert red.dtype == np.int64 and red.tolist() == [i * size * (size + 1) // 2 for i in range(4)]
assert arr.tolist() == (np.arange(4) * (rank + 1)).tolist()  # input untouched
t = ddp.allreduce(nl.tensor([1.0, 2.0]))
assert isinstance(t, nl.Tensor) and t.tolist() == [size * 1.0, size * 2.0]
assert ddp.allreduce([1, 2], "sum") == [size, 2 * size]
assert ddp.allreduce(np.float32(1.5), "sum") == np.float32(1.5 * size)
assert ddp.allreduce(float(rank), MPI.SUM) == size * (size - 1) / 2
try:
    ddp.allreduce(1, "median")
except ValueError as ex:
    assert "op must be one of" in str(ex)
else:
    raise AssertionError("unknown op accepted")

# broadcast of small values, no pickle
assert ddp.broadcast(f"runs/run-{rank}") == "runs/run-0"
assert ddp.broadcast(rank + 10) == 10
assert ddp.broadcast(rank + 0.5) == 0.5
assert ddp.broadcast(None) is None
a = np.full((2, 3), rank, dtype=np.float64)
assert ddp.broadcast(a) is a and (a == 0).all()
b = ddp.broadcast(np.full(rank + 1, 7, dtype=np.int32))
assert b.tolist() == [7] and b.dtype == np.int32
ddp.barrier()

# parameters_in_sync detects a rank that drifted
assert ddp.parameters_in_sync()
if size > 1:
    if rank == size - 1:
        net.b2._data[0] += 1.0
    assert not ddp.parameters_in_sync()
    ddp.broadcast_parameters()
    assert ddp.parameters_in_sync(buffers=True)


# ranks with different models fail cleanly at construction, not in a mismatched collective
class Other(Module):
    def __init__(self, n):
        super().__init__()
        self.w = Parameter(nl.zeros(n))


if size > 1:
    try:
        DistributedDataParallel(Other(3 if rank == 0 else 4))
    except RuntimeError as ex:
        assert "differ between ranks" in str(ex), str(ex)
    else:
        raise AssertionError("different models accepted")

try:
    DistributedDataParallel(lambda x: x)
except TypeError:
    pass
else:
    raise AssertionError("a function accepted as module")
# PyTorch's constructor arguments: CPU-only device values, the deprecated broadcast_buffers
import warnings  # noqa: E402
from datetime import timedelta  # noqa: E402

other = DistributedDataParallel(
    TinyNet(with_unused=False),
    device_ids=["cpu"],
    output_device=nl.tensor(0.0).device,
    gradient_as_bucket_view=True,
    bucket_cap_mb=1,
    timeout=timedelta(minutes=2),
    process_group=comm,
    static_graph=False,
    init_sync=True,
)
assert other.device_ids is None and other.output_device is None and other.timeout == 120.0
assert other.broadcast_buffers and other.forward_sync_buffers and other.gradient_as_bucket_view
assert ddp.timeout == 1800.0  # PyTorch's default: 30 minutes
loss_fn(other(nl.tensor(x)), nl.tensor(y)).backward()
views = [p.grad._data for p in other.module.parameters() if p.grad is not None]
assert views and all(v.base is not None for v in views), (
    "gradient_as_bucket_view: .grad views the bucket"
)
for bad in ([0], ["cuda:0"]):
    try:
        DistributedDataParallel(TinyNet(with_unused=False), device_ids=bad)
    except ValueError as ex:
        assert "CPU" in str(ex), str(ex)
    else:
        raise AssertionError(f"device_ids={bad} accepted")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    quiet = DistributedDataParallel(TinyNet(with_unused=False), broadcast_buffers=False)
assert not quiet.forward_sync_buffers
assert [w.category for w in caught] == [
    FutureWarning
] and "`broadcast_buffers` is deprecated" in str(caught[0].message)
for bad_timeout in (0, -1.0, "10"):
    try:
        DistributedDataParallel(TinyNet(with_unused=False), timeout=bad_timeout)
    except (TypeError, ValueError) as ex:
        assert "timeout" in str(ex), str(ex)
    else:
        raise AssertionError(f"timeout={bad_timeout!r} accepted")
print(f"api ok {rank}", flush=True)
