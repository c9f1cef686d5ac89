"""``nnlite.linalg``: norms, as ``torch.linalg`` names them.

Examples:
    >>> nl.linalg.norm(nl.tensor([3., 4.]))
    tensor(5.)
"""

__all__ = ["norm", "vector_norm", "matrix_norm"]


def vector_norm(x, ord=2, dim=None, keepdim=False, dtype=None):
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


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    """The Frobenius norm over the two dimensions ``dim`` (other orders are not supported).

    Args:
        A (Tensor): the input, at least 2-D.
        ord (str): ``"fro"``. Default: ``"fro"``.
        dim (tuple of two ints): the matrix dimensions. Default: ``(-2, -1)``.
        keepdim (bool): keep reduced dimensions with size 1. Default: False.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the norm of each matrix.

    Examples:
        >>> nl.linalg.matrix_norm(nl.ones(2, 2))
        tensor(2.)
    """
    if ord != "fro":
        raise RuntimeError(
            f"linalg.matrix_norm: ord={ord!r} is not supported by nnlite (only 'fro')"
        )
    return A.norm("fro", dim, keepdim, dtype=dtype)


def norm(A, ord=None, dim=None, keepdim=False, dtype=None):
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
    if two_dims:
        return matrix_norm(A, ord, (-2, -1) if dim is None else dim, keepdim, dtype)
    return vector_norm(A, ord, dim, keepdim, dtype)
