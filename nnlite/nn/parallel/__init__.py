"""Parallel wrappers: ``DataParallel`` (worker processes on one machine) and PyTorch's functional
form ``data_parallel``.

``DistributedDataParallel`` is importable from here when ``distributed.py`` is present.

The name ``data_parallel`` is the function here, as in PyTorch (where it also hides the module of
the same name); the module stays importable by its full path
(``from nnlite.nn.parallel.data_parallel import DataParallel``) and as ``_data_parallel``.
"""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING

from . import data_parallel as _data_parallel  # noqa: F401  (the module, under the name the function hides)
from .data_parallel import DataParallel
from .functional import data_parallel

if TYPE_CHECKING:
    from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "data_parallel"]


def __getattr__(name: str) -> type[DistributedDataParallel]:
    if (
        name == "DistributedDataParallel"
        and importlib.util.find_spec(f"{__name__}.distributed") is not None
    ):
        from .distributed import DistributedDataParallel

        return DistributedDataParallel
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
