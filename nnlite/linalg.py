"""``nnlite.linalg``: norms, as ``torch.linalg`` names them.

Example:
    >>> nl.linalg.norm(nl.tensor([3., 4.]))
    tensor(5.)
"""

__all__ = ["norm", "vector_norm", "matrix_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
    """The ``ord``-norm of ``x`` seen as a vector (over ``dim``, or all elements)."""
    return x.norm(ord, dim, keepdim, dtype=dtype)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """The Frobenius norm over the two dimensions ``dim`` (other orders are not supported)."""
    if ord != "fro":
        raise RuntimeError(
            f"linalg.matrix_norm: ord={ord!r} is not supported by nnlite (only 'fro')"
        )
    return A.norm("fro", dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, dtype=None):
    """``torch.linalg.norm``: without ``ord`` the 2-norm of all elements (Frobenius for matrices);
    with ``ord`` a vector norm (1-D or an int ``dim``) or a matrix norm (2-D or two dims)."""
    if ord is None:
        return A.norm(2, dim, keepdim, dtype=dtype)
    two_dims = (dim is None and A.ndim == 2) or (isinstance(dim, (tuple, list)) and len(dim) == 2)
    if two_dims:
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype)
    return vector_norm(A, ord, dim, keepdim, dtype)
