"""The one error type of every load path."""

import pickle

__all__ = ["CheckpointError", "WeightsOnlyError"]


class CheckpointError(RuntimeError, ValueError):
    """A file is not a readable checkpoint (bad zip, truncated, corrupt, foreign or hostile); the
    message names the file and the problem.

    Examples:
        >>> with open("broken.pth", "wb") as f:
        ...     _ = f.write(b"PK not really a zip")
        >>> nl.load("broken.pth")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
            ...
        nnlite.serialization.CheckpointError: not an nnlite checkpoint: broken.pth ...
    """


CheckpointError.__module__ = "nnlite.serialization"  # where users import it from


class WeightsOnlyError(CheckpointError, pickle.UnpicklingError):
    """``nl.load(weights_only=True)`` met a global the allow-list does not hold (PyTorch raises
    ``pickle.UnpicklingError`` there); the message names it and the two ways to load the file.

    Examples:
        >>> nl.save(nn.Linear(2, 1), "whole_model.pt")
        >>> try:
        ...     nl.load("whole_model.pt")
        ... except nl.serialization.WeightsOnlyError as e:
        ...     print("nnlite.nn.modules.linear.Linear" in str(e))
        True
    """


WeightsOnlyError.__module__ = "nnlite.serialization"
