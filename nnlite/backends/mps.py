"""``nl.backends.mps``: Apple's Metal backend is not available in nnlite."""


def is_available() -> bool:
    """Whether Apple's Metal (MPS) backend can be used: always ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.backends.mps.is_available()
        False
    """
    return False


def is_built() -> bool:
    """Whether nnlite was built with MPS support: always ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.backends.mps.is_built()
        False
    """
    return False
