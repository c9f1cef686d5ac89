"""The ``nnlite.*`` functions and ``Tensor`` methods of the factorizations, the older linear-algebra
forms, the incomplete gamma functions and ``stft``, installed by ``install`` (called once by
``nnlite/__init__.py``), so that the Tensor core imports none of these modules.

Examples:
    >>> nl.tensor([1., 2.]).igamma(nl.tensor([1., 2.]))
    tensor([0.6321, 0.5940])
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import (
    linalg_householder,
    linalg_legacy,
    linalg_lowrank,
    linalg_lu,
    special_gamma,
    spectral_stft,
)

if TYPE_CHECKING:
    from .autograd.tensor import Tensor


def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``special.gammainc`` under its older name: the regularized lower incomplete gamma function.

    Args:
        input (Tensor): ``a``.
        other (Tensor): ``x`` (broadcast).
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``P(a, x)``.

    Examples:
        >>> nl.igamma(nl.tensor([1.]), nl.tensor([1.]))
        tensor([0.6321])
    """
    return special_gamma.gammainc(input, other, out=out)


def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """``special.gammaincc`` under its older name: the regularized upper incomplete gamma function.

    Args:
        input (Tensor): ``a``.
        other (Tensor): ``x`` (broadcast).
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: ``Q(a, x)``.

    Examples:
        >>> nl.igammac(nl.tensor([1.]), nl.tensor([1.]))
        tensor([0.3679])
    """
    return special_gamma.gammaincc(input, other, out=out)


#: the ``nnlite`` functions, by PyTorch's names
FUNCTIONS = {
    "lu": linalg_lu.lu_legacy,
    "lu_solve": linalg_lu.lu_solve_legacy,
    "lu_unpack": linalg_lu.lu_unpack,
    "geqrf": linalg_householder.geqrf,
    "orgqr": linalg_householder.orgqr,
    "ormqr": linalg_householder.ormqr,
    "triangular_solve": linalg_legacy.triangular_solve,
    "matrix_rank": linalg_legacy.matrix_rank,
    "solve": linalg_legacy.solve,
    "symeig": linalg_legacy.symeig,
    "eig": linalg_legacy.eig,
    "lstsq": linalg_legacy.lstsq,
    "lobpcg": linalg_lowrank.lobpcg,
    "pca_lowrank": linalg_lowrank.pca_lowrank,
    "svd_lowrank": linalg_lowrank.svd_lowrank,
    "igamma": igamma,
    "igammac": igammac,
    "stft": spectral_stft.stft,
    "istft": spectral_stft.istft,
}


# ------------------------------------------------------------------------------- Tensor methods
def _lu(self: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """``nl.lu(self, pivot, get_infos)``: the packed LU factors and pivots (deprecated by PyTorch
    for ``linalg.lu_factor``).

    Args:
        pivot (bool): only ``True``. Default: True.
        get_infos (bool): also return ``info``. Default: False.

    Returns:
        ``(LU, pivots)`` or ``(LU, pivots, info)``.

    Examples:
        >>> nl.tensor([[1., 2.], [3., 4.]]).lu()[1]
        tensor([2, 2], dtype=nnlite.int32)
    """
    return linalg_lu.lu_legacy(self, pivot, get_infos)


def _lu_solve(self: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """``nl.lu_solve(self, LU_data, LU_pivots)``: ``X`` with ``A X = self`` from ``A``'s LU factors.

    Args:
        LU_data (Tensor): the packed factors.
        LU_pivots (Tensor): their pivots.

    Returns:
        Tensor: ``X``.

    Examples:
        >>> LU, pivots = nl.linalg.lu_factor(nl.tensor([[2., 0.], [0., 4.]]))
        >>> nl.tensor([[2.], [4.]]).lu_solve(LU, pivots)
        tensor([[1.],
                [1.]])
    """
    return linalg_lu.lu_solve_legacy(self, LU_data, LU_pivots)


def _geqrf(self: Tensor) -> Any:
    """``nl.geqrf(self)``: the QR factorization in LAPACK's compact form.

    Returns:
        A named tuple ``(a, tau)``.

    Examples:
        >>> nl.tensor([[-3., 1.], [4., 2.]]).geqrf().tau
        tensor([1.6000, 0.0000])
    """
    return linalg_householder.geqrf(self)


def _orgqr(self: Tensor, input2: Tensor) -> Tensor:
    """``nl.orgqr(self, input2)``: ``Q`` from the Householder reflectors ``self`` and scales ``input2``.

    Args:
        input2 (Tensor): ``tau``.

    Returns:
        Tensor: ``Q``.

    Examples:
        >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
        >>> a.orgqr(tau)[:, 0]
        tensor([-0.6000,  0.8000])
    """
    return linalg_householder.orgqr(self, input2)


def _ormqr(
    self: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False
) -> Tensor:
    """``nl.ormqr(self, input2, input3, left, transpose)``: ``Q`` (from reflectors) times a matrix.

    Args:
        input2 (Tensor): ``tau``.
        input3 (Tensor): the other matrix.
        left (bool): ``Q`` on the left. Default: True.
        transpose (bool): ``Q^T`` instead. Default: False.

    Returns:
        Tensor: the product.

    Examples:
        >>> a, tau = nl.geqrf(nl.tensor([[-3., 1.], [4., 2.]]))
        >>> a.ormqr(tau, nl.eye(2))[0]
        tensor([-0.6000,  0.8000])
    """
    return linalg_householder.ormqr(self, input2, input3, left, transpose)


def _triangular_solve(
    self: Tensor,
    A: Tensor,
    upper: bool = True,
    transpose: bool = False,
    unitriangular: bool = False,
) -> Any:
    """``nl.triangular_solve(self, A, ...)``: ``X`` with ``A X = self`` for triangular ``A``.

    Args:
        A (Tensor): the triangular matrices.
        upper (bool): read the upper triangle. Default: True.
        transpose (bool): solve with ``A^T``. Default: False.
        unitriangular (bool): take the diagonal as ones. Default: False.

    Returns:
        A named tuple ``(solution, cloned_coefficient)``.

    Examples:
        >>> nl.tensor([[2.], [4.]]).triangular_solve(nl.tensor([[2., 0.], [0., 4.]])).solution
        tensor([[1.],
                [1.]])
    """
    return linalg_legacy.triangular_solve(self, A, upper, transpose, unitriangular)


def _solve(self: Tensor, other: Tensor) -> Any:
    """Removed from PyTorch (``linalg.solve``): raises PyTorch's error.

    Args:
        other (Tensor): the matrix.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.ones(2, 1).solve(nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    return linalg_legacy.solve(self, other)


def _symeig(self: Tensor, eigenvectors: bool = False) -> Any:
    """Removed from PyTorch (``linalg.eigh``): raises PyTorch's error.

    Args:
        eigenvectors (bool): unused. Default: False.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.eye(2).symeig()
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    return linalg_legacy.symeig(self, eigenvectors)


def _eig(self: Tensor, eigenvectors: bool = False) -> Any:
    """Removed from PyTorch (``linalg.eig``): raises PyTorch's error.

    Args:
        eigenvectors (bool): unused. Default: False.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.eye(2).eig()
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    return linalg_legacy.eig(self, eigenvectors)


def _lstsq(self: Tensor, other: Tensor) -> Any:
    """Removed from PyTorch (``linalg.lstsq``): raises PyTorch's error.

    Args:
        other (Tensor): the matrix.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.ones(2, 1).lstsq(nl.eye(2))
        Traceback (most recent call last):
        ...
        RuntimeError: This function was deprecated since version 1.9 and is now removed. ...
    """
    return linalg_legacy.lstsq(self, other)


def _igamma(self: Tensor, other: Tensor) -> Tensor:
    """``nl.igamma(self, other)``: the regularized lower incomplete gamma function ``P(self, other)``.

    Args:
        other (Tensor): ``x``.

    Returns:
        Tensor: the values.

    Examples:
        >>> nl.tensor([1.]).igamma(nl.tensor([1.]))
        tensor([0.6321])
    """
    return special_gamma.gammainc(self, other)


def _igammac(self: Tensor, other: Tensor) -> Tensor:
    """``nl.igammac(self, other)``: the regularized upper incomplete gamma function ``Q(self, other)``.

    Args:
        other (Tensor): ``x``.

    Returns:
        Tensor: the values.

    Examples:
        >>> nl.tensor([1.]).igammac(nl.tensor([1.]))
        tensor([0.3679])
    """
    return special_gamma.gammaincc(self, other)


def _igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``igamma``: writes ``P(self, other)`` into this tensor.

    Args:
        other (Tensor): ``x``.

    Returns:
        Tensor: this tensor.

    Examples:
        >>> nl.tensor([1.]).igamma_(nl.tensor([1.]))
        tensor([0.6321])
    """
    self._check_inplace()
    # the op keeps its own copy of ``a``: this tensor is overwritten below
    return self._inplace_result(special_gamma.gammainc(self.clone(), other))


def _igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In-place ``igammac``: writes ``Q(self, other)`` into this tensor.

    Args:
        other (Tensor): ``x``.

    Returns:
        Tensor: this tensor.

    Examples:
        >>> nl.tensor([1.]).igammac_(nl.tensor([1.]))
        tensor([0.3679])
    """
    self._check_inplace()
    return self._inplace_result(special_gamma.gammaincc(self.clone(), other))


def _stft(self: Tensor, n_fft: int, *args: Any, **kwargs: Any) -> Tensor:
    """``nl.stft(self, n_fft, ...)``: the short-time Fourier transform as real and imaginary parts
    (``return_complex=False``; see ``nnlite.spectral_stft.stft`` for the arguments).

    Args:
        n_fft (int): the size of each Fourier transform.
        *args, **kwargs: ``stft``'s other arguments.

    Returns:
        Tensor: ``(B?, n_freq, n_frames, 2)``.

    Examples:
        >>> nl.ones(8).stft(4, window=nl.ones(4), return_complex=False).shape
        nnlite.Size([3, 9, 2])
    """
    return spectral_stft.stft(self, n_fft, *args, **kwargs)


def _istft(self: Tensor, n_fft: int, *args: Any, **kwargs: Any) -> Tensor:
    """``nl.istft(self, n_fft, ...)``: raises PyTorch's error (it takes only complex input).

    Args:
        n_fft (int): the size of each Fourier transform.
        *args, **kwargs: ``istft``'s other arguments.

    Returns:
        Nothing: it raises.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.zeros(3, 3, 2).istft(4)
        Traceback (most recent call last):
        ...
        RuntimeError: istft requires a complex-valued input tensor matching the output from stft with return_complex=True.
    """
    return spectral_stft.istft(self, n_fft, *args, **kwargs)


METHODS = {
    "lu": _lu,
    "lu_solve": _lu_solve,
    "geqrf": _geqrf,
    "orgqr": _orgqr,
    "ormqr": _ormqr,
    "triangular_solve": _triangular_solve,
    "solve": _solve,
    "symeig": _symeig,
    "eig": _eig,
    "lstsq": _lstsq,
    "igamma": _igamma,
    "igammac": _igammac,
    "igamma_": _igamma_,
    "igammac_": _igammac_,
    "stft": _stft,
    "istft": _istft,
}


def install(namespace: dict[str, Any], tensor_class: type) -> None:
    """Add the functions to ``namespace`` (``nnlite``'s globals) and the methods to ``Tensor``."""
    for name, function in FUNCTIONS.items():
        namespace.setdefault(name, function)
    for name, method in METHODS.items():
        if name not in tensor_class.__dict__:
            method.__name__ = name
            method.__qualname__ = f"Tensor.{name}"
            setattr(tensor_class, name, method)
