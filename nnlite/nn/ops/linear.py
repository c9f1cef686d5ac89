"""The affine map ``x @ w.T + b`` as one op (PyTorch's ``addmm``) for 2-D inputs."""
import numpy as np

from ...autograd.function import Function

_TYPE_NAMES = {np.dtype(np.float32): "Float", np.dtype(np.float64): "Double", np.dtype(np.float16): "Half"}


def _dtype_name(dt):
    return _TYPE_NAMES.get(dt, dt.name.capitalize())


class Linear(Function):
    """``y = x @ w.T + b`` for a 2-D ``x``; ``b`` may be None (see ``LinearNoBias``)."""

    _array_forward = True
    node_name = "AddmmBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, w, b):
        if x.shape[1] != w.shape[1]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                               f"{w.shape[1]}x{w.shape[0]})")
        if x.dtype != w.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_dtype_name(x.dtype)} and "
                               f"{_dtype_name(w.dtype)}")
        y = np.dot(x, w.T)
        if b is not None:
            y += b
        return y

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        edges = ctx.next_functions
        gx = grad.mm(w) if edges[0][0] is not None else None
        gw = grad.t().mm(x) if edges[1][0] is not None else None
        gb = grad.sum(0) if len(edges) > 2 and edges[2][0] is not None else None
        return gx, gw, gb


class LinearNoBias(Linear):
    """``x @ w.T`` (PyTorch records it as ``mm``)."""

    node_name = "MmBackward0"
