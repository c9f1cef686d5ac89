"""Dataset, TensorDataset, Subset, ConcatDataset, random_split, samplers and default_collate."""

import collections
import warnings

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import (
    BatchSampler,
    ConcatDataset,
    DataLoader,
    Dataset,
    DistributedSampler,
    RandomSampler,
    SequentialSampler,
    Subset,
    SubsetRandomSampler,
    TensorDataset,
    default_collate,
    random_split,
)


class Range(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i


# ----------------------------------------------------------------------------------- datasets


def test_tensor_dataset():
    x = nl.from_numpy(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = np.arange(4)  # numpy arrays are accepted too
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    a, b = ds[2]
    assert a.tolist() == [6.0, 7.0, 8.0] and b.item() == 2
    batch = ds.__getitems__([3, 0])
    assert batch[0].tolist() == [[9.0, 10.0, 11.0], [0.0, 1.0, 2.0]] and batch[1].tolist() == [3, 0]
    with pytest.raises(ValueError, match="Size mismatch between tensors"):
        TensorDataset(x, np.arange(5))
    with pytest.raises(TypeError, match="argument 1 must be a Tensor or a numpy array"):
        TensorDataset(x, [1, 2, 3, 4])


def test_subset_and_concat():
    base = Range(10)
    sub = Subset(base, [9, 3, 5])
    assert len(sub) == 3 and [sub[i] for i in range(3)] == [9, 3, 5]
    assert sub.__getitems__([2, 0]) == [5, 9]
    cat = ConcatDataset([Range(3), Range(4)])
    assert len(cat) == 7 and [cat[i] for i in range(7)] == [0, 1, 2, 0, 1, 2, 3] and cat[-1] == 3
    assert len(Range(2) + Range(5)) == 7
    with pytest.raises(IndexError):
        cat[7]


def test_subset_keeps_collated_getitems():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    sub = Subset(TensorDataset(x, np.arange(10)), [4, 2, 8])
    assert sub.getitems_collated
    ((a, b),) = list(DataLoader(sub, batch_size=3))
    assert b.tolist() == [4, 2, 8] and a.tolist() == [[8, 9], [4, 5], [16, 17]]
    assert not Subset(Range(4), [0]).getitems_collated


@pytest.mark.parametrize(
    "n, lengths, sizes",
    [
        (10, [3, 7], [3, 7]),
        (10, [0.5, 0.5], [5, 5]),
        (10, [0.33, 0.33, 0.34], [4, 3, 3]),
        (7, [0.8, 0.2], [6, 1]),
        (5, [5, 0], [5, 0]),
    ],
)
def test_random_split_sizes_and_disjoint(n, lengths, sizes):
    parts = random_split(Range(n), lengths, seed=0)
    assert [len(p) for p in parts] == sizes
    seen = [i for p in parts for i in p.indices]
    assert sorted(seen) == list(range(n))


def test_random_split_reproducible_and_errors():
    a = random_split(Range(20), [0.5, 0.5], generator=np.random.default_rng(1))
    b = random_split(Range(20), [0.5, 0.5], seed=1)
    assert a[0].indices == b[0].indices
    nl.manual_seed(3)
    c = random_split(Range(20), [10, 10])
    nl.manual_seed(3)
    d = random_split(Range(20), [10, 10])
    assert c[0].indices == d[0].indices
    with pytest.raises(ValueError, match="Sum of input lengths"):
        random_split(Range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        random_split(Range(10), [1.5, -0.5])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        random_split(Range(1), [0.5, 0.5], seed=0)
    assert any("Length of split at index 1 is 0" in str(x.message) for x in w)


# ----------------------------------------------------------------------------------- samplers


def test_sequential_random_batch_samplers():
    assert list(SequentialSampler(Range(4))) == [0, 1, 2, 3]
    order = list(RandomSampler(Range(50), generator=np.random.default_rng(0)))
    assert sorted(order) == list(range(50)) and order != list(range(50))
    draws = list(RandomSampler(Range(5), replacement=True, num_samples=12, generator=0))
    assert len(draws) == 12 and set(draws) <= set(range(5))
    more = list(RandomSampler(Range(5), num_samples=12, generator=0))
    assert len(more) == 12 and sorted(more[:5]) == list(range(5))
    assert list(BatchSampler(SequentialSampler(Range(7)), 3, False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert list(BatchSampler(SequentialSampler(Range(7)), 3, True)) == [[0, 1, 2], [3, 4, 5]]
    assert len(BatchSampler(range(7), 3, False)) == 3 and len(BatchSampler(range(7), 3, True)) == 2
    assert sorted(SubsetRandomSampler([5, 6, 7], generator=0)) == [5, 6, 7]


def test_random_sampler_seed_epochs():
    s = RandomSampler(Range(30), seed=4)
    e0, e1 = list(s), list(s)
    assert e0 != e1
    s.set_epoch(0)
    assert list(s) == e0


@pytest.mark.parametrize(
    "n, replicas, drop_last",
    [
        (10, 3, False),
        (10, 3, True),
        (9, 3, False),
        (2, 4, False),
        (11, 2, True),
        (100, 7, False),
    ],
)
@pytest.mark.parametrize("shuffle", [False, True])
def test_distributed_sampler_shards(n, replicas, drop_last, shuffle):
    shards = [
        list(
            DistributedSampler(Range(n), replicas, r, shuffle=shuffle, seed=2, drop_last=drop_last)
        )
        for r in range(replicas)
    ]
    sizes = {len(s) for s in shards}
    assert len(sizes) == 1
    size = sizes.pop()
    assert size == len(DistributedSampler(Range(n), replicas, 0, drop_last=drop_last))
    flat = [i for s in shards for i in s]
    if drop_last:
        assert size == n // replicas
        assert len(set(flat)) == len(flat)  # disjoint
    else:
        assert size == -(-n // replicas)
        assert set(flat) == set(range(n))  # covering
        # disjoint apart from the padding (the head of the list repeated)
        assert len(flat) - len(set(flat)) == size * replicas - n
    if not shuffle:
        assert shards[0][:2] == [0, replicas][: len(shards[0][:2])] or n < replicas


def test_distributed_sampler_epochs_and_errors():
    s = DistributedSampler(Range(20), num_replicas=2, rank=1, seed=0)
    e0 = list(s)
    assert list(s) == e0
    s.set_epoch(1)
    e1 = list(s)
    assert e1 != e0 and len(e1) == 10
    other = DistributedSampler(Range(20), num_replicas=2, rank=0, seed=0)
    other.set_epoch(1)
    assert set(other) | set(e1) == set(range(20))  # same permutation on every rank
    with pytest.raises(
        ValueError, match=r"Invalid rank 2, rank should be in the interval \[0, 1\]"
    ):
        DistributedSampler(Range(4), num_replicas=2, rank=2)


def test_distributed_sampler_without_mpi_asks_for_arguments(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "mpi4py", None)
    with pytest.raises(RuntimeError, match="pass them explicitly, or install mpi4py"):
        DistributedSampler(Range(4))


def test_distributed_sampler_in_loader():
    dl = DataLoader(
        Range(10), batch_size=2, sampler=DistributedSampler(Range(10), 2, 0, shuffle=False)
    )
    assert [b.tolist() for b in dl] == [[0, 2], [4, 6], [8]]


# ------------------------------------------------------------------------------------- collate

Point = collections.namedtuple("Point", "x y")


@pytest.mark.parametrize(
    "batch, check",
    [
        ([1, 2, 3], lambda out: out.dtype == nl.int64 and out.tolist() == [1, 2, 3]),
        ([1.5, 2.0], lambda out: out.dtype == nl.float64 and out.tolist() == [1.5, 2.0]),
        ([True, False], lambda out: out.dtype == nl.bool and out.tolist() == [True, False]),
        ([np.float32(1), np.float32(2)], lambda out: out.dtype == nl.float32),
        (
            [np.zeros((2, 3), np.uint8)] * 4,
            lambda out: out.shape == (4, 2, 3) and out.dtype == nl.uint8,
        ),
        (
            [nl.tensor([1.0, 2.0]), nl.tensor([3.0, 4.0])],
            lambda out: out.tolist() == [[1, 2], [3, 4]],
        ),
        (["a", "b"], lambda out: out == ["a", "b"]),
        (
            [(1, "a"), (2, "b")],
            lambda out: (
                isinstance(out, list) and out[0].tolist() == [1, 2] and out[1] == ["a", "b"]
            ),
        ),
        (
            [{"k": 1, "v": [1.0, 2.0]}, {"k": 2, "v": [3.0, 4.0]}],
            lambda out: (
                out["k"].tolist() == [1, 2]
                and [t.tolist() for t in out["v"]] == [[1.0, 3.0], [2.0, 4.0]]
            ),
        ),
        (
            [Point(1, 2.0), Point(3, 4.0)],
            lambda out: isinstance(out, Point) and out.x.tolist() == [1, 3],
        ),
    ],
)
def test_default_collate_table(batch, check):
    assert check(default_collate(batch))


@pytest.mark.parametrize(
    "batch, exc, message",
    [
        (
            [np.zeros(2), np.zeros(3)],
            RuntimeError,
            r"different shapes .* \[2\] \(sample 0\) and \[3\] \(sample 1\)",
        ),
        ([(1, 2), (1,)], RuntimeError, "each element in list of batch should be of equal size"),
        (
            [object(), object()],
            TypeError,
            "batch must contain tensors, numpy arrays, numbers, dicts or lists",
        ),
        ([np.array(["a"]), np.array(["b"])], TypeError, "numpy array of dtype"),
    ],
)
def test_default_collate_errors(batch, exc, message):
    with pytest.raises(exc, match=message):
        default_collate(batch)


def test_collate_keeps_grad():
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    out = default_collate([a, a * 2])
    out.sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_dataset_sampler_and_loader_take_type_arguments_as_in_pytorch():
    # annotations written for PyTorch (``Dataset[tuple[Tensor, int]]``) evaluate at run time
    from nnlite.data import DataLoader, Dataset, Sampler

    assert Dataset[int].__origin__ is Dataset
    assert Sampler[int].__origin__ is Sampler
    assert DataLoader[int].__origin__ is DataLoader
