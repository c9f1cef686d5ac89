"""``nl.accelerator``: PyTorch's device-agnostic accelerator queries, answered as PyTorch answers
them on a machine without an accelerator, so that

    device = nl.accelerator.current_accelerator() if nl.accelerator.is_available() else nl.device("cpu")

picks the CPU.
"""

from .device import check_device

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "set_device_index",
    "synchronize",
]


def is_available():
    """Always ``False``: nnlite runs on the CPU."""
    return False


def current_accelerator(check_available=False):
    """``None``: there is no accelerator."""
    return None


def device_count():
    """Always ``0``."""
    return 0


def _none():
    raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index():
    """Raises, as PyTorch without an accelerator."""
    _none()


def set_device_index(device):
    """Raises for an accelerator index; accepts only the CPU."""
    if isinstance(device, int) and not isinstance(device, bool):
        _none()
    check_device(device)


def synchronize(device=None):
    """Raises, as PyTorch without an accelerator."""
    _none()
