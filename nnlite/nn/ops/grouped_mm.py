"""``grouped_mm``: several matrix products of one shape family in one call (the experts of a
mixture-of-experts layer), as PyTorch's. A composite of slicing, matmul and ``cat``, so every
gradient comes from those ops.

Groups are cut along the dimension that ``offs`` (int32 ends of the groups) delimits:

- ``mat_a`` 2-D ``(M, K)``, ``mat_b`` 3-D ``(G, K, N)``: rows of ``mat_a`` per group -> ``(M, N)``;
- ``mat_a`` 3-D ``(G, M, K)``, ``mat_b`` 2-D ``(K, N)``: columns of ``mat_b`` per group -> ``(M, N)``;
- both 2-D ``(M, K)`` and ``(K, N)``: the shared ``K`` per group -> ``(G, M, N)``;
- both 3-D (no ``offs``): a batched product ``(G, M, N)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.ops.shape import Cat, Stack
from ...autograd.promotion import scalar_type_name

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["grouped_mm"]

_FLOATS = (np.float32, np.float16, np.float64)


def _bounds(offs: Tensor) -> list[tuple[int, int]]:
    ends = [int(e) for e in offs._data.reshape(-1)]
    return list(zip([0] + ends[:-1], ends))


def grouped_mm(
    mat_a: Tensor,
    mat_b: Tensor,
    *,
    offs: Tensor | None = None,
    bias: Tensor | None = None,
    out_dtype: Any = None,
) -> Tensor:
    """Grouped matrix products, the groups given by ``offs`` (see the module's description).

    PyTorch takes float32, float16 and bfloat16 matrices; nnlite also takes float64 (the type its
    gradients are checked in).

    Args:
        mat_a (Tensor): the left operand, 2-D or 3-D.
        mat_b (Tensor): the right operand, 2-D or 3-D.
        offs (Tensor, optional): int32 ends of the groups along the cut dimension; required when
            an operand is 2-D, absent when both are 3-D.
        bias (Tensor, optional): not supported, as in PyTorch.
        out_dtype (nnlite.dtype, optional): the result's dtype; only the inputs' own.

    Returns:
        Tensor: the products.

    Examples:
        >>> a, b = nl.ones(5, 2), nl.ones(2, 2, 3)
        >>> F.grouped_mm(a, b, offs=nl.tensor([2, 5], dtype=nl.int32)).shape
        nnlite.Size([5, 3])
    """
    if bias is not None:
        raise RuntimeError("Bias not supported yet")
    for name, m in (("mat_a", mat_a), ("mat_b", mat_b)):
        if m._data.dtype.type not in _FLOATS:
            raise RuntimeError(
                f"Expected {name} to be Float32, BFloat16 or Float16 matrix, got "
                f"{scalar_type_name(m._data.dtype)}"
            )
    if out_dtype is not None and out_dtype != mat_a.dtype:
        raise RuntimeError("out_dtype must be the inputs' dtype in nnlite")
    both_3d = mat_a.dim() == 3 and mat_b.dim() == 3
    if both_3d == (offs is not None):
        raise RuntimeError(
            "Have to provide offsets if there is a 2d matrix, or no offset if both matrices are 3d"
        )
    if offs is None:
        return mat_a @ mat_b
    if offs._data.dtype != np.int32:
        raise RuntimeError("Offsets have to be int32")
    groups = _bounds(offs)
    if mat_a.dim() == 2 and mat_b.dim() == 3:
        parts: list[Any] = [mat_a[s:e] @ mat_b[g] for g, (s, e) in enumerate(groups)]
        rest = mat_a.shape[0] - groups[-1][1]
        if rest:  # rows past the last group take no part
            parts.append(np.zeros((rest, mat_b.shape[2]), mat_a._data.dtype))
        out: Tensor = Cat.apply(*parts, dim=0)
        return out
    if mat_a.dim() == 3 and mat_b.dim() == 2:
        columns: list[Any] = [mat_a[g] @ mat_b[:, s:e] for g, (s, e) in enumerate(groups)]
        rest = mat_b.shape[1] - groups[-1][1]
        if rest:
            columns.append(np.zeros((mat_a.shape[1], rest), mat_a._data.dtype))
        result: Tensor = Cat.apply(*columns, dim=1)
        return result
    if mat_a.dim() == 2 and mat_b.dim() == 2:
        output: Tensor = Stack.apply(*[mat_a[:, s:e] @ mat_b[s:e] for s, e in groups])
        return output
    raise RuntimeError(
        f"grouped_mm: mat_a and mat_b must be 2-D or 3-D, got {mat_a.dim()}-D and {mat_b.dim()}-D"
    )
