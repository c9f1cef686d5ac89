"""Datasets read by nnlite itself: ``CIFAR10`` (python batches), ``MNIST`` and ``FashionMNIST``
(IDX files), with optional download."""
from ._formats import DatasetFormatError, read_idx
from .cifar import CIFAR10
from .mnist import MNIST, FashionMNIST
from .vision import ImageClassificationDataset

__all__ = ["CIFAR10", "MNIST", "FashionMNIST", "ImageClassificationDataset", "DatasetFormatError", "read_idx"]
