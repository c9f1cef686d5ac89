"""``nl.backends.mps``: Apple's Metal backend is not available in nnlite."""


def is_available():
    """Always ``False``."""
    return False


def is_built():
    """Always ``False``."""
    return False
