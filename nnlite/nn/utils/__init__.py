"""``nnlite.nn.utils``: gradient clipping, parameter/vector conversion and (``rnn``) variable-length
sequences, as ``torch.nn.utils``.

Examples:
    >>> from nnlite.nn.utils import clip_grad_norm_
    >>> model = nl.nn.Linear(4, 2)
    >>> model(nl.randn(8, 4)).sum().backward()
    >>> total_norm = clip_grad_norm_(model.parameters(), max_norm=1.0)
"""

from . import rnn
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
    "parameters_to_vector",
    "vector_to_parameters",
    "rnn",
]
