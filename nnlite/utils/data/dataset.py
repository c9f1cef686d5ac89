"""``nnlite.utils.data.dataset``: PyTorch's module path for the dataset classes of ``nnlite.data``."""

from ...data import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from ._optional import reexport_present

__all__ = ["Dataset", "TensorDataset", "Subset", "ConcatDataset", "random_split"]
reexport_present(globals(), ["IterableDataset", "ChainDataset", "StackDataset"])
