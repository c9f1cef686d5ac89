"""nnlite.multiprocessing: torch.multiprocessing's surface, tensors in shared memory across fork,
spawn and queues, Module.share_memory, and spawn()'s error reporting."""

import copy
import multiprocessing as std_mp
import os
import pickle
import signal

import numpy as np
import pytest

import nnlite as nl
import nnlite.multiprocessing as mp
from nnlite import nn


def add_rank(rank, tensor):
    tensor[rank] += rank + 1  # in-place: seen by the parent only if the memory is shared


def add_one(tensor):
    tensor += 1


def add_one_from_queue(queue, done):
    tensor = queue.get()
    tensor += 1
    done.put(tensor.is_shared())


def step_model(model):
    opt = nl.optim.SGD(model.parameters(), lr=0.5)
    loss = (model(nl.arange(6.0).reshape(2, 3)) ** 2).sum()
    loss.backward()
    opt.step()


def fail(rank):
    if rank == 1:
        raise ValueError(f"rank {rank} failed on purpose")


def die(rank):
    if rank == 0:
        os.kill(os.getpid(), signal.SIGKILL)


def exit_code(rank):
    raise SystemExit(3)


def test_the_surface_is_pythons_multiprocessing():
    for name in (
        "Process",
        "Queue",
        "SimpleQueue",
        "Pipe",
        "Pool",
        "Event",
        "Lock",
        "Value",
        "Array",
        "get_context",
        "set_start_method",
        "get_start_method",
        "get_all_start_methods",
        "cpu_count",
        "current_process",
        "active_children",
    ):
        assert getattr(mp, name) is getattr(std_mp, name), name
    assert mp.get_all_sharing_strategies() == {"file_descriptor"}
    assert mp.get_sharing_strategy() == "file_descriptor"
    mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError, match="file_system"):
        mp.set_sharing_strategy("file_system")


def test_share_memory_moves_data_and_keeps_values():
    t = nl.arange(6, dtype=nl.float32).reshape(2, 3)
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared() and t[1].is_shared()
    assert t.tolist() == [[0, 1, 2], [3, 4, 5]]
    data = t._data
    t.share_memory_()  # already shared: no copy
    assert t._data is data


def test_pickle_and_deepcopy_still_copy():
    t = nl.ones(3).share_memory_()
    assert not pickle.loads(pickle.dumps(t)).is_shared()
    assert not copy.deepcopy(t).is_shared()


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_children_update_the_parents_tensor(method):
    t = nl.zeros(2).share_memory_()
    plain = nl.zeros(2)
    ctx = mp.get_context(method)
    procs = [ctx.Process(target=add_rank, args=(rank, t)) for rank in range(2)]
    procs.append(ctx.Process(target=add_rank, args=(0, plain)))
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    assert t.tolist() == [1.0, 2.0]
    assert plain.tolist() == [0.0, 0.0]  # not shared: the child changed its own copy


def test_shared_tensor_through_a_queue():
    ctx = mp.get_context("spawn")
    queue, done = ctx.Queue(), ctx.Queue()
    t = nl.full((4,), 2.0).share_memory_()
    p = ctx.Process(target=add_one_from_queue, args=(queue, done))
    p.start()
    queue.put(t)
    assert done.get(timeout=120) is True
    p.join(60)
    assert p.exitcode == 0 and t.tolist() == [3.0] * 4


def test_module_share_memory_hogwild_step():
    model = nn.Sequential(nn.BatchNorm1d(3), nn.Linear(3, 4))
    assert model.share_memory() is model
    assert all(p.is_shared() for p in model.parameters())
    assert all(b.is_shared() for b in model.buffers())
    weight = model[1].weight
    before = weight.detach().clone()
    ctx = mp.get_context("spawn")
    p = ctx.Process(target=step_model, args=(model,))
    p.start()
    p.join(120)
    assert p.exitcode == 0
    assert model[1].weight is weight and not np.allclose(weight.detach().numpy(), before.numpy())
    assert model[0].running_mean.tolist() != [
        0.0,
        0.0,
        0.0,
    ]  # a shared buffer, updated by the child
    # the gradient of a shared parameter is shared too once it exists
    model(nl.arange(6.0).reshape(2, 3)).sum().backward()
    model.share_memory()
    assert weight.grad.is_shared()


def test_spawn_runs_every_rank():
    t = nl.zeros(3).share_memory_()
    assert mp.spawn(add_rank, args=(t,), nprocs=3) is None
    assert t.tolist() == [1.0, 2.0, 3.0]
    context = mp.start_processes(add_rank, args=(t,), nprocs=1, join=False, start_method="fork")
    assert len(context.pids()) == 1
    while not context.join():
        pass
    assert t.tolist() == [2.0, 2.0, 3.0]


def test_spawn_reports_the_exception_of_a_rank():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(fail, nprocs=2, start_method="fork")
    msg = str(info.value)
    assert msg.startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
    assert "ValueError: rank 1 failed on purpose" in msg and info.value.error_index == 1


@pytest.mark.parametrize(
    "fn, message",
    [
        (die, "process 0 terminated with signal SIGKILL"),
        (exit_code, "process 0 terminated with exit code 3"),
    ],
)
def test_spawn_reports_a_rank_that_died(fn, message):
    with pytest.raises(mp.ProcessExitedException, match=message) as info:
        mp.spawn(fn, nprocs=1, start_method="fork")
    assert info.value.error_index == 0
    assert std_mp.active_children() == []
