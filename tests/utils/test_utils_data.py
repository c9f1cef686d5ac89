"""nnlite.utils.data is PyTorch's import path for nnlite.data: the very same objects."""

import importlib

import pytest

import nnlite as nl
import nnlite.data

NAMES = [
    "Dataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "DataLoader",
    "default_collate",
    "default_convert",
    "get_worker_info",
]


@pytest.mark.parametrize("name", NAMES)
def test_names_are_the_objects_of_nnlite_data(name):
    from nnlite.utils import data

    assert getattr(data, name) is getattr(nnlite.data, name)
    assert name in data.__all__


@pytest.mark.parametrize(
    "module,name",
    [
        ("nnlite.utils.data.distributed", "DistributedSampler"),
        ("nnlite.utils.data.sampler", "RandomSampler"),
        ("nnlite.utils.data.sampler", "SubsetRandomSampler"),
        ("nnlite.utils.data.dataset", "TensorDataset"),
        ("nnlite.utils.data.dataloader", "DataLoader"),
        ("nnlite.utils.data.dataloader", "default_collate"),
    ],
)
def test_pytorchs_submodule_paths(module, name):
    assert getattr(importlib.import_module(module), name) is getattr(nnlite.data, name)


def test_iterable_dataset_is_reexported_when_nnlite_data_has_it():
    from nnlite.utils import data

    for name in ("IterableDataset", "ChainDataset", "WeightedRandomSampler"):
        source = (
            getattr(nnlite.data, name, None)
            or getattr(nnlite.data.dataset, name, None)
            or getattr(nnlite.data.sampler, name, None)
        )
        assert getattr(data, name, None) is source


def test_attribute_path_as_scripts_write_it():
    # torch.utils.data.DataLoader(...) after `import nnlite as torch`
    loader = nl.utils.data.DataLoader(
        nl.utils.data.TensorDataset(nl.arange(6.0), nl.arange(6)), batch_size=4
    )
    batches = [x.tolist() for x, _ in loader]
    assert batches == [[0.0, 1.0, 2.0, 3.0], [4.0, 5.0]]


def test_from_import_as_scripts_write_it():
    from nnlite.utils.data import DataLoader, Dataset, random_split
    from nnlite.utils.data.distributed import DistributedSampler

    class Squares(Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return nl.tensor([float(i)]), i * i

    train, test = random_split(Squares(), [8, 2])
    sampler = DistributedSampler(train, num_replicas=2, rank=1, shuffle=False)
    seen = [y.tolist() for _, y in DataLoader(train, batch_size=2, sampler=sampler)]
    assert sum(len(b) for b in seen) == 4 and len(test) == 2
