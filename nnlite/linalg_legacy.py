"""The ``torch.*`` linear-algebra functions older than ``torch.linalg``: ``triangular_solve``
(deprecated by PyTorch, still working), and ``solve``, ``symeig``, ``eig``, ``lstsq`` and
``matrix_rank``, which PyTorch 2 removed: calling them raises PyTorch's own error, naming the
``torch.linalg`` function that replaces each.

Examples:
    >>> nl.triangular_solve(nl.tensor([[2.], [4.]]), nl.tensor([[2., 0.], [0., 4.]])).solution
    tensor([[1.],
            [1.]])
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from .linalg_results import named

if TYPE_CHECKING:
    from .autograd.tensor import Tensor

_triangular_solve_result = named("triangular_solve", ("solution", "cloned_coefficient"))
_REMOVED = "This function was deprecated since version 1.9 and is now removed. "


def triangular_solve(
    b: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
    *,
    out: Any = None,
) -> Any:
    """``X`` with ``A X = b`` for triangular ``A`` (deprecated by PyTorch for
    ``linalg.solve_triangular``, whose arguments are reversed).

    Args:
        b (Tensor): ``(*, m, k)`` right-hand sides.
        A (Tensor): ``(*, m, m)``; only its ``upper`` (or lower) triangle is read.
        upper (bool): read the upper triangle. Default: True.
        transpose (bool): solve ``A^T X = b``. Default: False.
        unitriangular (bool): take the diagonal as ones. Default: False.
        out (tuple, optional): two tensors to write the results into.

    Returns:
        A named tuple ``(solution, cloned_coefficient)``, the second a copy of ``A``; both
        differentiable.

    Examples:
        >>> nl.triangular_solve(nl.tensor([[1.], [2.]]), nl.tensor([[2., 1.], [0., 4.]])).solution
        tensor([[0.2500],
                [0.5000]])
    """
    from .linalg import solve_triangular

    warnings.warn(
        "torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be "
        "removed in a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments "
        "reversed and does not return a copy of one of the inputs.\nX = torch.triangular_solve(B, "
        "A).solution\nshould be replaced with\nX = torch.linalg.solve_triangular(A, B).",
        UserWarning,
        stacklevel=2,
    )
    matrix = A.mT if transpose else A
    solution = solve_triangular(matrix, b, upper=upper != transpose, unitriangular=unitriangular)
    result = _triangular_solve_result((solution, A.clone()))
    if out is None:
        return result
    from .autograd.out_arg import write_out

    return _triangular_solve_result(
        tuple(write_out("triangular_solve", r, o, (b, A)) for r, o in zip(result, out))
    )


def solve(input: Tensor, A: Tensor, *, out: Any = None) -> Any:
    """Removed from PyTorch (use ``linalg.solve(A, B)``): raises PyTorch's error.

    Args:
        input (Tensor): the right-hand side.
        A (Tensor): the matrix.
        out (tuple, optional): unused.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always, with the replacement.

    Examples:
        >>> nl.solve(nl.ones(2, 1), nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(
        _REMOVED + "`torch.solve` is deprecated in favor of `torch.linalg.solve`. "
        "`torch.linalg.solve` has its arguments reversed and does not return the LU "
        "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used with "
        "`torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution should be "
        "replaced with:\nX = torch.linalg.solve(A, B)"
    )


def symeig(
    input: Tensor, eigenvectors: bool = False, upper: bool = True, *, out: Any = None
) -> Any:
    """Removed from PyTorch (use ``linalg.eigh`` or ``linalg.eigvalsh``): raises PyTorch's error.

    Args:
        input (Tensor): the matrix.
        eigenvectors (bool): unused. Default: False.
        upper (bool): unused. Default: True.
        out (tuple, optional): unused.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always, with the replacement.

    Examples:
        >>> nl.symeig(nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(
        _REMOVED + "The default behavior has changed from using the upper triangular portion of "
        "the matrix by default to using the lower triangular portion.\n\nL, _ = "
        "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh(A, "
        "UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors=True) should "
        "be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else 'L')"
    )


def eig(self: Tensor, eigenvectors: bool = False, *, e: Any = None, v: Any = None) -> Any:
    """Removed from PyTorch (use ``linalg.eig``, whose results are complex): raises PyTorch's error.

    Args:
        self (Tensor): the matrix.
        eigenvectors (bool): unused. Default: False.
        e, v (Tensor, optional): unused.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always, with the replacement.

    Examples:
        >>> nl.eig(nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(
        _REMOVED + "`torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
        "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should be "
        "replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = torch.eig(A, "
        "eigenvectors=True) should be replaced with:\nL_complex, V_complex = torch.linalg.eig(A)"
    )


def lstsq(input: Tensor, A: Tensor, *, out: Any = None) -> Any:
    """Removed from PyTorch (use ``linalg.lstsq(A, B)``): raises PyTorch's error.

    Args:
        input (Tensor): the right-hand side.
        A (Tensor): the matrix.
        out (tuple, optional): unused.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always, with the replacement.

    Examples:
        >>> nl.lstsq(nl.ones(2, 1), nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    raise RuntimeError(
        _REMOVED + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
        "`torch.linalg.lstsq` has reversed arguments and does not return the QR decomposition in "
        "the returned tuple (although it returns other information about the problem).\n\n"
        "To get the QR decomposition consider using `torch.linalg.qr`.\n\nThe returned solution "
        "in `torch.lstsq` stored the residuals of the solution in the last m - n columns of the "
        "returned value whenever m > n. In torch.linalg.lstsq, the residuals are in the field "
        "'residuals' of the returned named tuple.\n\nThe unpacking of the solution, as in\n"
        "X, _ = torch.lstsq(B, A).solution[:A.size(1)]\nshould be replaced with:\n"
        "X = torch.linalg.lstsq(A, B).solution"
    )


def matrix_rank(input: Tensor, tol: Any = None, symmetric: bool = False, *, out: Any = None) -> Any:
    """Removed from PyTorch (use ``linalg.matrix_rank``): raises PyTorch's error.

    Args:
        input (Tensor): the matrix.
        tol (float, optional): unused.
        symmetric (bool): unused. Default: False.
        out (Tensor, optional): unused.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always, with the replacement.

    Examples:
        >>> nl.matrix_rank(nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed.
        Please use the `torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to 'hermitian'.
    """
    raise RuntimeError(
        "This function was deprecated since version 1.9 and is now removed.\nPlease use the "
        "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
        "`torch.linalg.matrix_rank()` to 'hermitian'."
    )
