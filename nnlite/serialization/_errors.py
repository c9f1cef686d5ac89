"""The one error type of every load path."""

__all__ = ["CheckpointError"]


class CheckpointError(RuntimeError, ValueError):
    """A file is not a readable checkpoint (bad zip, truncated, corrupt, foreign or hostile); the
    message names the file and the problem."""


CheckpointError.__module__ = "nnlite.serialization"  # where users import it from
