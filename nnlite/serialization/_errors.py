"""The one error type of every load path."""

__all__ = ["CheckpointError"]


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
