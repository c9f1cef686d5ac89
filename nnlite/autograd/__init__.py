"""nnlite.autograd: the Tensor, the backward engine, custom Functions and gradient checking."""

from . import tensor_docs  # attaches the docstrings of Tensor's methods
from .engine import backward, grad
from .function import Function
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph_drawing import print_graph, to_dot
from .legacy import Variable
from .tensor import Size, Tensor

__all__ = [
    "Tensor",
    "Size",
    "Function",
    "backward",
    "grad",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "Variable",
    "to_dot",
    "print_graph",
]
