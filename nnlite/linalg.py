"""``nnlite.linalg``: norms, inverses, determinants, solves and decompositions, as ``torch.linalg``
names them. Every differentiable function has gradients to any order (``autograd/ops/decompositions.py``
holds the primitives; the rest are composites of them).

Examples:
    >>> nl.linalg.norm(nl.tensor([3., 4.]))
    tensor(5.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import linalg_lapack as _lapack
from .autograd import op as _op
from .autograd.ops import decompositions as _dec
from .autograd.providers import provide
from .autograd.tensor import Tensor
from .linalg_householder import householder_product
from .linalg_ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .linalg_lu import lu, lu_factor, lu_factor_ex, lu_solve
from .linalg_results import named as _named

if TYPE_CHECKING:
    from ._typing import DTypeLike, _dims

__all__ = [
    "norm", "vector_norm", "matrix_norm", "LinAlgError", "inv", "inv_ex", "det", "slogdet",
    "solve", "solve_ex", "solve_triangular", "cholesky", "cholesky_ex", "eigh", "eigvalsh", "svdvals",
    "qr", "svd", "pinv", "lstsq", "matrix_rank", "cond", "matrix_power", "matrix_exp", "multi_dot",
    "matmul", "vecdot", "cross", "diagonal", "vander", "tensorinv", "tensorsolve",
    "lu", "lu_factor", "lu_factor_ex", "lu_solve", "householder_product", "ldl_factor",
    "ldl_factor_ex", "ldl_solve",
]  # fmt: skip


class LinAlgError(RuntimeError):
    """Raised by linear-algebra functions on singular or non-definite input (a ``RuntimeError``).

    Args:
        *args: the message.

    Examples:
        >>> issubclass(nl.linalg.LinAlgError, RuntimeError)
        True
    """


_slogdet = _named("slogdet", ("sign", "logabsdet"))
_eigh = _named("eigh", ("eigenvalues", "eigenvectors"))
_qr = _named("qr", ("Q", "R"))
_svd = _named("svd", ("U", "S", "Vh"))
_inv_ex = _named("inv_ex", ("inverse", "info"))
_cholesky_ex = _named("cholesky_ex", ("L", "info"))
_solve_ex = _named("solve_ex", ("result", "info"))
_lstsq = _named("lstsq", ("solution", "residuals", "rank", "singular_values"))


def _square(A: Tensor, name: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.{name}: A must be batches of square matrices, but they are "
            f"{A.shape[-2]} by {A.shape[-1]} matrices"
        )


def _zeros_info(A: Tensor) -> Tensor:
    return _op.make_tensor(np.zeros(tuple(A.shape[:-2]), dtype=np.int32))


def inv(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The inverse of each square matrix.

    Args:
        A (Tensor): ``(*, n, n)`` invertible matrices.
        out (Tensor, optional): ignored unless given (the result is written into it).

    Returns:
        Tensor: the inverses.

    Examples:
        >>> nl.linalg.inv(nl.tensor([[2., 0.], [0., 4.]]))
        tensor([[0.5000, 0.0000],
                [0.0000, 0.2500]])
    """
    _square(A, "inv")
    return _out(_dec.Inverse.apply(A), out)


def _out(result: Tensor, out: Tensor | None) -> Tensor:
    if out is None:
        return result
    from .autograd.out_arg import write_out

    written: Tensor = write_out("linalg", result, out, (result,))
    return written


def inv_ex(A: Tensor, *, check_errors: bool = False, out: Any = None) -> Any:
    """``inv`` with an ``info`` tensor (zeros: nnlite raises on a singular matrix).

    Args:
        A (Tensor): square matrices.
        check_errors (bool): accepted (errors always raise). Default: False.

    Returns:
        A named tuple ``(inverse, info)``.

    Examples:
        >>> nl.linalg.inv_ex(nl.eye(2)).info
        tensor(0, dtype=nnlite.int32)
    """
    return _inv_ex((inv(A), _zeros_info(A)))


def det(A: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The determinant of each square matrix.

    Args:
        A (Tensor): ``(*, n, n)``.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*)``.

    Examples:
        >>> nl.linalg.det(nl.tensor([[2., 1.], [1., 2.]]))
        tensor(3.)
    """
    _square(A, "det")
    return _out(_dec.Det.apply(A), out)


def slogdet(A: Tensor, *, out: Any = None) -> Any:
    """The sign and the log of the absolute value of each determinant.

    Args:
        A (Tensor): ``(*, n, n)``.

    Returns:
        A named tuple ``(sign, logabsdet)``; ``logabsdet`` carries the gradient.

    Examples:
        >>> nl.linalg.slogdet(nl.tensor([[-2., 0.], [0., 1.]])).sign
        tensor(-1.)
    """
    _square(A, "slogdet")
    sign = _op.make_tensor(np.asarray(np.linalg.slogdet(A._data)[0]).astype(A._data.dtype))
    return _slogdet((sign, _dec.LogAbsDet.apply(A)))


def _as_matrix_rhs(A: Tensor, B: Tensor) -> bool:
    """Whether ``B`` is a (batch of) vector(s) for ``A``, as ``torch.linalg.solve`` decides."""
    return B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def solve(A: Tensor, B: Tensor, *, left: bool = True, out: Tensor | None = None) -> Tensor:
    """``X`` with ``A @ X = B`` (or ``X @ A = B`` when ``left=False``).

    Args:
        A (Tensor): ``(*, n, n)`` invertible matrices.
        B (Tensor): ``(*, n, k)`` or ``(*, n)`` right-hand sides.
        left (bool): solve ``A X = B`` (True) or ``X A = B``. Default: True.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the solution, shaped like ``B``.

    Examples:
        >>> nl.linalg.solve(nl.tensor([[2., 0.], [0., 4.]]), nl.tensor([2., 4.]))
        tensor([1., 1.])
    """
    _square(A, "solve")
    if not left:
        return _out(solve(A.mT, B.mT).mT, out)
    if _as_matrix_rhs(A, B):
        return _out(_dec.Solve.apply(A, B.unsqueeze(-1)).squeeze(-1), out)
    return _out(_dec.Solve.apply(A, B), out)


def solve_ex(
    A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out: Any = None
) -> Any:
    """``solve`` with an ``info`` tensor (zeros: nnlite raises on a singular matrix).

    Args:
        A (Tensor): square matrices.
        B (Tensor): right-hand sides.
        left (bool): Default: True.
        check_errors (bool): accepted. Default: False.

    Returns:
        A named tuple ``(result, info)``.

    Examples:
        >>> nl.linalg.solve_ex(nl.eye(2), nl.ones(2)).result
        tensor([1., 1.])
    """
    return _solve_ex((solve(A, B, left=left), _zeros_info(A)))


def solve_triangular(
    A: Tensor,
    B: Tensor,
    *,
    upper: bool,
    left: bool = True,
    unitriangular: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """``X`` with ``A @ X = B`` for triangular ``A`` (only its ``upper`` or lower triangle is read).

    Args:
        A (Tensor): ``(*, n, n)``.
        B (Tensor): ``(*, n, k)``.
        upper (bool): read the upper triangle.
        left (bool): solve ``A X = B`` (True) or ``X A = B``. Default: True.
        unitriangular (bool): take the diagonal as ones. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, n, k)``.

    Examples:
        >>> nl.linalg.solve_triangular(nl.tensor([[2., 5.], [0., 4.]]), nl.tensor([[2.], [4.]]), upper=False)
        tensor([[1.],
                [1.]])
    """
    T = A.triu() if upper else A.tril()
    if unitriangular:
        n = A.shape[-1]
        T = T * _op.make_tensor(1 - np.eye(n, dtype=A._data.dtype)) + _op.make_tensor(
            np.eye(n, dtype=A._data.dtype)
        )
    return _out(solve(T, B, left=left), out)


def cholesky(A: Tensor, *, upper: bool = False, out: Tensor | None = None) -> Tensor:
    """The Cholesky factor ``L`` of a symmetric positive-definite matrix: ``A = L @ L.mT``.

    Args:
        A (Tensor): ``(*, n, n)``; its lower triangle is read.
        upper (bool): return ``L.mT`` instead. Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the lower (or upper) factor.

    Examples:
        >>> nl.linalg.cholesky(nl.tensor([[4., 2.], [2., 2.]]))
        tensor([[2., 0.],
                [1., 1.]])
    """
    _square(A, "cholesky")
    low = _dec.Cholesky.apply(A)
    return _out(low.mT if upper else low, out)


def cholesky_ex(
    A: Tensor, *, upper: bool = False, check_errors: bool = False, out: Any = None
) -> Any:
    """``cholesky`` with an ``info`` tensor (zeros: nnlite raises on a non-definite matrix).

    Args:
        A (Tensor): symmetric positive-definite matrices.
        upper (bool): Default: False.
        check_errors (bool): accepted. Default: False.

    Returns:
        A named tuple ``(L, info)``.

    Examples:
        >>> nl.linalg.cholesky_ex(nl.eye(2)).L
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _cholesky_ex((cholesky(A, upper=upper), _zeros_info(A)))


def _symmetric_input(A: Tensor, UPLO: str) -> Tensor:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return A if UPLO == "L" else A.mT


def eigh(A: Tensor, UPLO: str = "L", *, out: Any = None) -> Any:
    """Eigenvalues (ascending) and eigenvectors (columns) of symmetric matrices.

    Args:
        A (Tensor): ``(*, n, n)``; the ``UPLO`` triangle is read.
        UPLO (str): ``"L"`` or ``"U"``. Default: ``"L"``.

    Returns:
        A named tuple ``(eigenvalues, eigenvectors)``.

    Examples:
        >>> nl.linalg.eigh(nl.tensor([[2., 0.], [0., 1.]])).eigenvalues
        tensor([1., 2.])
    """
    _square(A, "eigh")
    S = _symmetric_input(A, UPLO)
    return _eigh((_dec.EighValues.apply(S), _dec.EighVectors.apply(S)))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out: Tensor | None = None) -> Tensor:
    """The eigenvalues (ascending) of symmetric matrices.

    Args:
        A (Tensor): ``(*, n, n)``.
        UPLO (str): ``"L"`` or ``"U"``. Default: ``"L"``.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, n)``.

    Examples:
        >>> nl.linalg.eigvalsh(nl.tensor([[2., 1.], [1., 2.]]))
        tensor([1., 3.])
    """
    _square(A, "eigvalsh")
    return _out(_dec.EighValues.apply(_symmetric_input(A, UPLO)), out)


def svdvals(A: Tensor, *, driver: str | None = None, out: Tensor | None = None) -> Tensor:
    """The singular values, descending (LAPACK's, exact for rank-deficient matrices too).

    Args:
        A (Tensor): ``(*, m, n)``.
        driver (str, optional): accepted for compatibility.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, min(m, n))``; its gradient is ``U diag(gS) Vh``.

    Examples:
        >>> nl.linalg.svdvals(nl.tensor([[3., 0.], [0., -4.]]))
        tensor([4., 3.])
    """
    return _out(_lapack.SvdS.apply(A), out)


def svd(
    A: Tensor, full_matrices: bool = True, *, driver: str | None = None, out: Any = None
) -> Any:
    """``A = U @ diag(S) @ Vh`` with singular values ``S`` descending.

    The factors are LAPACK's (exact for rank-deficient matrices too); singular vectors are
    defined up to sign, and nnlite's signs are those of the LAPACK that numpy uses. Gradients
    through ``U`` and ``Vh`` need distinct, non-zero singular values, as PyTorch's do. With
    ``full_matrices`` the extra columns of ``U`` (or rows of ``Vh``) complete the basis and carry no
    gradient.

    Args:
        A (Tensor): ``(*, m, n)``.
        full_matrices (bool): square ``U`` and ``Vh``. Default: True.
        driver (str, optional): accepted for compatibility.

    Returns:
        A named tuple ``(U, S, Vh)``.

    Examples:
        >>> nl.linalg.svd(nl.tensor([[3., 0.], [0., -4.]])).S
        tensor([4., 3.])
    """
    U, S, Vh = _lapack.SvdU.apply(A), _lapack.SvdS.apply(A), _lapack.SvdVh.apply(A)
    from .autograd.creation import cat

    m, n = A.shape[-2:]
    if full_matrices and m > n:
        U = cat([U, _op.make_tensor(_complement(U._data))], -1)
    if full_matrices and n > m:
        Vh = cat(
            [Vh, _op.make_tensor(np.swapaxes(_complement(np.swapaxes(Vh._data, -1, -2)), -1, -2))],
            -2,
        )
    return _svd((U, S, Vh))


def _complement(U: np.ndarray) -> np.ndarray:
    """Orthonormal columns completing ``U``'s to a basis (constants: no gradient)."""
    m, k = U.shape[-2:]
    q = np.linalg.qr(
        np.concatenate([U, np.broadcast_to(np.eye(m, dtype=U.dtype), U.shape[:-2] + (m, m))], -1)
    )[0]
    return q[..., :, k:m]


def qr(A: Tensor, mode: str = "reduced", *, out: Any = None) -> Any:
    """``A = Q @ R`` with orthonormal ``Q`` and upper-triangular ``R`` (LAPACK's Householder
    factorization, so signs and rank-deficient matrices are as PyTorch's).

    Args:
        A (Tensor): ``(*, m, n)``.
        mode (str): ``"reduced"`` (``Q`` is ``m x k``, ``R`` is ``k x n``, ``k = min(m, n)``),
            ``"complete"`` (``Q`` is ``m x m``) or ``"r"`` (``Q`` empty). Default: ``"reduced"``.

    Returns:
        A named tuple ``(Q, R)``, differentiable as PyTorch's (not for ``"r"``, nor for
        ``"complete"`` with ``m > n``).

    Examples:
        >>> Q, R = nl.linalg.qr(nl.tensor([[3., 0.], [4., 5.]]))
        >>> R
        tensor([[-5., -4.],
                [ 0.,  3.]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), "
            "'r', or 'complete'"
        )
    if A.ndim < 2:
        raise RuntimeError("linalg.qr: The input tensor A must have at least 2 dimensions.")
    R = _lapack.QrR.apply(A, mode=mode)
    if mode == "r":
        return _qr((_op.make_tensor(np.zeros(0, R._data.dtype)), R))
    return _qr((_lapack.QrQ.apply(A, mode=mode), R))


def pinv(
    A: Tensor,
    *,
    atol: Any = None,
    rtol: Any = None,
    hermitian: bool = False,
    out: Tensor | None = None,
) -> Tensor:
    """The pseudo-inverse, from the SVD: singular values at or below
    ``max(atol, rtol * s_max)`` count as zero (exact for rank-deficient matrices).

    Args:
        A (Tensor): ``(*, m, n)``.
        atol (float, optional): absolute tolerance. Default: 0.
        rtol (float, optional): relative tolerance. Default: ``eps * max(m, n)`` when ``atol`` is
            not given either, else 0.
        hermitian (bool): accepted (the SVD serves symmetric matrices too). Default: False.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``(*, n, m)``; its gradient is Golub and Pereyra's, as PyTorch's.

    Examples:
        >>> nl.linalg.pinv(nl.tensor([[1.], [1.]]))
        tensor([[0.5000, 0.5000]])
    """
    dtype = A._data.dtype if A._data.dtype.kind == "f" else np.float32
    atol_value = 0.0 if atol is None else float(atol)
    if rtol is None:
        rtol_value = np.finfo(dtype).eps * max(A.shape[-2:]) if atol is None or atol == 0 else 0.0
    else:
        rtol_value = float(rtol)
    return _out(_lapack.Pinv.apply(A, atol=atol_value, rtol=rtol_value), out)


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> Any:
    """The minimum-norm least-squares solution of ``A X = B``: ``pinv(A) @ B`` with singular values
    at or below ``rcond * s_max`` dropped (exact for rank-deficient ``A``, as LAPACK's ``gelsy``).

    Args:
        A (Tensor): ``(*, m, n)``.
        B (Tensor): ``(*, m, k)``.
        rcond (float, optional): relative tolerance. Default: ``eps * max(m, n)``.
        driver (str, optional): accepted (the result is the same up to rounding).

    Returns:
        A named tuple ``(solution, residuals, rank, singular_values)``: ``rank`` as the default
        driver gives it, ``residuals`` and ``singular_values`` empty.

    Examples:
        >>> nl.linalg.lstsq(nl.tensor([[2.], [0.]]), nl.tensor([[4.], [1.]])).solution
        tensor([[2.]])
    """
    dtype = A._data.dtype
    tolerance = np.finfo(dtype).eps * max(A.shape[-2:]) if rcond is None else rcond
    empty = _op.make_tensor(np.zeros(0, dtype))
    rank = (
        matrix_rank(A, atol=0.0, rtol=tolerance)
        if A.numel()
        else _op.make_tensor(np.zeros(tuple(A.shape[:-2]), np.int64))
    )
    return _lstsq((pinv(A, atol=0.0, rtol=tolerance) @ B, empty, rank, empty))


def matrix_rank(
    A: Tensor,
    *,
    atol: float | None = None,
    rtol: float | None = None,
    hermitian: bool = False,
    tol: float | None = None,
) -> Tensor:
    """The number of singular values above the tolerance.

    Args:
        A (Tensor): ``(*, m, n)``.
        atol (float, optional): absolute tolerance.
        rtol (float, optional): relative tolerance (default: ``eps * max(m, n)``).
        hermitian (bool): accepted. Default: False.
        tol (float, optional): PyTorch's older name of ``atol``.

    Returns:
        Tensor: int64 ranks.

    Examples:
        >>> nl.linalg.matrix_rank(nl.tensor([[1., 2.], [2., 4.]]))
        tensor(1)
    """
    s = np.linalg.svd(A._data, compute_uv=False)
    atol = tol if atol is None else atol
    if rtol is None:
        rtol = 0.0 if atol else np.finfo(A._data.dtype).eps * max(A.shape[-2:])
    limit = np.maximum(atol or 0.0, rtol * s.max(-1, initial=0.0))
    return _op.make_tensor(np.asarray((s > np.expand_dims(limit, -1)).sum(-1), dtype=np.int64))


def cond(A: Tensor, p: Any = None, *, out: Tensor | None = None) -> Tensor:
    """The condition number in the ``p``-norm (2 by default: largest over smallest singular value).

    Args:
        A (Tensor): ``(*, n, n)`` (any shape for ``p=None``/2/-2).
        p (number or str, optional): ``None``, 2, -2, ``"fro"``, ``"nuc"``, 1, -1, ``inf``, ``-inf``.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the condition numbers.

    Examples:
        >>> nl.linalg.cond(nl.tensor([[2., 0.], [0., 1.]]))
        tensor(2.)
    """
    if p in (None, 2, -2):
        s = svdvals(A)
        ratio = s[..., 0] / s[..., -1]
        return _out(ratio if p != -2 else 1 / ratio, out)
    return _out(matrix_norm(A, p) * matrix_norm(inv(A), p), out)


def matrix_power(A: Tensor, n: int, *, out: Tensor | None = None) -> Tensor:
    """``A`` multiplied by itself ``n`` times (the inverse's power for negative ``n``; the
    identity for 0).

    Args:
        A (Tensor): ``(*, m, m)``.
        n (int): the power.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the power.

    Examples:
        >>> nl.linalg.matrix_power(nl.tensor([[1., 1.], [0., 1.]]), 3)
        tensor([[1., 3.],
                [0., 1.]])
    """
    _square(A, "matrix_power")
    if n == 0:
        return _out(
            _op.make_tensor(
                np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), tuple(A.shape)).copy()
            ),
            out,
        )
    base = inv(A) if n < 0 else A
    result = None
    power = base
    k = abs(n)
    while k:  # square-and-multiply
        if k & 1:
            result = power if result is None else result @ power
        k >>= 1
        if k:
            power = power @ power
    assert result is not None
    return _out(result, out)


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential, by scaling and squaring with an 18-term Taylor series.

    Args:
        A (Tensor): ``(*, n, n)``.

    Returns:
        Tensor: ``exp(A)``.

    Examples:
        >>> nl.linalg.matrix_exp(nl.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """
    _square(A, "matrix_exp")
    norm_ = float(np.abs(A._data).sum(-2).max()) if A.numel() else 0.0
    squarings = max(0, int(np.ceil(np.log2(norm_))) + 1) if norm_ > 0.5 else 0
    X = A / (2.0**squarings)
    eye = _op.make_tensor(
        np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), tuple(A.shape)).copy()
    )
    term, total = eye, eye
    for k in range(1, 19):
        term = term @ X / k
        total = total + term
    for _ in range(squarings):
        total = total @ total
    return total


def multi_dot(tensors: Any, *, out: Tensor | None = None) -> Tensor:
    """The product of a chain of matrices (the first may be 1-D: a row; the last: a column).

    Args:
        tensors (sequence of Tensors): two or more.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the product.

    Examples:
        >>> nl.linalg.multi_dot([nl.ones(2), nl.eye(2), nl.ones(2)])
        tensor(2.)
    """
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    result = tensors[0]
    for t in tensors[1:]:
        result = result @ t
    return _out(result, out)


def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``input @ other``.

    Args:
        input (Tensor): the first operand.
        other (Tensor): the second.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the product.

    Examples:
        >>> nl.linalg.matmul(nl.eye(2), nl.ones(2))
        tensor([1., 1.])
    """
    return _out(input @ other, out)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The dot product of vectors along ``dim`` (broadcast).

    Args:
        x (Tensor): the first vectors.
        y (Tensor): the second.
        dim (int): Default: -1.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the products.

    Examples:
        >>> nl.linalg.vecdot(nl.tensor([1., 2.]), nl.tensor([3., 4.]))
        tensor(11.)
    """
    return _out((x * y).sum(dim), out)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out: Tensor | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim``.

    Args:
        input (Tensor): the first vectors.
        other (Tensor): the second.
        dim (int): Default: -1.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the cross products.

    Examples:
        >>> nl.linalg.cross(nl.tensor([1., 0., 0.]), nl.tensor([0., 1., 0.]))
        tensor([0., 0., 1.])
    """
    a, b = (
        t.expand(*np.broadcast_shapes(tuple(input.shape), tuple(other.shape)))
        for t in (input, other)
    )
    return _out(a.cross(b, dim), out)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonals of the matrices ``A`` (``Tensor.diagonal`` with matrix defaults).

    Args:
        A (Tensor): the input.
        offset (int): Default: 0.
        dim1 (int): Default: -2.
        dim2 (int): Default: -1.

    Returns:
        Tensor: the diagonals.

    Examples:
        >>> nl.linalg.diagonal(nl.eye(2))
        tensor([1., 1.])
    """
    diagonal: Tensor = A.diagonal(offset, dim1, dim2)
    return diagonal


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrix with increasing powers (``x**0, x**1, ...``) in the last dimension.

    Args:
        x (Tensor): ``(*, n)``.
        N (int, optional): columns. Default: ``n``.

    Returns:
        Tensor: ``(*, n, N)``.

    Examples:
        >>> nl.linalg.vander(nl.tensor([1., 2.]))
        tensor([[1., 1.],
                [1., 2.]])
    """
    n = x.shape[-1] if N is None else N
    cols = [x * 0 + 1] + [x**p for p in range(1, n)]
    from .autograd.creation import stack

    return stack(cols[:n], -1)


def tensorinv(A: Tensor, ind: int = 2, *, out: Tensor | None = None) -> Tensor:
    """The inverse of ``A`` seen as a linear map from its last dimensions to its first ``ind``.

    Args:
        A (Tensor): with ``prod(A.shape[:ind]) == prod(A.shape[ind:])``.
        ind (int): Default: 2.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: of shape ``A.shape[ind:] + A.shape[:ind]``.

    Examples:
        >>> nl.linalg.tensorinv(nl.eye(4).reshape(4, 2, 2), ind=1).shape
        nnlite.Size([2, 2, 4])
    """
    lead, rest = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    matrix = A.reshape(int(np.prod(lead)), int(np.prod(rest)))
    return _out(inv(matrix).reshape(rest + lead), out)


def tensorsolve(A: Tensor, B: Tensor, dims: Any = None, *, out: Tensor | None = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B``.

    Args:
        A (Tensor): the map, ``B.shape + X.shape``.
        B (Tensor): the right-hand side.
        dims (tuple of ints, optional): dimensions of ``A`` moved to the end first.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``X``.

    Examples:
        >>> nl.linalg.tensorsolve(nl.eye(4).reshape(2, 2, 4), nl.ones(2, 2)).shape
        nnlite.Size([4])
    """
    if dims is not None:
        A = A.movedim(tuple(dims), tuple(range(A.ndim - len(dims), A.ndim)))
    rest = tuple(A.shape[B.ndim :])
    matrix = A.reshape(B.numel(), -1)
    return _out(solve(matrix, B.reshape(-1)).reshape(rest), out)


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: _dims = None,
    keepdim: bool = False,
    dtype: DTypeLike | None = None,
) -> Tensor:
    """The ``ord``-norm of ``x`` seen as a vector (over ``dim``, or over all elements).

    Args:
        x (Tensor): the input.
        ord (number): the order: 2, 1, ``inf``, ``-inf``, 0 or any real. Default: 2.
        dim (int or tuple of ints, optional): the dimensions to reduce. Default: all.
        keepdim (bool): keep reduced dimensions with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the norm.

    Examples:
        >>> nl.linalg.vector_norm(nl.tensor([3., 4.]))
        tensor(5.)
    """
    return x.norm(ord, dim, keepdim, dtype=dtype)


def matrix_norm(
    A: Tensor,
    ord: str | float = "fro",
    dim: Sequence[int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: DTypeLike | None = None,
) -> Tensor:
    """A matrix norm over the two dimensions ``dim``: Frobenius, nuclear, spectral (2, -2) or the
    largest/smallest absolute column (1, -1) or row (``inf``, ``-inf``) sum.

    Args:
        A (Tensor): the input, at least 2-D.
        ord (str or number): ``"fro"``, ``"nuc"``, 2, -2, 1, -1, ``inf``, ``-inf``. Default: ``"fro"``.
        dim (tuple of two ints): the matrix dimensions. Default: ``(-2, -1)``.
        keepdim (bool): keep reduced dimensions with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the norm of each matrix.

    Examples:
        >>> nl.linalg.matrix_norm(nl.ones(2, 2))
        tensor(2.)
    """
    if ord == "fro":
        return A.norm("fro", dim, keepdim, dtype=dtype)
    X = (A if dtype is None else A.to(dtype)).movedim(tuple(dim), (-2, -1))
    if ord in ("nuc", 2, -2):
        s = svdvals(X)
        value = s.sum(-1) if ord == "nuc" else s[..., 0] if ord == 2 else s[..., -1]
    elif ord in (1, -1, float("inf"), float("-inf")):
        sums = X.abs().sum(-2 if ord in (1, -1) else -1)
        value = sums.amax(-1) if ord in (1, float("inf")) else sums.amin(-1)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        for d in sorted(d % A.ndim for d in dim):
            value = value.unsqueeze(d)
    return value


def norm(
    A: Tensor,
    ord: str | float | None = None,
    dim: _dims = None,
    keepdim: bool = False,
    dtype: DTypeLike | None = None,
) -> Tensor:
    """A vector or matrix norm, as ``torch.linalg.norm``.

    Without ``ord``: the 2-norm of all elements (Frobenius for matrices). With ``ord``: a vector
    norm for 1-D input or an int ``dim``, a matrix norm for 2-D input or two dims.

    Args:
        A (Tensor): the input.
        ord (number or str, optional): the order.
        dim (int or tuple of ints, optional): the dimensions to reduce.
        keepdim (bool): keep reduced dimensions with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the norm.

    Examples:
        >>> nl.linalg.norm(nl.tensor([[3., 0.], [0., 4.]]))
        tensor(5.)
    """
    if ord is None:
        return A.norm(2, dim, keepdim, dtype=dtype)
    two_dims = (dim is None and A.ndim == 2) or (isinstance(dim, (tuple, list)) and len(dim) == 2)
    if two_dims:  # dim is None or a pair
        matrix_dims = cast("Sequence[int]", (-2, -1) if dim is None else dim)
        return matrix_norm(A, ord, matrix_dims, keepdim, dtype=dtype)
    # a str order reaches Tensor.norm, which reads "fro" as the 2-norm
    return vector_norm(A, cast(float, ord), dim, keepdim, dtype)


# what Tensor's methods call by name (autograd/providers.py explains why)
provide("linalg", {name: globals()[name] for name in __all__})
