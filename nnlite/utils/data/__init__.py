"""``nnlite.utils.data``: PyTorch's import path for data loading. Every name here is the very
object of ``nnlite.data`` (``nnlite.utils.data.DataLoader is nnlite.data.DataLoader``), so code
written either way mixes freely.

Examples:
    >>> from nnlite.utils.data import DataLoader, TensorDataset
    >>> loader = DataLoader(TensorDataset(nl.randn(8, 3), nl.arange(8)), batch_size=4, shuffle=True)
"""

from . import dataloader, dataset, distributed, sampler
from .dataloader import *  # noqa: F401,F403
from .dataset import *  # noqa: F401,F403
from .distributed import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403

__all__ = dataset.__all__ + sampler.__all__ + distributed.__all__ + dataloader.__all__
