"""``nl.backends.openmp``: whether a parallel runtime is available (numba's thread pool)."""


def is_available() -> bool:
    """Whether nnlite's kernels can run on several threads: ``True`` (numba's thread pool).

    Returns:
        bool: ``True``.

    Examples:
        >>> nl.backends.openmp.is_available()
        True
    """
    return True
