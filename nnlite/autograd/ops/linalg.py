"""Matrix products (numpy's BLAS)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..._runtime.threads_matmul import matmul
from ..op import Op
from . import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient


class MatMul(Op):
    """``a @ b`` with numpy's matmul semantics (1-D vectors, batched broadcasting)."""

    node_name = "MmBackward0"
    saved_inputs = (0, 1)

    def forward(self, a: Array, b: Array) -> Array:
        if a.ndim == 0 or b.ndim == 0:
            raise RuntimeError(
                "both arguments to matmul need to be at least 1D, but they are "
                f"{a.ndim}D and {b.ndim}D"
            )
        if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            ra = "x".join(map(str, a.shape if a.ndim > 1 else (1,) + a.shape))
            rb = "x".join(map(str, b.shape if b.ndim > 1 else b.shape + (1,)))
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({ra} and {rb})")
        return matmul(_blas_friendly(a), _blas_friendly(b))

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[Gradient | None, Gradient | None]:
        a, b = self.inputs()
        # a vector operand is a one-row (a) or one-column (b) matrix; the gradient gets those
        # dimensions back, then loses them again
        a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
        b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
        g = grad
        if a.ndim == 1 or b.ndim == 1:
            batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
            g = grad.reshape(batch + (a2.shape[-2], b2.shape[-1]))
        ga = gb = None
        if needs[0]:
            ga = vjp.sum_to(_product(g, vjp.swap_last(b2)), a2.shape)
            if a.ndim == 1:
                ga = ga.reshape(a.shape)
        if needs[1]:
            gb = vjp.sum_to(_product(vjp.swap_last(a2), g), b2.shape)
            if b.ndim == 1:
                gb = gb.reshape(b.shape)
        return ga, gb


def _product(x: Gradient, y: Gradient) -> Gradient:
    if vjp.is_tensor(x) or vjp.is_tensor(y):
        return x @ y
    return matmul(_blas_friendly(x), _blas_friendly(y))


# Small transposed operands: BLAS's transposed kernels are slower than a copy plus the plain one.
_SMALL_OPERAND = 1 << 16


def _blas_friendly(m: Array) -> Array:
    if m.ndim == 2 and m.size <= _SMALL_OPERAND and not m.flags.c_contiguous:
        return np.ascontiguousarray(m)
    return m
