"""``nl.accelerator``: PyTorch's device-agnostic accelerator queries, answered as PyTorch answers
them on a machine without an accelerator, so that

    device = nl.accelerator.current_accelerator() if nl.accelerator.is_available() else nl.device("cpu")

picks the CPU.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from .device import check_device

if TYPE_CHECKING:
    from .device import device as Device

__all__ = [
    "is_available",
    "current_accelerator",
    "device_count",
    "current_device_index",
    "set_device_index",
    "synchronize",
]


def is_available() -> bool:
    """Whether an accelerator (GPU, MPS, ...) can be used: always ``False``, nnlite runs on the CPU.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.accelerator.is_available()
        False
    """
    return False


def current_accelerator(check_available: bool = False) -> None:
    """The accelerator in use: ``None``, there is none.

    Args:
        check_available (bool): accepted for compatibility.

    Returns:
        None: there is no accelerator.

    Examples:
        >>> nl.accelerator.current_accelerator() is None
        True
    """
    return None


def device_count() -> int:
    """The number of accelerator devices: always ``0``.

    Returns:
        int: ``0``.

    Examples:
        >>> nl.accelerator.device_count()
        0
    """
    return 0


def _none() -> NoReturn:
    raise RuntimeError("Cannot access accelerator device when none is available.")


def current_device_index() -> int:
    """Raises, as PyTorch without an accelerator.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.accelerator.current_device_index()
        Traceback (most recent call last):
            ...
        RuntimeError: Cannot access accelerator device when none is available.
    """
    _none()


def set_device_index(device: int | str | Device) -> None:
    """Raises for an accelerator index; accepts only the CPU.

    Args:
        device (int, str or nl.device): the device to select.

    Raises:
        RuntimeError: for any device but the CPU.

    Examples:
        >>> nl.accelerator.set_device_index("cpu")
        >>> nl.accelerator.set_device_index(0)
        Traceback (most recent call last):
            ...
        RuntimeError: Cannot access accelerator device when none is available.
    """
    if isinstance(device, int) and not isinstance(device, bool):
        _none()
    check_device(device)


def synchronize(device: int | str | Device | None = None) -> None:
    """Raises, as PyTorch without an accelerator.

    Args:
        device (int, str or nl.device, optional): the device PyTorch would wait for.

    Raises:
        RuntimeError: always.

    Examples:
        >>> nl.accelerator.synchronize()
        Traceback (most recent call last):
            ...
        RuntimeError: Cannot access accelerator device when none is available.
    """
    _none()
