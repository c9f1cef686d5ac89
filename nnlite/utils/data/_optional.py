"""Re-export names that ``nnlite.data`` may or may not have yet (it gains classes over time)."""

from collections.abc import Iterable
from typing import Any

from ... import data as _data
from ...data import dataset as _dataset
from ...data import sampler as _sampler


def reexport_present(namespace: dict[str, Any], names: Iterable[str]) -> None:
    """Put each of ``names`` that ``nnlite.data`` (or its ``dataset``/``sampler`` module) defines
    into ``namespace`` and its ``__all__``."""
    for name in names:
        for module in (_data, _dataset, _sampler):
            if hasattr(module, name):
                namespace[name] = getattr(module, name)
                namespace["__all__"].append(name)
                break
