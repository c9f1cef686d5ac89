"""Parallel wrappers: ``DataParallel`` (worker processes on one machine).

``DistributedDataParallel`` is importable from here when ``distributed.py`` is present.
"""
import importlib.util

from .data_parallel import DataParallel

__all__ = ["DataParallel"]


def __getattr__(name):
    if name == "DistributedDataParallel" and importlib.util.find_spec(f"{__name__}.distributed") is not None:
        from .distributed import DistributedDataParallel
        return DistributedDataParallel
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
