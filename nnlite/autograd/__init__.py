"""nnlite.autograd: the Tensor, the backward engine, custom Functions and gradient checking."""

from typing import Any

from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad
from .engine_switches import (
    _force_original_view_tracking,
    enforce_grad_layout_policy,
    is_multithreading_enabled,
    is_view_replay_enabled,
    set_multithreading_enabled,
)
from .function import Function
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph_drawing import print_graph, to_dot
from .legacy import Variable
from .nested_io_function import NestedIOFunction
from .saved_tensor import SavedTensor
from .sizes import Size
from .tensor import Tensor
from .torch_function import handle_torch_function, has_torch_function

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
    "detect_anomaly",
    "set_detect_anomaly",
    "inference_mode",
    "is_tensor_like",
    "variable",
    "SavedTensor",
    "NestedIOFunction",
    "enforce_grad_layout_policy",
    "is_multithreading_enabled",
    "is_view_replay_enabled",
    "set_multithreading_enabled",
    "_force_original_view_tracking",
    "has_torch_function",
    "handle_torch_function",
]


def is_tensor_like(inp: object) -> bool:
    """Whether ``inp`` is a Tensor or an object whose type defines ``__torch_function__``.

    Args:
        inp: any object.

    Returns:
        bool: True for a Tensor or such an object.

    Examples:
        >>> nl.autograd.is_tensor_like(nl.zeros(1))
        True
    """
    return isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def variable(*args: Any, **kwargs: Any) -> Tensor:
    """``nl.tensor`` under autograd's old name (``torch.autograd.variable``).

    Args:
        *args: as ``nl.tensor``.
        **kwargs: as ``nl.tensor``.

    Returns:
        Tensor: the tensor.

    Examples:
        >>> nl.autograd.variable([1.], requires_grad=True)
        tensor([1.], requires_grad=True)
    """
    from .creation import tensor

    return tensor(*args, **kwargs)
