"""The affine map ``x @ w.T + b`` as one op, recorded as PyTorch records it.

With a bias the op is PyTorch's ``addmm(b, x, w.T)``: node ``AddmmBackward0`` whose inputs are
(bias, input, weight), so ``next_functions[0]`` is the bias's accumulator, as in the tutorial's
output. Without a bias it is ``mm(x, w.T)`` (``MmBackward0``, inputs (input, weight)).

Backward has two forms of the same formulas: on plain arrays when nothing records (the usual
first-order backward, where building no intermediate Tensors saves most of the time at small
batch sizes), and with Tensor ops when the backward pass is itself recorded (``create_graph``).
"""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.tensor import _make

_grad_state = grad_mode._state

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _check(x, w):
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
                           f"{w.shape[1]}x{w.shape[0]})")
    if x.dtype != w.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_TYPE_NAMES.get(x.dtype.name, x.dtype)} "
                           f"and {_TYPE_NAMES.get(w.dtype.name, w.dtype)}")


class Linear(Function):
    """``b + x @ w.T`` for a 2-D ``x`` (argument order as ``addmm``)."""

    _array_forward = True
    node_name = "AddmmBackward0"
    saved_inputs = (1, 2)

    @staticmethod
    def forward(ctx, b, x, w):
        _check(x, w)
        y = np.dot(x, w.T)
        y += b
        return y

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        edges = ctx.next_functions
        if not _grad_state[0]:
            g = grad._data
            return (_make(g.sum(0)) if edges[0][0] is not None else None,
                    _make(np.dot(g, w._data)) if edges[1][0] is not None else None,
                    _make(np.dot(g.T, x._data)) if edges[2][0] is not None else None)
        gb = grad.sum(0) if edges[0][0] is not None else None
        gx = grad.mm(w) if edges[1][0] is not None else None
        gw = grad.t().mm(x) if edges[2][0] is not None else None
        return gb, gx, gw


class LinearNoBias(Function):
    """``x @ w.T`` for a 2-D ``x``."""

    _array_forward = True
    node_name = "MmBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, w):
        _check(x, w)
        return np.dot(x, w.T)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        edges = ctx.next_functions
        if not _grad_state[0]:
            g = grad._data
            return (_make(np.dot(g, w._data)) if edges[0][0] is not None else None,
                    _make(np.dot(g.T, x._data)) if edges[1][0] is not None else None)
        gx = grad.mm(w) if edges[0][0] is not None else None
        gw = grad.t().mm(x) if edges[1][0] is not None else None
        return gx, gw
