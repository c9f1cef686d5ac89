"""``nl.backends.cudnn``: settable flags with PyTorch's defaults; nnlite has no cuDNN, so they
change nothing (nnlite's CPU kernels are deterministic)."""

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """Always ``False``."""
    return False


def version():
    """``None``: no cuDNN, as in a PyTorch build without it."""
    return None
