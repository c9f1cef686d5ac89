"""PyTorch's pickle keywords of ``save`` and ``load`` (``pickle_module``, ``pickle_protocol``, ...).

nnlite pickles with Python's :mod:`pickle` at protocol 2 into PyTorch's zip format with its byte
order record, which are PyTorch's defaults: those values are accepted, others refused by name.
"""

from __future__ import annotations

import pickle
from typing import Any


def _check_pickle_module(fn: str, pickle_module: Any) -> None:
    if pickle_module is not None and pickle_module is not pickle:
        raise ValueError(
            f"nl.{fn}: pickle_module must be Python's pickle module, the one nnlite uses "
            f"(got {getattr(pickle_module, '__name__', pickle_module)!r})"
        )


def check_save_options(
    pickle_module: Any, pickle_protocol: int, new_zipfile: bool, disable_byteorder_record: bool
) -> None:
    """Refuse ``save`` options other than the format nnlite writes (PyTorch's defaults)."""
    _check_pickle_module("save", pickle_module)
    if pickle_protocol != 2:
        raise ValueError(f"nl.save: only pickle_protocol=2 is written (got {pickle_protocol})")
    if not new_zipfile:
        raise ValueError(
            "nl.save: the legacy (non-zip) format is not written; keep "
            "_use_new_zipfile_serialization=True"
        )
    if disable_byteorder_record:
        raise ValueError(
            "nl.save: the byte order record is always written; keep _disable_byteorder_record=False"
        )


def resolve_weights_only(pickle_module: Any, weights_only: bool | None) -> bool:
    """``load``'s ``weights_only`` as PyTorch resolves it: unset, it is True unless a
    ``pickle_module`` is given; set True with a ``pickle_module``, it is PyTorch's error."""
    _check_pickle_module("load", pickle_module)
    if weights_only is None:
        return pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    return weights_only
