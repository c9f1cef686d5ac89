"""Data loading with PyTorch's API: datasets, samplers, ``DataLoader`` (with worker processes),
image transforms and the CIFAR-10 / MNIST / Fashion-MNIST datasets.

Examples:
    >>> from nnlite.data import DataLoader, transforms, datasets
    >>> tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    >>> train = datasets.FakeData(size=100, image_size=(1, 28, 28), transform=tf)
    >>> for images, labels in DataLoader(train, batch_size=64, shuffle=True, seed=0):
    ...     print(images.shape, labels.shape)
    nnlite.Size([64, 1, 28, 28]) nnlite.Size([64])
    nnlite.Size([36, 1, 28, 28]) nnlite.Size([36])
"""

from . import datasets, transforms
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)
from .stack_dataset import StackDataset

__all__ = [
    "Dataset",
    "IterableDataset",
    "TensorDataset",
    "Subset",
    "ConcatDataset",
    "ChainDataset",
    "random_split",
    "Sampler",
    "SequentialSampler",
    "RandomSampler",
    "SubsetRandomSampler",
    "BatchSampler",
    "DistributedSampler",
    "WeightedRandomSampler",
    "StackDataset",
    "DataLoader",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "transforms",
    "datasets",
]
