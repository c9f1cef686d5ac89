"""DataLoader: batching, seeding, the __getitems__ path, worker processes and their shutdown."""

import gc
import multiprocessing
import os
import signal
import time

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import DataLoader, Dataset, TensorDataset, get_worker_info


class Squares(Dataset):
    """Item i is (i, i*i as float array); optionally fails or kills its worker at one index."""

    def __init__(self, n=23, fail_at=None, kill_at=None, sleep=0.0):
        self.n, self.fail_at, self.kill_at, self.sleep = n, fail_at, kill_at, sleep

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if i == self.fail_at:
            raise ValueError(f"bad sample {i}")
        if i == self.kill_at and get_worker_info() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        if self.sleep:
            time.sleep(self.sleep)
        return i, np.full(2, i * i, dtype=np.float32)


class WithGetitems(Squares):
    """Same samples, batched fetch returning a list of samples (PyTorch's contract)."""

    calls = 0

    def __getitems__(self, indices):
        type(self).calls += 1
        return [self[i] for i in indices]


class CollatedGetitems(Squares):
    """Batched fetch returning a ready batch (nnlite's getitems_collated contract)."""

    getitems_collated = True

    def __getitems__(self, indices):
        idx = np.asarray(indices)
        return [
            nl.from_numpy(idx.astype(np.int64)),
            nl.from_numpy(np.repeat((idx * idx).astype(np.float32)[:, None], 2, axis=1)),
        ]


class RandomDraw(Dataset):
    """Item i is a number from numpy's global RNG (to see the workers' seeds)."""

    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return np.random.randint(0, 2**31), -1 if info is None else info.id  # noqa: NPY002  (each worker's global generator is under test)


def _ids(batches):
    return [b[0].tolist() for b in batches]


def _no_children():
    deadline = time.monotonic() + 5
    while multiprocessing.active_children() and time.monotonic() < deadline:
        time.sleep(0.05)
    return multiprocessing.active_children() == []


@pytest.fixture(autouse=True)
def _check_no_leftover_workers():
    yield
    gc.collect()
    assert _no_children(), "worker processes left behind"


# ------------------------------------------------------------------------------------ batching


@pytest.mark.parametrize(
    "n, batch_size, drop_last, sizes",
    [
        (23, 5, False, [5, 5, 5, 5, 3]),
        (23, 5, True, [5, 5, 5, 5]),
        (20, 5, True, [5, 5, 5, 5]),
        (3, 5, False, [3]),
        (3, 5, True, []),
        (4, 1, False, [1, 1, 1, 1]),
    ],
)
@pytest.mark.parametrize("num_workers", [0, 2])
def test_batch_sizes_and_len(n, batch_size, drop_last, sizes, num_workers):
    dl = DataLoader(Squares(n), batch_size=batch_size, drop_last=drop_last, num_workers=num_workers)
    batches = list(dl)
    assert len(dl) == len(sizes)
    assert [len(b[0]) for b in batches] == sizes
    flat = [i for b in batches for i in b[0].tolist()]
    assert flat == list(range(sum(sizes)))
    if batches:
        x, y = batches[0]
        assert x.dtype == nl.int64 and y.dtype == nl.float32 and tuple(y.shape) == (sizes[0], 2)


def test_batch_size_none_no_autobatching():
    out = list(DataLoader(Squares(3), batch_size=None))
    assert len(out) == 3
    i, arr = out[2]
    assert i == 2 and isinstance(arr, nl.Tensor) and arr.tolist() == [4.0, 4.0]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(num_workers=-1), "num_workers option should be non-negative"),
        (dict(batch_size=0), "batch_size should be an integer >= 1"),
        (dict(shuffle=True, sampler=[0, 1]), "sampler option is mutually exclusive with shuffle"),
        (dict(batch_sampler=[[0, 1]], batch_size=2), "batch_sampler option is mutually exclusive"),
        (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
        (dict(batch_size=None, drop_last=True), "mutually exclusive with drop_last"),
        (dict(timeout=-1), "timeout option should be non-negative"),
        (dict(prefetch_factor=0, num_workers=1), "prefetch_factor should be an integer >= 1"),
    ],
)
def test_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DataLoader(Squares(4), **kwargs)


def test_batch_sampler_argument():
    dl = DataLoader(Squares(10), batch_sampler=[[3, 1], [0, 9, 2]])
    assert _ids(dl) == [[3, 1], [0, 9, 2]] and len(dl) == 2


# ------------------------------------------------------------------------------------ shuffling


def test_shuffle_seed_reproducible_and_equal_across_num_workers():
    orders = {}
    for nw in (0, 1, 2):
        dl = DataLoader(Squares(37), batch_size=4, shuffle=True, seed=123, num_workers=nw)
        orders[nw] = [_ids(dl), _ids(dl)]  # two epochs
    assert orders[0] == orders[1] == orders[2]
    epoch0, epoch1 = orders[0]
    assert epoch0 != epoch1  # a new order each epoch
    assert sorted(sum(epoch0, [])) == list(range(37)) == sorted(sum(epoch1, []))
    assert epoch0 != [list(range(i, min(i + 4, 37))) for i in range(0, 37, 4)]
    # a fresh loader with the same seed replays the same epochs
    again = DataLoader(Squares(37), batch_size=4, shuffle=True, seed=123)
    assert [_ids(again), _ids(again)] == orders[0]
    other = DataLoader(Squares(37), batch_size=4, shuffle=True, seed=124)
    assert _ids(other) != epoch0


def test_shuffle_without_seed_follows_manual_seed():
    nl.manual_seed(5)
    a = _ids(DataLoader(Squares(30), batch_size=6, shuffle=True))
    nl.manual_seed(5)
    b = _ids(DataLoader(Squares(30), batch_size=6, shuffle=True))
    assert a == b and sorted(sum(a, [])) == list(range(30))


def test_worker_numpy_seeds_distinct_and_reproducible():
    def draws():
        dl = DataLoader(RandomDraw(), batch_size=2, num_workers=2, seed=7)
        return [(v.tolist(), w.tolist()) for v, w in dl]

    a, b = draws(), draws()
    assert a == b  # same seed, same draws
    by_worker = {}
    for values, workers in a:
        by_worker.setdefault(workers[0], []).extend(values)
    assert sorted(by_worker) == [0, 1]
    assert by_worker[0] != by_worker[1]


# ------------------------------------------------------------------------------ __getitems__ path


@pytest.mark.parametrize("cls", [WithGetitems, CollatedGetitems])
@pytest.mark.parametrize("num_workers", [0, 2])
def test_getitems_path_equals_item_path(cls, num_workers):
    kw = dict(batch_size=4, shuffle=True, seed=3, num_workers=num_workers)
    fast = list(DataLoader(cls(21), **kw))
    slow = list(DataLoader(Squares(21), **kw))
    assert len(fast) == len(slow) == 6
    for (a, b), (c, d) in zip(fast, slow):
        assert a.dtype == c.dtype and b.dtype == d.dtype
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), d.numpy())


def test_getitems_called_once_per_batch():
    WithGetitems.calls = 0
    list(DataLoader(WithGetitems(10), batch_size=3))
    assert WithGetitems.calls == 4


def test_tensor_dataset_batched_path():
    x = nl.from_numpy(np.arange(30, dtype=np.float32).reshape(10, 3))
    y = nl.from_numpy(np.arange(10))
    ds = TensorDataset(x, y)
    fast = list(DataLoader(ds, batch_size=4, shuffle=True, seed=0))
    slow = list(
        DataLoader(ds, batch_size=4, shuffle=True, seed=0, collate_fn=nl.data.default_collate)
    )
    for (a, b), (c, d) in zip(fast, slow):
        np.testing.assert_array_equal(a.numpy(), c.numpy())
        np.testing.assert_array_equal(b.numpy(), d.numpy())
    assert isinstance(fast[0], list) and len(fast) == 3


def test_custom_collate_fn():
    dl = DataLoader(Squares(6), batch_size=3, collate_fn=lambda batch: [i for i, _ in batch])
    assert list(dl) == [[0, 1, 2], [3, 4, 5]]


def test_dict_samples():
    class D(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return {"x": np.ones(2) * i, "y": i, "name": f"s{i}"}

    b = next(iter(DataLoader(D(), batch_size=4, num_workers=1)))
    assert b["x"].shape == (4, 2) and b["x"].dtype == nl.float64
    assert b["y"].tolist() == [0, 1, 2, 3] and b["name"] == ["s0", "s1", "s2", "s3"]


# ----------------------------------------------------------------------------------- workers


@pytest.mark.parametrize("num_workers", [0, 2])
def test_worker_error_propagates_with_traceback(num_workers):
    dl = DataLoader(Squares(12, fail_at=7), batch_size=3, num_workers=num_workers)
    it = iter(dl)
    assert next(it)[0].tolist() == [0, 1, 2]
    assert next(it)[0].tolist() == [3, 4, 5]
    with pytest.raises(ValueError, match="bad sample 7") as e:
        next(it)
    if num_workers:
        msg = str(e.value)
        assert "DataLoader worker process" in msg and "Traceback (most recent call last)" in msg
        assert "__getitem__" in msg and 'raise ValueError(f"bad sample {i}")' in msg
    if num_workers:  # the workers were shut down with the error: the iteration is over
        with pytest.raises(StopIteration):
            next(it)
    else:  # in the main process nothing needs stopping: the other batches still come
        assert next(it)[0].tolist() == [9, 10, 11]
    del e, it


def test_a_worker_error_reaches_the_caller_after_the_workers_are_gone():
    # the caller keeps the traceback (as pytest, a notebook or a logging handler does), and the
    # traceback keeps the loader's iterator: the workers must not wait for it to be freed
    it = iter(DataLoader(Squares(40, fail_at=9), batch_size=3, num_workers=2))
    next(it)
    pids = [w.pid for w in it._workers]
    assert len(pids) == 2 and all(_alive(p) for p in pids)
    with pytest.raises(ValueError, match="bad sample 9") as e:
        for _ in it:
            pass
    assert _wait_gone(pids, 1.0), "workers still running after the error reached the caller"
    assert e.value.__traceback__ is not None  # the traceback was still held while checking
    del e, it


def test_worker_key_error_keeps_type_and_readable_message():
    class D(Squares):
        def __getitem__(self, i):
            return {}["missing"]

    with pytest.raises(KeyError) as e:
        next(iter(DataLoader(D(4), batch_size=2, num_workers=1)))
    assert "Caught KeyError" in str(e.value) and "\n" in str(e.value)
    del e


def test_retry_loop_after_worker_errors_keeps_no_workers():
    # The error reaches the caller holding no reference cycle, so the loader's iterator, and with
    # it every worker, is gone as soon as the exception is: no garbage collection needed.
    gc.collect()
    gc.disable()
    try:
        live = []
        for _ in range(3):
            try:
                for _ in DataLoader(Squares(12, fail_at=7), batch_size=3, num_workers=2):
                    pass
            except ValueError:
                pass
            live.append(len(multiprocessing.active_children()))
    finally:
        gc.enable()
    assert live == [0, 0, 0]


def test_killed_worker_raises_instead_of_hanging():
    dl = DataLoader(Squares(40, kill_at=13), batch_size=2, num_workers=2)
    start = time.monotonic()
    with pytest.raises(
        RuntimeError,
        match=r"DataLoader worker \d \(pid \d+\) exited unexpectedly with exit "
        r"code -9 \(killed by SIGKILL\)",
    ):
        for _ in dl:
            pass
    assert time.monotonic() - start < 10
    assert _no_children()


def test_timeout():
    dl = DataLoader(Squares(4, sleep=0.8), batch_size=1, num_workers=1, timeout=0.3)
    with pytest.raises(RuntimeError, match="timed out after 0.3 seconds"):
        next(iter(dl))


@pytest.mark.parametrize("how", ["exhausted", "break", "del", "keyboard_interrupt"])
def test_workers_shut_down(how):
    dl = DataLoader(Squares(30), batch_size=2, num_workers=2)
    if how == "exhausted":
        it = iter(dl)
        for _ in it:
            pass
        assert not it._workers[0].is_alive()
    elif how == "break":
        for _ in dl:
            break
    elif how == "del":
        it = iter(dl)
        next(it)
        assert len(multiprocessing.active_children()) == 2
        del it
    else:
        it = iter(dl)
        next(it)
        it._get = _raise_keyboard_interrupt
        with pytest.raises(KeyboardInterrupt):
            next(it)
            next(it)
            next(it)
        assert it._closed
    assert _no_children()


def _raise_keyboard_interrupt(*args, **kwargs):
    raise KeyboardInterrupt


def test_persistent_workers_survive_epochs():
    dl = DataLoader(
        Squares(10), batch_size=3, num_workers=2, persistent_workers=True, shuffle=True, seed=1
    )
    first = _ids(dl)
    pids = sorted(p.pid for p in multiprocessing.active_children())
    assert len(pids) == 2
    it = iter(dl)
    next(it)  # abandon this epoch half way
    third = _ids(dl)
    assert sorted(p.pid for p in multiprocessing.active_children()) == pids
    seq = DataLoader(Squares(10), batch_size=3, shuffle=True, seed=1)
    expect = [_ids(seq) for _ in range(3)]
    assert first == expect[0] and third == expect[2]
    del dl, it
    gc.collect()
    assert _no_children()


def test_persistent_workers_loop_without_a_reference_to_the_loader():
    # the loader is released at once; its iterator, held by the loop, keeps the workers
    batches = [
        (x.tolist(), y.tolist())
        for x, y in DataLoader(Squares(7), batch_size=3, num_workers=1, persistent_workers=True)
    ]
    assert [x for x, _ in batches] == [[0, 1, 2], [3, 4, 5], [6]]
    assert batches[2][1] == [[36.0, 36.0]]
    assert _no_children()  # the iterator is released too: its workers stopped


def test_worker_init_fn_and_worker_info():
    class D(Squares):
        def __getitem__(self, i):
            info = get_worker_info()
            return info.id, info.num_workers, int(os.environ.get("OMP_NUM_THREADS", "0"))

    seen = []
    dl = DataLoader(
        D(6),
        batch_size=1,
        num_workers=2,
        worker_init_fn=lambda wid: np.random.seed(wid),  # noqa: NPY002  (a typical worker_init_fn)
    )
    for wid, nw, omp in dl:
        seen.append((int(wid), int(nw), int(omp)))
    assert sorted(set(seen)) == [(0, 2, 1), (1, 2, 1)]
    assert get_worker_info() is None


def test_unpicklable_batch_is_an_error_not_a_hang():
    dl = DataLoader(Squares(4), batch_size=2, num_workers=1, collate_fn=lambda b: lambda: None)
    with pytest.raises(Exception, match="while sending a batch"):
        next(iter(dl))


_SCRIPT = r"""
import os, sys, time
import numpy as np
from nnlite.data import DataLoader, TensorDataset
dl = DataLoader(TensorDataset(np.arange(100)), batch_size=2, num_workers=2)
it = iter(dl)
next(it)
print(" ".join(str(w.pid) for w in it._workers), flush=True)
if sys.argv[1] == "hang":
    time.sleep(60)
"""


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie waiting for its (dead) parent to reap it is gone for our purpose
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def _wait_gone(pids, seconds):
    deadline = time.monotonic() + seconds
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not any(_alive(p) for p in pids)


@pytest.mark.parametrize("how", ["exit", "parent_killed"])
def test_workers_gone_when_the_parent_exits_or_dies(how):
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT, "hang" if how == "parent_killed" else "exit"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=os.path.dirname(nl.__path__[0]),
    )
    pids = [int(p) for p in proc.stdout.readline().split()]
    assert len(pids) == 2
    if how == "parent_killed":
        proc.kill()  # no atexit, no cleanup: the workers' watchdog must notice
    proc.wait(timeout=30)
    assert _wait_gone(pids, 10)


def test_spawn_context():
    ds = TensorDataset(np.arange(10), np.arange(10) * 2)
    dl = DataLoader(
        ds, batch_size=4, num_workers=2, multiprocessing_context="spawn", shuffle=True, seed=0
    )
    ref = DataLoader(ds, batch_size=4, shuffle=True, seed=0)
    assert [b[0].tolist() for b in dl] == [b[0].tolist() for b in ref]


def test_getitems_returning_a_ready_tuple_is_the_batch():
    class D(Squares):
        def __getitems__(self, indices):  # not a list: taken as the collated batch
            idx = np.asarray(indices)
            return idx, (idx * idx).astype(np.float32)

    ((a, b),) = list(DataLoader(D(3), batch_size=3))
    assert isinstance(a, nl.Tensor) and a.tolist() == [0, 1, 2] and b.tolist() == [0.0, 1.0, 4.0]


def test_sampler_without_len():
    class Order:
        def __iter__(self):
            return iter([4, 0, 2])

    dl = DataLoader(Squares(5), batch_size=2, sampler=Order(), num_workers=1)
    assert _ids(dl) == [[4, 0], [2]]
