"""``nl.backends.mkldnn``: PyTorch's oneDNN switch, settable; nnlite does not use oneDNN (its
convolutions are its own numba kernels and numpy's BLAS), so ``enabled`` changes nothing."""

enabled = True
deterministic = False


def is_available() -> bool:
    """Whether oneDNN is used: ``False`` (nnlite has its own CPU kernels).

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.backends.mkldnn.is_available()
        False
    """
    return False
