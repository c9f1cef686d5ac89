"""``nnlite.nn.utils``: helpers around modules (``rnn``: variable-length sequences)."""
from . import rnn

__all__ = ["rnn"]
