"""nnlite.autograd: the Tensor, the backward engine, custom Functions and gradient checking."""
from .tensor import Tensor, Size
from .function import Function
from .engine import backward, grad
from .grad_mode import no_grad, enable_grad, set_grad_enabled, is_grad_enabled
from .gradcheck import gradcheck, gradgradcheck, GradcheckError
from .legacy import Variable
from .graph_drawing import to_dot, print_graph

__all__ = ["Tensor", "Size", "Function", "backward", "grad", "no_grad", "enable_grad", "set_grad_enabled",
           "is_grad_enabled", "gradcheck", "gradgradcheck", "GradcheckError", "Variable", "to_dot", "print_graph"]
