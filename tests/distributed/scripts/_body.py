"""What every launch of the test scripts runs on each rank, written as PyTorch's tutorials write
it: every collective on values derived from the rank, one DistributedDataParallel step on a
DistributedSampler shard, a few SGD steps; the results go to OUT/rank{R}.npz and OUT/rank{R}.json.
tests/distributed/test_distributed_launch.py checks them against what the ranks sent."""

import json
import os
import sys
from pathlib import Path

import numpy as np

import nnlite as nl
import nnlite.distributed as dist
import nnlite.nn as nn
from nnlite.data import DataLoader, DistributedSampler, TensorDataset
from nnlite.nn.parallel import DistributedDataParallel as DDP

N_SAMPLES, N_IN, N_OUT = 12, 4, 2  # 12 rows: an equal shard for 2 and for 3 ranks
SGD_STEPS, LR = 5, 0.1


def make_data():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((N_SAMPLES, N_IN)).astype(np.float32)
    y = rng.standard_normal((N_SAMPLES, N_OUT)).astype(np.float32)
    return x, y


def make_model(seed):
    nl.manual_seed(seed)
    return nn.Sequential(nn.Linear(N_IN, 3), nn.Tanh(), nn.Linear(3, N_OUT))


def collectives(rank, world_size, arrays, objects):
    t = nl.tensor([rank + 1.0, 2.0 * (rank + 1)])
    dist.all_reduce(t)
    arrays["all_reduce_sum"] = t.numpy()
    for op in ("AVG", "MAX", "MIN", "PRODUCT"):
        t = nl.tensor([rank + 2.0], dtype=nl.float64)
        dist.all_reduce(t, op=getattr(dist.ReduceOp, op))
        arrays[f"all_reduce_{op}"] = t.numpy()
    t = nl.tensor([rank, 10 * rank])
    dist.all_reduce(t)
    arrays["all_reduce_int"] = t.numpy()
    t = nl.tensor([rank == 0, False])
    dist.all_reduce(t)
    arrays["all_reduce_bool"] = t.numpy()

    t = nl.tensor([float(rank)])
    dist.reduce(t, dst=world_size - 1)
    arrays["reduce"] = t.numpy()
    t = nl.full((3,), float(rank))
    dist.broadcast(t, src=1)
    arrays["broadcast"] = t.numpy()

    out = [nl.zeros(2) for _ in range(world_size)]
    dist.all_gather(out, nl.full((2,), float(rank)))
    arrays["all_gather"] = np.stack([o.numpy() for o in out])
    flat = nl.zeros(2 * world_size)
    dist.all_gather_into_tensor(flat, nl.full((2,), float(rank)))
    arrays["all_gather_into_tensor"] = flat.numpy()
    stacked = nl.zeros(world_size, 2)
    dist.all_gather_into_tensor(stacked, nl.full((2,), float(rank)))
    arrays["all_gather_into_tensor_stacked"] = stacked.numpy()

    gathered = [nl.zeros(1) for _ in range(world_size)] if rank == 0 else None
    dist.gather(nl.tensor([rank * 3.0]), gathered, dst=0)
    if rank == 0:
        arrays["gather"] = np.concatenate([g.numpy() for g in gathered])
    parts = [nl.arange(2.0) + 10 * i for i in range(world_size)] if rank == 0 else None
    mine = nl.zeros(2)
    dist.scatter(mine, parts, src=0)
    arrays["scatter"] = mine.numpy()
    out = nl.zeros(2)
    dist.reduce_scatter(out, [nl.full((2,), 10.0 * rank + i) for i in range(world_size)])
    arrays["reduce_scatter"] = out.numpy()

    # a ring: each rank sends to the next and receives from the previous
    received = nl.zeros(1)
    right, left = (rank + 1) % world_size, (rank - 1) % world_size
    if rank % 2 == 0:
        dist.send(nl.tensor([100.0 * rank]), dst=right)
        objects["recv_from"] = dist.recv(received, src=left)
    else:
        objects["recv_from"] = dist.recv(received)
        dist.send(nl.tensor([100.0 * rank]), dst=right)
    arrays["recv"] = received.numpy()
    received = nl.zeros(1)
    works = [dist.isend(nl.tensor([7.0 + rank]), dst=right), dist.irecv(received, src=left)]
    for w in works:
        w.wait()
    arrays["irecv"] = received.numpy()

    t = nl.ones(2)
    work = dist.all_reduce(t, async_op=True)
    objects["async_wait"] = work.wait()
    objects["async_completed"] = work.is_completed()
    arrays["async"] = t.numpy()

    pair = dist.new_group([0, world_size - 1])
    objects["pair_rank"] = dist.get_rank(pair)
    objects["pair_size"] = dist.get_world_size(pair)
    t = nl.tensor([rank + 1.0])
    dist.all_reduce(t, group=pair)
    arrays["pair_all_reduce"] = t.numpy()

    everyone = [None] * world_size
    dist.all_gather_object(everyone, {"rank": rank, "name": f"r{rank}"})
    objects["all_gather_object"] = everyone
    sent = [{"lr": 0.5}, "from-zero", [1, 2]] if rank == 0 else [None, None, None]
    dist.broadcast_object_list(sent, src=0)
    objects["broadcast_object_list"] = sent

    try:
        dist.init_process_group("gloo")
    except ValueError as ex:
        objects["second_init"] = str(ex)
    dist.barrier()


def ddp(rank, world_size, arrays, objects):
    x, y = make_data()
    dataset = TensorDataset(nl.tensor(x), nl.tensor(y))
    sampler = DistributedSampler(dataset, shuffle=False)
    objects["sampler"] = [sampler.num_replicas, sampler.rank]
    loader = DataLoader(dataset, batch_size=N_SAMPLES, sampler=sampler)
    model = DDP(make_model(seed=rank))  # different weights per rank: DDP broadcasts rank 0's
    loss_fn = nn.MSELoss()
    xb, yb = next(iter(loader))
    loss_fn(model(xb), yb).backward()
    for name, p in model.module.named_parameters():
        arrays[f"grad.{name}"] = p.grad.numpy().copy()
    optimizer = nl.optim.SGD(model.parameters(), lr=LR)
    losses = []
    for _ in range(SGD_STEPS):
        optimizer.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    objects["losses"] = losses
    for name, p in model.module.named_parameters():
        arrays[f"weight.{name}"] = p.detach().numpy().copy()

    # DDP on a group of two ranks: the others do not take part
    pair = dist.new_group([0, world_size - 1])
    if pair is not dist.GroupMember.NON_GROUP_MEMBER:
        pair_model = DDP(nn.Linear(2, 1), process_group=pair)
        pair_model(nl.full((1, 2), rank + 1.0)).sum().backward()
        arrays["pair_ddp_grad"] = pair_model.module.weight.grad.numpy().copy()


def run(rank, world_size, out):
    """The checks of one rank; ``init_process_group`` has run."""
    arrays, objects = {}, {}
    objects["rank"], objects["world_size"] = dist.get_rank(), dist.get_world_size()
    objects["backend"] = dist.get_backend()
    objects["argv"] = sys.argv[1:]
    names = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
    objects["env"] = {k: os.environ.get(k) for k in names}
    collectives(rank, world_size, arrays, objects)
    ddp(rank, world_size, arrays, objects)
    out = Path(out)
    np.savez(out / f"rank{rank}.npz", **arrays)
    (out / f"rank{rank}.json").write_text(json.dumps(objects))
