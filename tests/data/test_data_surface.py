"""The rest of ``torch.utils.data``: ``WeightedRandomSampler``, ``StackDataset``, and a
``RandomSampler`` with replacement that draws its indices lazily (a 1e10-sample pass costs no
memory up front)."""

import itertools

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import RandomSampler, StackDataset, WeightedRandomSampler


def test_random_sampler_with_replacement_draws_lazily():
    sampler = RandomSampler(range(10), replacement=True, num_samples=10**10, generator=0)
    assert len(sampler) == 10**10
    first = list(itertools.islice(iter(sampler), 100))
    assert len(first) == 100 and all(0 <= i < 10 for i in first)


def test_random_sampler_without_replacement_covers_each_pass():
    indices = list(RandomSampler(range(5), num_samples=12, generator=1))
    assert len(indices) == 12
    assert sorted(indices[:5]) == list(range(5)) and sorted(indices[5:10]) == list(range(5))


def test_weighted_sampler_follows_the_weights():
    draws = np.array(list(WeightedRandomSampler([1.0, 0.0, 3.0], 20_000, generator=0)))
    np.testing.assert_allclose(
        np.bincount(draws, minlength=3) / 20_000, [0.25, 0.0, 0.75], atol=0.015
    )
    without = list(
        WeightedRandomSampler(nl.tensor([1.0, 2.0, 3.0, 0.0]), 3, replacement=False, generator=0)
    )
    assert sorted(without) == [0, 1, 2]
    assert WeightedRandomSampler([1.0, 2.0], 5).weights.dtype == nl.float64


@pytest.mark.parametrize(
    "build",
    [
        lambda S: S([1.0, 2.0], 0),
        lambda S: S([1.0, 2.0], 2, replacement=1),
        lambda S: S([[1.0, 2.0]], 2),
    ],
)
def test_weighted_sampler_errors_match_torch(build):
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError) as ours:
        build(WeightedRandomSampler)
    with pytest.raises(ValueError) as theirs:
        build(torch.utils.data.WeightedRandomSampler)
    assert str(ours.value) == str(theirs.value)


def test_stack_dataset_reads_datasets_together():
    images, labels = nl.arange(6.0).reshape(3, 2), [7, 8, 9]
    as_tuple = StackDataset(images, labels)
    assert len(as_tuple) == 3 and as_tuple[1][1] == 8
    as_dict = StackDataset(image=images, label=labels)
    assert as_dict[2]["image"].tolist() == [4.0, 5.0]
    batch = next(iter(nl.data.DataLoader(as_dict, batch_size=3)))
    assert batch["label"].tolist() == [7, 8, 9]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset([1, 2], [1])
    with pytest.raises(ValueError, match="both types are given"):
        StackDataset([1], label=[1])
    from nnlite.utils.data import StackDataset as FromTorchPath

    assert FromTorchPath is StackDataset
