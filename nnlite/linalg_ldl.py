"""The LDL factorization of symmetric matrices with Bunch-Kaufman pivoting, as
``torch.linalg.ldl_factor``, ``ldl_factor_ex`` and ``ldl_solve``.

The factorization is LAPACK's ``sytf2`` on the lower triangle: ``A = P L D L^T P^T`` with ``L``
unit lower-triangular and ``D`` block diagonal with 1x1 and 2x2 blocks. At step ``k`` the largest
entry below the diagonal (``colmax``, in row ``imax``) is compared with ``|A[k, k]|`` through
``alpha = (1 + sqrt(17)) / 8``: no interchange, a 1x1 pivot from row ``imax``, or a 2x2 block of
rows ``k, imax``. ``pivots`` holds the 1-based rows (negative for 2x2 blocks, on both of its rows).
``LD`` holds ``L`` below the diagonal and ``D`` on it (and the subdiagonal of a 2x2 block); its
upper triangle is zero. PyTorch has no derivative for these functions; neither has nnlite.

Examples:
    >>> nl.linalg.ldl_factor(nl.tensor([[0., 1.], [1., 0.]])).pivots
    tensor([-2, -2], dtype=nnlite.int32)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np

from .autograd import op as _op
from .autograd.op import Op
from .linalg_results import named

if TYPE_CHECKING:
    from ._typing import Array, Gradient
    from .autograd.tensor import Tensor

_ALPHA = (1 + math.sqrt(17)) / 8
_ldl_factor_result = named("linalg_ldl_factor", ("LD", "pivots"))
_ldl_factor_ex_result = named("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def _swap_symmetric(a: np.ndarray, k: int, kk: int, kp: int, two_by_two: bool) -> None:
    """Interchange rows and columns ``kk`` and ``kp`` of the trailing lower triangle (``kp > kk``)."""
    n = a.shape[0]
    if kp < n - 1:
        a[kp + 1 :, [kk, kp]] = a[kp + 1 :, [kp, kk]]
    middle = a[kk + 1 : kp, kk].copy()
    a[kk + 1 : kp, kk] = a[kp, kk + 1 : kp]
    a[kp, kk + 1 : kp] = middle
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if two_by_two:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _choose_pivot(a: np.ndarray, k: int) -> tuple[int, int, bool]:
    """``(kp, kstep, singular)`` of step ``k`` (0-based rows)."""
    n = a.shape[0]
    absakk = abs(a[k, k])
    if k < n - 1:
        imax = k + 1 + int(np.argmax(np.abs(a[k + 1 :, k])))
        colmax = abs(a[imax, k])
    else:
        imax, colmax = k, 0.0
    if max(absakk, colmax) == 0 or math.isnan(absakk):
        return k, 1, True
    if absakk >= _ALPHA * colmax:
        return k, 1, False
    row = np.abs(a[imax, k:imax])
    rowmax = float(row.max())
    if imax < n - 1:
        rowmax = max(rowmax, float(np.abs(a[imax + 1 :, imax]).max()))
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1, False
    if abs(a[imax, imax]) >= _ALPHA * rowmax:
        return imax, 1, False
    return imax, 2, False


def _factor_one(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """``(LD, pivots, info)`` of one symmetric matrix (its lower triangle is read)."""
    n = a.shape[0]
    a = np.tril(a).astype(a.dtype, copy=True)
    pivots = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kp, kstep, singular = _choose_pivot(a, k)
        if singular:
            info = info or k + 1
        else:
            kk = k + kstep - 1
            if kp != kk:
                _swap_symmetric(a, k, kk, kp, kstep == 2)
            if kstep == 1:
                if k < n - 1:
                    x = a[k + 1 :, k].copy()
                    a[k + 1 :, k + 1 :] -= np.tril(np.outer(x, x)) / a[k, k]
                    a[k + 1 :, k] = x / a[k, k]
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                t = 1 / (d11 * d22 - 1)
                d21 = t / d21
                wk = d21 * (d11 * a[k + 2 :, k] - a[k + 2 :, k + 1])
                wkp1 = d21 * (d22 * a[k + 2 :, k + 1] - a[k + 2 :, k])
                update = np.outer(a[k + 2 :, k], wk) + np.outer(a[k + 2 :, k + 1], wkp1)
                a[k + 2 :, k + 2 :] -= np.tril(update)
                a[k + 2 :, k] = wk
                a[k + 2 :, k + 1] = wkp1
        if kstep == 1:
            pivots[k] = kp + 1
        else:
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += kstep
    return a, pivots, info


def factor_arrays(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LD, pivots, info)`` for ``(*, n, n)`` matrices."""
    *batch, n, _ = a.shape
    flat = a.reshape(-1, n, n)
    results = [_factor_one(m) for m in flat]
    ld = np.stack([r[0] for r in results]) if results else flat.copy()
    pivots = np.stack([r[1] for r in results]) if results else np.zeros((0, n), np.int32)
    info = np.array([r[2] for r in results], dtype=np.int32)
    return ld.reshape(a.shape), pivots.reshape(tuple(batch) + (n,)), info.reshape(tuple(batch))


def _solve_one(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``X`` with ``A X = B`` from the factors (LAPACK's ``sytrs`` on the lower triangle)."""
    n = ld.shape[0]
    b = b.copy()
    k = 0
    while k < n:  # L D Y = P^T B
        if pivots[k] > 0:
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1 :] -= np.outer(ld[k + 1 :, k], b[k])
            b[k] /= ld[k, k]
            k += 1
        else:
            kp = -pivots[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2 :] -= np.outer(ld[k + 2 :, k], b[k]) + np.outer(ld[k + 2 :, k + 1], b[k + 1])
            off = ld[k + 1, k]
            first, second = ld[k, k] / off, ld[k + 1, k + 1] / off
            denominator = first * second - 1
            bk, bk1 = b[k] / off, b[k + 1] / off
            b[k], b[k + 1] = (second * bk - bk1) / denominator, (first * bk1 - bk) / denominator
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T X = Y
        if pivots[k] > 0:
            b[k] -= ld[k + 1 :, k] @ b[k + 1 :]
            kp = pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ld[k + 1 :, k] @ b[k + 1 :]
            b[k - 1] -= ld[k + 1 :, k - 1] @ b[k + 1 :]
            kp = -pivots[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    solution: np.ndarray = b  # solved in place
    return solution


class _NoDerivative(Op):
    """A result of a function PyTorch has no derivative for (its backward raises PyTorch's error)."""

    node_name = "NotImplemented"
    result: np.ndarray | None = None
    function = ""

    def forward(self, *arrays: Array) -> Array | None:
        return self.result

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> NoReturn:
        raise RuntimeError(f"derivative for aten::{self.function} is not implemented")


def _square(A: Tensor, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(
            f"torch.linalg.{name}: The input tensor A must have at least 2 dimensions."
        )
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"torch.linalg.{name}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )
    if A._data.dtype.kind != "f":
        raise RuntimeError(
            f"torch.linalg.{name}: Expected a floating point or complex tensor as input."
        )


def _factor(A: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    _square(A, "ldl_factor_ex")
    ld, pivots, info = factor_arrays(A._data)
    LD = _NoDerivative.apply(A, result=ld, function="linalg_ldl_factor_ex")
    return LD, _op.make_tensor(pivots), _op.make_tensor(info)


def _write(result: Any, out: Any, name: str) -> Any:
    if out is None:
        return result
    from .autograd.out_arg import write_out

    return type(result)(tuple(write_out(name, r, o, (r,)) for r, o in zip(result, out)))


def ldl_factor_ex(
    A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """The LDL factorization of symmetric matrices with Bunch-Kaufman pivoting, and ``info``.

    Args:
        A (Tensor): ``(*, n, n)``; its lower triangle is read.
        hermitian (bool): the same for real matrices. Default: False.
        check_errors (bool): raise when ``info`` is non-zero. Default: False.
        out (tuple, optional): three tensors to write the results into.

    Returns:
        A named tuple ``(LD, pivots, info)``: ``info`` is 0, or the 1-based index of the first
        exactly zero 1x1 block of ``D``. Not differentiable (as in PyTorch).

    Examples:
        >>> nl.linalg.ldl_factor_ex(nl.tensor([[4., 2.], [2., 3.]])).LD
        tensor([[4.0000, 0.0000],
                [0.5000, 2.0000]])
    """
    LD, pivots, info = _factor(A)
    if check_errors:
        _raise_on_info(info, "torch.linalg.ldl_factor_ex")
    return _write(_ldl_factor_ex_result((LD, pivots, info)), out, "linalg_ldl_factor_ex")


def _raise_on_info(info: Tensor, name: str) -> None:
    bad = info._data[info._data > 0]
    if bad.size:
        i = int(bad.reshape(-1)[0])
        raise RuntimeError(
            f"{name}: The factorization could not be completed because the input is singular: "
            f"D[{i},{i}] is exactly zero (info = {i})."
        )


def ldl_factor(A: Tensor, *, hermitian: bool = False, out: Any = None) -> Any:
    """The LDL factorization of symmetric matrices; raises on an exactly singular ``D``.

    Args:
        A (Tensor): ``(*, n, n)``; its lower triangle is read.
        hermitian (bool): the same for real matrices. Default: False.
        out (tuple, optional): two tensors to write the results into.

    Returns:
        A named tuple ``(LD, pivots)`` (see ``ldl_factor_ex``).

    Examples:
        >>> nl.linalg.ldl_factor(nl.tensor([[4., 2.], [2., 3.]])).pivots
        tensor([1, 2], dtype=nnlite.int32)
    """
    LD, pivots, info = _factor(A)
    _raise_on_info(info, "torch.linalg.ldl_factor")
    return _write(_ldl_factor_result((LD, pivots)), out, "linalg_ldl_factor")


def ldl_solve(
    LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out: Tensor | None = None
) -> Tensor:
    """``X`` with ``A X = B`` from ``A``'s LDL factors.

    Args:
        LD (Tensor): ``(*, n, n)`` factors of ``ldl_factor``.
        pivots (Tensor): ``(*, n)`` its pivots.
        B (Tensor): ``(*, n, k)`` right-hand sides (batch dimensions broadcast).
        hermitian (bool): the same for real matrices. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``X``. Not differentiable (as in PyTorch).

    Examples:
        >>> LD, pivots = nl.linalg.ldl_factor(nl.tensor([[4., 2.], [2., 3.]]))
        >>> nl.linalg.ldl_solve(LD, pivots, nl.tensor([[6.], [5.]]))
        tensor([[1.],
                [1.]])
    """
    if B.ndim < 2:
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got -2)")
    _square(LD, "ldl_solve")
    if LD._data.dtype != B._data.dtype:
        raise RuntimeError(
            "torch.linalg.ldl_solve: Expected LD and B to have the same dtype, but found LD of "
            f"type {_type_name(LD)} and B of type {_type_name(B)} instead"
        )
    batch = np.broadcast_shapes(tuple(LD.shape[:-2]), tuple(B.shape[:-2]))
    n, k = LD.shape[-1], B.shape[-1]
    ld = np.broadcast_to(LD._data, batch + (n, n)).reshape(-1, n, n)
    piv = np.broadcast_to(pivots._data, batch + (n,)).reshape(-1, n)
    b = np.broadcast_to(B._data, batch + (B.shape[-2], k)).reshape(-1, B.shape[-2], k)
    solved = np.stack([_solve_one(*parts) for parts in zip(ld, piv, b)]) if ld.size else b.copy()
    X: Tensor = _NoDerivative.apply(
        LD, B, result=solved.reshape(batch + (n, k)), function="linalg_ldl_solve"
    )
    if out is not None:
        from .autograd.out_arg import write_out

        written: Tensor = write_out("linalg_ldl_solve", X, out, (LD, B))
        return written
    return X


def _type_name(t: Tensor) -> str:
    from .autograd.promotion import scalar_type_name

    name: str = scalar_type_name(t._data.dtype)
    return name
