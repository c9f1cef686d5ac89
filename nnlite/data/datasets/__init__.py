"""Datasets read by nnlite itself: ``CIFAR10`` (python batches), ``MNIST`` and ``FashionMNIST``
(IDX files), with optional download; ``ImageFolder`` (image files by class folder, through
Pillow) and ``FakeData`` (random images)."""

from ._formats import DatasetFormatError, read_idx
from .cifar import CIFAR10
from .fake_data import FakeData
from .image_folder import DatasetFolder, ImageFolder
from .mnist import MNIST, FashionMNIST
from .vision import ImageClassificationDataset

__all__ = [
    "CIFAR10",
    "MNIST",
    "FashionMNIST",
    "ImageFolder",
    "DatasetFolder",
    "FakeData",
    "ImageClassificationDataset",
    "DatasetFormatError",
    "read_idx",
]
