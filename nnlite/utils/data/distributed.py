"""``nnlite.utils.data.distributed``: PyTorch's module path for ``DistributedSampler``."""

from ...data import DistributedSampler  # noqa: F401

__all__ = ["DistributedSampler"]
