"""LU factorization with partial pivoting (``A = P L U``), as ``torch.linalg.lu_factor``,
``lu_factor_ex``, ``lu``, ``lu_solve`` and the older ``torch.lu``, ``lu_unpack``, ``lu_solve``.

The factorization is LAPACK's ``getrf``: in column ``j`` the row with the largest absolute value
(the first of equals) is swapped up, and ``pivots[j]`` is that row's 1-based index (int32). A zero
pivot leaves its column as it is and ``info`` names the first (1-based). The packed factors are
one op, ``LUFactor``, whose backward is the matrix-calculus formula for ``A = P L U`` (square, wide
and tall matrices); ``lu`` and ``lu_solve`` are composites of it, so gradients exist to any order.

Examples:
    >>> LU, pivots = nl.linalg.lu_factor(nl.tensor([[1., 2.], [3., 4.]]))
    >>> pivots
    tensor([2, 2], dtype=nnlite.int32)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .autograd import op as _op
from .autograd.op import Op
from .autograd.ops import decompositions as _dec
from .autograd.ops import vjp
from .autograd.ops.where import Where
from .linalg_results import named

if TYPE_CHECKING:
    from ._typing import Array, Gradient
    from .autograd.tensor import Tensor

_lu_factor_result = named("linalg_lu_factor", ("LU", "pivots"))
_lu_factor_ex_result = named("linalg_lu_factor_ex", ("LU", "pivots", "info"))
_lu_result = named("linalg_lu", ("P", "L", "U"))
_lu_unpack_result = named("lu_unpack", ("P", "L", "U"))
_lu_with_info_result = named("_lu_with_info", ("LU", "pivots", "info"))


# ------------------------------------------------------------------------------------ arrays
def factor_arrays(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LU, pivots, info)`` of ``a`` (``(*, m, n)``), LAPACK's ``getrf`` batched."""
    *batch, m, n = a.shape
    k = min(m, n)
    lu = a.reshape(-1, m, n).copy()
    count = lu.shape[0]
    pivots = np.zeros((count, k), dtype=np.int32)
    info = np.zeros(count, dtype=np.int32)
    rows = np.arange(count)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)
        pivots[:, j] = p + 1
        top = lu[rows, j].copy()
        lu[rows, j] = lu[rows, p]
        lu[rows, p] = top
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        lu[:, j + 1 :, j] /= np.where(zero, 1.0, pivot)[:, None]
        lu[:, j + 1 :, j + 1 :] -= lu[:, j + 1 :, j, None] * lu[:, j, None, j + 1 :]
    return (
        lu.reshape(a.shape),
        pivots.reshape(tuple(batch) + (k,)),
        info.reshape(tuple(batch)),
    )


def permutation_arrays(pivots: np.ndarray, m: int, dtype: Any) -> np.ndarray:
    """``P`` (``(*, m, m)``) with ``A = P L U`` from LAPACK's 1-based row swaps."""
    k = pivots.shape[-1]
    flat = pivots.reshape(-1, k).astype(np.int64) - 1
    order = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(k):
        target = flat[:, j]
        top = order[rows, j].copy()
        order[rows, j] = order[rows, target]
        order[rows, target] = top
    # row j of P^T A is row order[j] of A, so P[order[j], j] = 1
    eye = np.zeros((flat.shape[0], m, m), dtype=dtype)
    eye[rows[:, None], order, np.arange(m)[None, :]] = 1
    return eye.reshape(pivots.shape[:-1] + (m, m))


def _triangles(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Masks of the strictly lower and the upper parts of an ``(m, n)`` matrix."""
    m, n = shape[-2:]
    return np.tri(m, n, -1), 1 - np.tri(m, n, -1)


# ------------------------------------------------------------------------------------ the op
def _solve(a: Any, b: Any) -> Any:
    return vjp.call(_dec.Solve, a, b)


def _lu_backward(lu: Any, grad: Any, p: np.ndarray) -> Any:
    """The gradient of ``A`` from that of the packed ``LU`` (``L`` strictly below, ``U`` on and above
    the diagonal). With ``k = min(m, n)``, ``L`` is ``m x k`` and ``U`` is ``k x n``."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    mT = vjp.swap_last
    strict, upper = _triangles((m, n))
    eye_k = np.eye(m, k)
    L = lu[..., :, :k] * vjp.mask(strict[:, :k], lu) + vjp.mask(eye_k, lu)
    U = lu[..., :k, :] * vjp.mask(upper[:k, :], lu)
    gL = grad[..., :, :k] * vjp.mask(strict[:, :k], grad)
    gU = grad[..., :k, :] * vjp.mask(upper[:k, :], grad)
    lower_k, upper_k = _triangles((k, k))
    if m >= n:  # square or tall: L = [L1; L2], U square
        L1 = L[..., :k, :]
        X = gU @ mT(U) - mT(L) @ gL
        X = _solve(mT(L1), X * vjp.mask(upper_k, X))
        X = X + gL[..., :k, :]
        if m > n:  # the rows of L2 enter as they are
            X = vjp.mask(np.eye(m, k), X) @ X + vjp.mask(np.eye(m, m - k, -k), X) @ gL[..., k:, :]
        X = mT(_solve(U, mT(X)))  # X U^-T
    else:  # wide: U = [U1 U2], L square
        U1 = U[..., :, :k]
        X = mT(L) @ gL - gU @ mT(U)
        X = mT(_solve(U1, mT(X * vjp.mask(lower_k, X))))  # tril(X, -1) U1^-T
        X = X @ vjp.mask(np.eye(k, n), X) + gU
        X = _solve(mT(L), X)
    return vjp.mask(p, X) @ X


class LUFactor(Op):
    """The packed factors ``LU`` of ``A = P L U`` (computed beforehand: ``packed``, ``pivots``)."""

    saves_output = True
    saved_inputs = (0,)
    node_name = "LinalgLuFactorExBackward0"
    packed: np.ndarray | None = None
    permutation: np.ndarray | None = None

    def forward(self, a: Array) -> Array | None:
        return self.packed

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        assert self.permutation is not None  # given to apply with the factors
        grad_a: Gradient = _lu_backward(self.output(), grad, self.permutation)
        return grad_a


# ------------------------------------------------------------------------------ public names
def _check_input(A: Any, name: str) -> None:
    if not isinstance(A, _op.Tensor):
        raise TypeError(
            f"{name}(): argument 'A' (position 1) must be Tensor, not {type(A).__name__}"
        )
    if A.ndim < 2:
        raise RuntimeError(
            f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: "
            f"{list(A.shape)} instead"
        )
    if A._data.dtype.kind != "f":
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_type_name(A)}'")


def _type_name(t: Tensor) -> str:
    from .autograd.promotion import scalar_type_name

    name: str = scalar_type_name(t._data.dtype)
    return name


def _factor(A: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
    _check_input(A, "linalg_lu_factor_ex")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = factor_arrays(A._data)
    permutation = permutation_arrays(pivots, A.shape[-2], A._data.dtype)
    LU = LUFactor.apply(A, packed=lu, permutation=permutation)
    return LU, _op.make_tensor(pivots), _op.make_tensor(info)


def _write(result: Any, out: Any, name: str = "linalg") -> Any:
    """``result`` (a tuple of Tensors) written into the tensors of ``out``, when given."""
    if out is None:
        return result
    from .autograd.out_arg import write_out

    if not isinstance(out, (tuple, list)) or len(out) != len(result):
        raise TypeError(f"{name}(): out must be a tuple of {len(result)} Tensors")
    return type(result)(tuple(write_out(name, r, o, (r,)) for r, o in zip(result, out)))


def lu_factor_ex(
    A: Tensor, *, pivot: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """The packed LU factorization with partial pivoting, and an ``info`` code.

    Args:
        A (Tensor): ``(*, m, n)`` floating matrices.
        pivot (bool): only ``True`` (PyTorch pivots on the CPU too). Default: True.
        check_errors (bool): raise when ``info`` is non-zero. Default: False.
        out (tuple, optional): three tensors to write the results into.

    Returns:
        A named tuple ``(LU, pivots, info)``: ``L`` (unit diagonal, not stored) below the diagonal
        of ``LU`` and ``U`` on and above; ``pivots`` ``(*, min(m, n))`` int32, 1-based; ``info``
        ``(*)`` int32, 0 or the 1-based index of the first zero on ``U``'s diagonal.

    Examples:
        >>> nl.linalg.lu_factor_ex(nl.tensor([[0., 1.], [0., 2.]])).info
        tensor(1, dtype=nnlite.int32)
    """
    LU, pivots, info = _factor(A, pivot)
    if check_errors:
        _raise_on_info(info, "torch.linalg.lu_factor_ex")
    return _write(_lu_factor_ex_result((LU, pivots, info)), out)


def _raise_on_info(info: Tensor, name: str) -> None:
    bad = info._data[info._data > 0]
    if bad.size:
        i = int(bad.reshape(-1)[0])
        raise RuntimeError(
            f"{name}: U[{i},{i}] is zero and using it on lu_solve would result in a division by "
            "zero. If you still want to perform the factorization, consider calling "
            "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)"
        )


def lu_factor(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """The packed LU factorization with partial pivoting; raises on a zero on ``U``'s diagonal.

    Args:
        A (Tensor): ``(*, m, n)`` floating matrices.
        pivot (bool): only ``True``. Default: True.
        out (tuple, optional): two tensors to write the results into.

    Returns:
        A named tuple ``(LU, pivots)`` (see ``lu_factor_ex``). ``LU`` is differentiable.

    Examples:
        >>> nl.linalg.lu_factor(nl.tensor([[1., 2.], [3., 4.]])).LU
        tensor([[3.0000, 4.0000],
                [0.3333, 0.6667]])
    """
    LU, pivots, info = _factor(A, pivot)
    _raise_on_info(info, "torch.linalg.lu_factor")
    return _write(_lu_factor_result((LU, pivots)), out)


def _unpack(LU: Tensor, pivots: Tensor, m: int) -> tuple[Tensor, Tensor, Tensor]:
    n = LU.shape[-1]
    k = min(m, n)
    strict, upper = _triangles((m, n))
    dtype = LU._data.dtype
    # where, not a product with a mask: the zeros stay +0.0 as LAPACK's
    L = Where.apply(strict[:, :k] > 0, LU[..., :, :k], 0.0) + _op.make_tensor(
        np.eye(m, k, dtype=dtype)
    )
    U = Where.apply(upper[:k, :] > 0, LU[..., :k, :], 0.0)
    P = _op.make_tensor(permutation_arrays(pivots._data, m, dtype))
    return P, L, U


def lu(A: Tensor, *, pivot: bool = True, out: Any = None) -> Any:
    """``A = P L U``: a permutation, a unit lower-triangular and an upper-triangular matrix.

    Args:
        A (Tensor): ``(*, m, n)`` floating matrices.
        pivot (bool): only ``True``. Default: True.
        out (tuple, optional): three tensors to write the results into.

    Returns:
        A named tuple ``(P, L, U)``: ``(*, m, m)``, ``(*, m, k)``, ``(*, k, n)`` with
        ``k = min(m, n)``; ``L`` and ``U`` carry the gradient.

    Examples:
        >>> nl.linalg.lu(nl.tensor([[1., 2.], [3., 4.]])).P
        tensor([[0., 1.],
                [1., 0.]])
    """
    LU, pivots, _ = _factor(A, pivot)
    return _write(_lu_result(_unpack(LU, pivots, A.shape[-2])), out)


def lu_unpack(
    LU_data: Tensor,
    LU_pivots: Tensor,
    unpack_data: bool = True,
    unpack_pivots: bool = True,
    *,
    out: Any = None,
) -> Any:
    """``P``, ``L`` and ``U`` from the packed factors of ``lu_factor``.

    Args:
        LU_data (Tensor): the packed factors ``(*, m, n)``.
        LU_pivots (Tensor): the pivots ``(*, min(m, n))``.
        unpack_data (bool): return ``L`` and ``U`` (else empty tensors). Default: True.
        unpack_pivots (bool): return ``P`` (else an empty tensor). Default: True.
        out (tuple, optional): three tensors to write the results into.

    Returns:
        A named tuple ``(P, L, U)``.

    Examples:
        >>> LU, pivots = nl.linalg.lu_factor(nl.tensor([[1., 2.], [3., 4.]]))
        >>> nl.lu_unpack(LU, pivots).L
        tensor([[1.0000, 0.0000],
                [0.3333, 1.0000]])
    """
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 "
            "dtype.\nNote: this function is intended to be used with the output produced by "
            "torch.linalg.lu_factor"
        )
    P, L, U = _unpack(LU_data, LU_pivots, LU_data.shape[-2])
    empty = _op.make_tensor(np.zeros(0, dtype=LU_data._data.dtype))
    result = (
        P if unpack_pivots else empty,
        L if unpack_data else empty,
        U if unpack_data else empty,
    )
    return _write(_lu_unpack_result(result), out)


def _triangular(A: Tensor, B: Tensor, upper: bool, unit: bool) -> Tensor:
    """``A^-1 B`` for the ``upper`` (or lower) triangle of ``A``, with a unit diagonal if ``unit``."""
    n = A.shape[-1]
    dtype = A._data.dtype
    keep = np.triu(np.ones((n, n))) if upper else np.tril(np.ones((n, n)))
    if unit:
        keep = keep - np.eye(n)
    T = A * _op.make_tensor(keep.astype(dtype))
    if unit:
        T = T + _op.make_tensor(np.eye(n, dtype=dtype))
    triangular: Tensor = _dec.Solve.apply(T, B)
    return triangular


def lu_solve(
    LU: Tensor,
    pivots: Tensor,
    B: Tensor,
    *,
    left: bool = True,
    adjoint: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """``X`` with ``A X = B`` from ``A``'s LU factors (``X A = B`` when ``left=False``; ``A^T`` in
    place of ``A`` when ``adjoint``).

    Args:
        LU (Tensor): ``(*, n, n)`` packed factors of ``lu_factor``.
        pivots (Tensor): ``(*, n)`` its pivots.
        B (Tensor): ``(*, n, k)`` right-hand sides (``(*, k, n)`` when ``left=False``).
        left (bool): solve ``A X = B``. Default: True.
        adjoint (bool): solve with ``A``'s transpose. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``X``, differentiable in ``LU`` and ``B``.

    Examples:
        >>> A = nl.tensor([[2., 1.], [1., 3.]])
        >>> LU, pivots = nl.linalg.lu_factor(A)
        >>> nl.linalg.lu_solve(LU, pivots, nl.tensor([[3.], [4.]]))
        tensor([[1.],
                [1.]])
    """
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(
            "linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
            f"{_type_name(LU)} and B of type {_type_name(B)} instead"
        )
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(
            "linalg.lu_solve: A must be batches of square matrices, but they are "
            f"{LU.shape[-2]} by {LU.shape[-1]} matrices"
        )
    if not left:  # X A = B  <=>  A^T X^T = B^T
        result = lu_solve(LU, pivots, B.mT, adjoint=not adjoint).mT
    else:
        P = _op.make_tensor(permutation_arrays(pivots._data, LU.shape[-2], LU._data.dtype))
        if adjoint:  # A^T = U^T L^T P^T
            Y = _triangular(LU.mT, B, upper=False, unit=False)
            result = P @ _triangular(LU.mT, Y, upper=True, unit=True)
        else:
            Y = _triangular(LU, P.mT @ B, upper=False, unit=True)
            result = _triangular(LU, Y, upper=True, unit=False)
    if out is not None:
        from .autograd.out_arg import write_out

        written: Tensor = write_out("linalg", result, out, (result,))
        return written
    return result


# --------------------------------------------------------------------- the older torch forms
def lu_legacy(A: Tensor, pivot: bool = True, get_infos: bool = False, out: Any = None) -> Any:
    """``torch.lu`` (deprecated by PyTorch for ``linalg.lu_factor``): the packed factors and pivots.

    Args:
        A (Tensor): ``(*, m, n)`` floating matrices.
        pivot (bool): only ``True``. Default: True.
        get_infos (bool): also return ``info`` (and do not raise). Default: False.
        out (tuple, optional): tensors to write the results into.

    Returns:
        ``(LU, pivots)``, or the named tuple ``(LU, pivots, info)`` with ``get_infos``.

    Examples:
        >>> LU, pivots = nl.lu(nl.tensor([[1., 2.], [3., 4.]]))
        >>> pivots
        tensor([2, 2], dtype=nnlite.int32)
    """
    warnings.warn(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex "
        "and will be removed in a future PyTorch release.\nLU, pivots = torch.lu(A, "
        "compute_pivots)\nshould be replaced with\nLU, pivots = torch.linalg.lu_factor(A, "
        "compute_pivots)\nand\nLU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
        "should be replaced with\nLU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)",
        UserWarning,
        stacklevel=2,
    )
    LU, pivots, info = _factor(A, pivot)
    if get_infos:
        return _write(_lu_with_info_result((LU, pivots, info)), out)
    _raise_on_info(info, "torch.linalg.lu_factor")
    return _write((LU, pivots), out) if out is not None else (LU, pivots)


def lu_solve_legacy(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Any = None) -> Tensor:
    """``torch.lu_solve`` (deprecated by PyTorch for ``linalg.lu_solve``, whose arguments are
    reversed): ``X`` with ``A X = b``.

    Args:
        b (Tensor): ``(*, n, k)`` right-hand sides.
        LU_data (Tensor): the packed factors of ``lu``.
        LU_pivots (Tensor): their pivots.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``X``.

    Examples:
        >>> LU, pivots = nl.linalg.lu_factor(nl.tensor([[2., 0.], [0., 4.]]))
        >>> nl.lu_solve(nl.tensor([[2.], [4.]]), LU, pivots)
        tensor([[1.],
                [1.]])
    """
    warnings.warn(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a "
        "future PyTorch release.\nNote that torch.linalg.lu_solve has its arguments reversed.\n"
        "X = torch.lu_solve(B, LU, pivots)\nshould be replaced with\n"
        "X = torch.linalg.lu_solve(LU, pivots, B)",
        UserWarning,
        stacklevel=2,
    )
    return lu_solve(LU_data, LU_pivots, b, out=out)
