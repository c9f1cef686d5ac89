"""``nl.backends.cudnn``: settable flags with PyTorch's defaults; nnlite has no cuDNN, so they
change nothing (nnlite's CPU kernels are deterministic)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """Whether cuDNN can be used: always ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.backends.cudnn.is_available()
        False
    """
    return False


def version() -> None:
    """The cuDNN version: ``None``, as in a PyTorch build without cuDNN.

    Returns:
        None: there is no cuDNN.

    Examples:
        >>> nl.backends.cudnn.version() is None
        True
    """
    return None
