"""``nnlite.utils.data.dataloader``: PyTorch's module path for ``DataLoader`` and collation."""

from ...data import DataLoader, default_collate, default_convert, get_worker_info

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]
