"""IterableDataset in the DataLoader: every worker iterates its own copy, sharded through
get_worker_info(); batches come from the workers in turn, as in PyTorch."""

import math
import multiprocessing

import numpy as np
import pytest

from nnlite.data import ChainDataset, DataLoader, IterableDataset, get_worker_info


def make_range_dataset(base, worker_info):
    """PyTorch's documented example: the range [start, end) split into one slice per worker."""

    class RangeStream(base):
        def __init__(self, start, end):
            self.start, self.end = start, end

        def __iter__(self):
            info = worker_info()
            if info is None:
                lo, hi = self.start, self.end
            else:
                per = int(math.ceil((self.end - self.start) / info.num_workers))
                lo = self.start + info.id * per
                hi = min(lo + per, self.end)
            return iter(range(lo, hi))

    return RangeStream


RangeStream = make_range_dataset(IterableDataset, get_worker_info)


class Described(IterableDataset):
    """Yields what the worker sees: its info, and whether info.dataset is the object iterated."""

    def __init__(self, n=4):
        self.n = n
        self.touched = False

    def __iter__(self):
        info = get_worker_info()
        self.touched = True  # changes the worker's copy only
        for i in range(self.n):
            if info is None:
                yield {"i": i, "id": -1, "num_workers": 0, "seed": -1, "same": True}
            else:
                yield {
                    "i": i,
                    "id": info.id,
                    "num_workers": info.num_workers,
                    "seed": info.seed,
                    "same": info.dataset is self,
                }


class Failing(IterableDataset):
    def __iter__(self):
        yield 1
        raise ValueError("the stream broke")


class Endless(IterableDataset):
    def __iter__(self):
        i = 0
        while True:
            yield i
            i += 1


def _flat(batches):
    return [b.tolist() if hasattr(b, "tolist") else b for b in batches]


@pytest.fixture(autouse=True)
def _no_leftover_workers():
    yield
    assert multiprocessing.active_children() == []


@pytest.mark.filterwarnings("ignore:This DataLoader will create")
@pytest.mark.parametrize(
    "num_workers, batch_size, drop_last",
    [
        (0, 4, False),
        (1, 4, False),
        (2, 4, False),
        (3, 4, False),
        (3, 4, True),
        (2, None, False),
        (3, 1, False),
    ],
)
def test_batches_equal_pytorch(num_workers, batch_size, drop_last):
    pytest.importorskip("torch")
    from torch.utils.data import DataLoader as TorchLoader
    from torch.utils.data import IterableDataset as TorchIterable
    from torch.utils.data import get_worker_info as torch_info

    TorchRange = make_range_dataset(TorchIterable, torch_info)
    # 3..17 in 3 workers: slices of 5, 5 and 4, so one worker ends before the others
    ours = _flat(
        DataLoader(
            RangeStream(3, 17), batch_size=batch_size, drop_last=drop_last, num_workers=num_workers
        )
    )
    theirs = _flat(
        TorchLoader(
            TorchRange(3, 17), batch_size=batch_size, drop_last=drop_last, num_workers=num_workers
        )
    )
    assert ours == theirs


def test_every_sample_once_with_sharding():
    out = [
        i
        for batch in DataLoader(RangeStream(0, 23), batch_size=5, num_workers=2)
        for i in batch.tolist()
    ]
    assert sorted(out) == list(range(23))


def test_without_sharding_each_worker_yields_the_whole_stream():
    out = [
        i
        for batch in DataLoader(Described(3), batch_size=None, num_workers=2)
        for i in [batch["i"]]
    ]
    assert sorted(int(i) for i in out) == [0, 0, 1, 1, 2, 2]


def test_worker_info_in_workers_and_none_in_the_main_process():
    dataset = Described(2)
    rows = list(DataLoader(dataset, batch_size=None, num_workers=2, seed=11))
    by_worker = {}
    for r in rows:
        by_worker.setdefault(int(r["id"]), []).append(r)
    assert sorted(by_worker) == [0, 1]
    for rs in by_worker.values():
        assert [int(r["i"]) for r in rs] == [0, 1]
        assert {int(r["num_workers"]) for r in rs} == {2}
        assert all(bool(r["same"]) for r in rs)  # info.dataset is the copy the worker iterates
    seeds = {wid: int(rs[0]["seed"]) for wid, rs in by_worker.items()}
    assert seeds[1] == seeds[0] + 1  # base seed + worker id
    assert dataset.touched is False  # the workers iterated copies
    assert get_worker_info() is None
    main = list(DataLoader(dataset, batch_size=None))
    assert [int(r["id"]) for r in main] == [-1, -1] and dataset.touched


def test_persistent_workers_restart_their_iterators_each_epoch():
    loader = DataLoader(RangeStream(0, 10), batch_size=3, num_workers=2, persistent_workers=True)
    first = _flat(loader)
    pids = sorted(p.pid for p in multiprocessing.active_children())
    second = _flat(loader)
    assert first == second == _flat(DataLoader(RangeStream(0, 10), batch_size=3, num_workers=2))
    assert sorted(p.pid for p in multiprocessing.active_children()) == pids
    del loader


@pytest.mark.parametrize("num_workers", [0, 2])
def test_error_in_the_stream_reaches_the_caller(num_workers):
    with pytest.raises(ValueError, match="the stream broke"):
        list(DataLoader(Failing(), batch_size=None, num_workers=num_workers))


def test_endless_stream_can_be_left_early():
    it = iter(DataLoader(Endless(), batch_size=4, num_workers=2))
    assert next(it).tolist() == [0, 1, 2, 3] and next(it).tolist() == [0, 1, 2, 3]
    del it


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(shuffle=True), "expected unspecified shuffle option, but got shuffle=True"),
        (dict(sampler=[0, 1]), "expected unspecified sampler option"),
        (dict(batch_sampler=[[0, 1]]), "expected unspecified batch_sampler option"),
    ],
)
def test_sampling_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=f"DataLoader with IterableDataset: {message}"):
        DataLoader(RangeStream(0, 4), **kwargs)


def test_len_follows_the_dataset():
    class Sized(RangeStream):
        def __len__(self):
            return self.end - self.start

    assert len(DataLoader(Sized(0, 10), batch_size=4)) == 3
    assert len(DataLoader(Sized(0, 10), batch_size=4, drop_last=True)) == 2
    assert len(DataLoader(Sized(0, 10), batch_size=None)) == 10
    with pytest.raises(TypeError):
        len(DataLoader(RangeStream(0, 10), batch_size=4))


def test_chain_dataset_and_addition():
    chained = RangeStream(0, 3) + RangeStream(10, 12)
    assert isinstance(chained, ChainDataset)
    assert [int(x) for x in DataLoader(chained, batch_size=None)] == [0, 1, 2, 10, 11]
    batches = _flat(DataLoader(ChainDataset([RangeStream(0, 3), RangeStream(3, 5)]), batch_size=2))
    assert batches == [[0, 1], [2, 3], [4]] and np.array(batches[0]).dtype.kind == "i"
