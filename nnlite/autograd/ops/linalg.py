"""Matrix products (numpy's BLAS)."""
import numpy as np

from .. import grad_mode
from ..function import Function
from ..tensor import _make
from .arithmetic import sum_to


class MatMul(Function):
    """``a @ b`` with numpy's matmul semantics (1-D vectors, batched broadcasting)."""

    _array_forward = True
    node_name = "MmBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, a, b):
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                               f"{a.ndim}D and {b.ndim}D")
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            ra = "x".join(map(str, a.shape if a.ndim > 1 else (1,) + a.shape))
            rb = "x".join(map(str, b.shape if b.ndim > 1 else b.shape + (1,)))
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra} and {rb})")
        return np.matmul(_blas_friendly(a), _blas_friendly(b))

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        if a.ndim == 2 and b.ndim == 2 and not _grad_state[0]:
            # first-order backward of the plain matrix product, on arrays
            g, edges = grad._data, ctx.next_functions
            return (_make(np.matmul(g, _blas_friendly(b._data.T))) if edges[0][0] is not None else None,
                    _make(np.matmul(_blas_friendly(a._data.T), g)) if edges[1][0] is not None else None)
        ga = gb = None
        a2 = a if a.ndim > 1 else a.unsqueeze(0)
        b2 = b if b.ndim > 1 else b.unsqueeze(-1)
        g = grad
        if a.ndim == 1:
            g = g.unsqueeze(-2)
        if b.ndim == 1:
            g = g.unsqueeze(-1)
        if ctx.next_functions[0][0] is not None:
            ga = g @ b2.transpose(-1, -2)
            ga = sum_to(ga, a2.shape)
            if a.ndim == 1:
                ga = ga.squeeze(0)
        if ctx.next_functions[1][0] is not None:
            gb = a2.transpose(-1, -2) @ g
            gb = sum_to(gb, b2.shape)
            if b.ndim == 1:
                gb = gb.squeeze(-1)
        return ga, gb


_grad_state = grad_mode._state

# Small transposed operands: BLAS's transposed kernels are slower than a copy plus the plain one.
_SMALL_OPERAND = 1 << 16


def _blas_friendly(m):
    if m.ndim == 2 and m.size <= _SMALL_OPERAND and not m.flags.c_contiguous:
        return np.ascontiguousarray(m)
    return m
