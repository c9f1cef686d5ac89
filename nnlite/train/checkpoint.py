"""Training checkpoints: what they hold, how they are written (atomically) and read back.

A checkpoint is an ``nl.save`` file (``.npz`` + JSON header, no pickle) holding a dict::

    format        "nnlite-train-checkpoint"
    version       1
    model         the plain model's state_dict (no "module." prefix, loads into a bare model)
    optimizer     optimizer.state_dict()
    scheduler     scheduler.state_dict() or None
    epoch         epochs completed
    global_step   optimizer steps taken
    accuracy      test accuracy after this epoch (fraction)
    best_accuracy best test accuracy so far (fraction)
    seconds       training time so far, all sessions of the run
    rng           {"nnlite": ..., "numpy": ..., "python": ...}: generator states as JSON data
    config        the resolved config of the run
    classes       the dataset's class names
"""

import os
import random
import shutil
from typing import Any

import numpy as np

from .. import serialization

__all__ = [
    "FORMAT",
    "rng_state",
    "set_rng_state",
    "save_checkpoint",
    "load_checkpoint",
    "copy_atomic",
    "model_state_from",
]

FORMAT = "nnlite-train-checkpoint"
VERSION = 1


def rng_state() -> dict[str, Any]:
    """The states of nnlite's, numpy's global and python's generators, as JSON-able data."""
    from ..autograd import random as nl_random

    algo, keys, pos, has_gauss, cached = np.random.get_state()  # noqa: NPY002  (saved for resume)
    version, internal, gauss_next = random.getstate()
    return {
        "nnlite": _plain(nl_random.get_rng_state()),
        "numpy": {
            "algorithm": str(algo),
            "keys": [int(k) for k in keys],
            "pos": int(pos),
            "has_gauss": int(has_gauss),
            "cached_gaussian": float(cached),
        },
        "python": {
            "version": int(version),
            "state": [int(x) for x in internal],
            "gauss_next": gauss_next,
        },
    }


def set_rng_state(state: dict[str, Any]) -> None:
    """Restore the generators from ``rng_state()``'s result."""
    from ..autograd import random as nl_random

    nl_random.set_rng_state(_plain(state["nnlite"]))
    n = state["numpy"]
    np.random.set_state(  # noqa: NPY002  (restores the global generator on resume)
        (
            n["algorithm"],
            np.asarray(n["keys"], dtype=np.uint32),
            int(n["pos"]),
            int(n["has_gauss"]),
            float(n["cached_gaussian"]),
        )
    )
    p = state["python"]
    random.setstate((int(p["version"]), tuple(int(x) for x in p["state"]), p["gauss_next"]))


def _plain(obj: Any) -> Any:
    """Nested dicts/lists with numpy scalars turned into Python ones."""
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_plain(v) for v in obj]
    if isinstance(obj, np.generic):
        return obj.item()
    return obj


def save_checkpoint(state: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write ``state`` to ``path`` with ``nl.save``: to a temporary file in the same folder,
    then renamed over ``path``, so a crash never leaves a half-written checkpoint.

    Args:
        state (dict): what to save (model, optimizer and scheduler states, epoch, ...).
        path (str): the file.

    Examples:
        >>> from nnlite.train import save_checkpoint, load_checkpoint
        >>> save_checkpoint({"epoch": 1, "w": nl.zeros(2)}, "last.npz")
        >>> load_checkpoint("last.npz")["epoch"]
        1
    """
    state = {"format": FORMAT, "version": VERSION, **state}
    serialization.save(state, path)


def copy_atomic(src: str, dst: str) -> None:
    """Copy ``src`` to ``dst`` through a temporary file and ``os.replace``."""
    with serialization.replace_atomically(dst) as out, open(src, "rb") as f:
        shutil.copyfileobj(f, out, 1 << 20)


class CheckpointFileError(RuntimeError):
    """A file is missing or is not a trainer checkpoint."""


def load_checkpoint(path: str | os.PathLike[str]) -> dict[str, Any]:
    """A checkpoint written by ``save_checkpoint`` (``CheckpointFileError`` naming the file
    and the problem otherwise).

    Args:
        path (str): the file.

    Returns:
        dict: the saved state.

    Examples:
        >>> from nnlite.train import save_checkpoint, load_checkpoint
        >>> save_checkpoint({"epoch": 1, "w": nl.zeros(2)}, "last.npz")
        >>> load_checkpoint("last.npz")["w"]
        tensor([0., 0.])
    """
    try:
        state = serialization.load(path)
    except FileNotFoundError:
        raise CheckpointFileError(f"checkpoint not found: {path}") from None
    except (OSError, serialization.CheckpointError) as e:
        raise CheckpointFileError(f"cannot read checkpoint {path}: {e}") from None
    if not isinstance(state, dict) or state.get("format") != FORMAT:
        raise CheckpointFileError(f"{path} is not a training checkpoint written by train.py")
    if state.get("version", 0) > VERSION:
        raise CheckpointFileError(
            f"{path} was written by a newer nnlite (checkpoint version "
            f"{state.get('version')}, this one reads {VERSION})"
        )
    return state


def model_state_from(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The model state_dict in ``path``: a training checkpoint's ``model`` entry, or a file
    holding a bare state_dict (``nl.save(model.state_dict(), path)``). A ``module.`` prefix
    on every key (a DataParallel state_dict) is removed."""
    try:
        obj = serialization.load(path)
    except FileNotFoundError:
        raise CheckpointFileError(f"file not found: {path}") from None
    except IsADirectoryError:
        raise CheckpointFileError(f"{path} is a directory, not a checkpoint file") from None
    except (OSError, serialization.CheckpointError) as e:
        raise CheckpointFileError(f"cannot read {path}: {e}") from None
    if isinstance(obj, dict) and obj.get("format") == FORMAT:
        obj = obj["model"]
    elif isinstance(obj, dict) and isinstance(obj.get("model"), dict):
        obj = obj["model"]
    if not isinstance(obj, dict) or not obj or not all(isinstance(k, str) for k in obj):
        raise CheckpointFileError(
            f"{path} holds neither a training checkpoint nor a model state_dict"
        )
    if all(k.startswith("module.") for k in obj):
        obj = {k[len("module.") :]: v for k, v in obj.items()}
    return obj
