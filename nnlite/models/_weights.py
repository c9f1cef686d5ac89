"""Loading published weights into a freshly built model (the ``weights=`` argument of the builders)."""

import os
from collections.abc import Mapping
from typing import Any, TypeVar

from ..nn import Module

_M = TypeVar("_M", bound=Module)

__all__ = ["load_weights"]

# Keys under which training scripts commonly nest the model's state dict in a checkpoint.
_NESTED_KEYS = ("model", "state_dict", "model_state_dict")


def _state_dict_of(obj: object, path: str) -> Mapping[str, Any]:
    """The mapping of tensor names to tensors inside a loaded weight file."""
    if not isinstance(obj, Mapping):
        raise ValueError(f"weights file '{path}' holds a {type(obj).__name__}, not a state dict")
    for key in _NESTED_KEYS:
        nested = obj.get(key)
        if isinstance(nested, Mapping) and nested and all(isinstance(k, str) for k in nested):
            return nested
    return obj


def load_weights(model: _M, weights: str | os.PathLike[str] | None) -> _M:
    """Load the weights file ``weights`` (``.pth``, ``.safetensors`` or nnlite ``.npz``) into ``model``.

    A nested checkpoint (``{"model": state_dict, ...}`` as nnlite's trainer writes, or
    ``{"state_dict": ...}``) is unwrapped. The load is strict: missing or unexpected names and shape
    mismatches raise ``RuntimeError`` naming the file.

    Args:
        model (nn.Module): the model, built with the architecture the file was saved from.
        weights (str or os.PathLike or None): the file; ``None`` leaves the model as initialised.

    Returns:
        nn.Module: ``model``.

    Examples:
        >>> from nnlite.models import load_weights
        >>> nl.save(nn.Linear(2, 1).state_dict(), "linear.pth")
        >>> model = load_weights(nn.Linear(2, 1), "linear.pth")
        >>> model.weight.shape
        nnlite.Size([1, 2])
    """
    if weights is None:
        return model
    if not isinstance(weights, (str, os.PathLike)):
        raise TypeError(
            f"weights must be a path to a weight file or None, got {type(weights).__name__} "
            "(nnlite has no weight enums and downloads nothing: pass the file's path)"
        )
    from ..serialization import load

    path = os.fspath(weights)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"weights file '{path}' does not exist")
    state_dict = _state_dict_of(load(path, weights_only=True), path)
    try:
        model.load_state_dict(state_dict)
    except RuntimeError as e:
        raise RuntimeError(
            f"weights file '{path}' does not fit {type(model).__name__}: {e}"
        ) from None
    return model
