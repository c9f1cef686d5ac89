"""``RUN_DIR/summary.txt``: the model summary the run page shows, made by the training process.

The trainer has the model built and its kernels loaded; the page writer, a fresh process, would
build the model again and spend seconds loading the kernels only to run one image through it. The
summary's layer timings are measured where the training runs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from .._runtime.atomic_file import replace_atomically

if TYPE_CHECKING:
    from ..nn.modules.module import Module

__all__ = ["FILE_NAME", "write_model_summary"]

FILE_NAME = "summary.txt"


def write_model_summary(run_dir: str, model: Module, test_set: Any) -> None:
    """Write ``nl.summary`` of ``model`` for one image of ``test_set`` to ``run_dir/summary.txt``
    atomically. A model the summary cannot run is left to the page, which says why: nothing is
    written and nothing raised."""
    from ..nn.utils.model_summary import summary

    try:
        input_size = (1,) + tuple(test_set[0][0].shape)
        text = str(summary(model, input_size=input_size))
        with replace_atomically(os.path.join(run_dir, FILE_NAME)) as f:
            f.write(text.encode("utf-8"))
    except Exception:  # noqa: BLE001 (the page makes or explains the summary itself)
        pass
