"""``nnlite.utils.data.sampler``: PyTorch's module path for the samplers of ``nnlite.data``."""

from ...data import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler
from ._optional import reexport_present

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler"]
reexport_present(globals(), ["WeightedRandomSampler"])
