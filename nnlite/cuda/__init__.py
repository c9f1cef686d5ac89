"""``nl.cuda``: PyTorch's CUDA queries, answered for a framework that runs on the CPU only.

``is_available()`` is False and ``device_count()`` is 0, so ``"cuda" if nl.cuda.is_available()
else "cpu"`` picks the CPU. Seeding functions are accepted and do nothing (there is no CUDA
generator), as in a PyTorch build without CUDA; anything that needs a GPU raises.

Examples:
    >>> device = nl.device("cuda" if nl.cuda.is_available() else "cpu")
    >>> device
    device(type='cpu')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..device import check_device

if TYPE_CHECKING:
    from .._typing import Device

__all__ = [
    "is_available",
    "device_count",
    "manual_seed",
    "manual_seed_all",
    "seed",
    "seed_all",
    "set_device",
    "current_device",
    "synchronize",
    "empty_cache",
    "get_device_name",
    "is_initialized",
]


def is_available() -> bool:
    """Whether a CUDA GPU can be used: always ``False``, nnlite runs on the CPU.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.cuda.is_available()
        False
    """
    return False


def device_count() -> int:
    """The number of CUDA devices: always ``0``.

    Returns:
        int: ``0``.

    Examples:
        >>> nl.cuda.device_count()
        0
    """
    return 0


def is_initialized() -> bool:
    """Whether CUDA has been initialised: always ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.cuda.is_initialized()
        False
    """
    return False


def manual_seed(seed: int) -> None:
    """Accepted and ignored: there is no CUDA generator (``nl.manual_seed`` seeds nnlite's).

    Args:
        seed (int): checked to be an integer, then unused.

    Examples:
        >>> nl.cuda.manual_seed(0)  # does nothing, as in a PyTorch build without CUDA
    """
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Accepted and ignored, as ``manual_seed``.

    Args:
        seed (int): checked to be an integer, then unused.

    Examples:
        >>> nl.cuda.manual_seed_all(0)
    """
    int(seed)


def seed() -> None:
    """Accepted and ignored: there is no CUDA generator.

    Examples:
        >>> nl.cuda.seed()
    """


def seed_all() -> None:
    """Accepted and ignored: there is no CUDA generator.

    Examples:
        >>> nl.cuda.seed_all()
    """


def empty_cache() -> None:
    """Nothing to free: a no-op, as in PyTorch before CUDA is initialised.

    Examples:
        >>> nl.cuda.empty_cache()
    """


def _no_gpu(index: object = None) -> None:
    # ``index`` is only shown in the message: whatever the caller named the device by
    check_device("cuda" if index is None else f"cuda:{index}")


def set_device(device: Device) -> None:
    """Raises: nnlite has no CUDA device.

    Args:
        device (int, str or nl.device): the device PyTorch would select.

    Raises:
        RuntimeError: always, saying that nnlite runs on the CPU.

    Examples:
        >>> nl.cuda.set_device(0)
        Traceback (most recent call last):
            ...
        RuntimeError: nnlite runs on the CPU only; device 'cuda:0' is not available ...
    """
    _no_gpu(getattr(device, "index", device) if not isinstance(device, str) else None)


def current_device() -> None:
    """Raises: nnlite has no CUDA device.

    Raises:
        RuntimeError: always, saying that nnlite runs on the CPU.

    Examples:
        >>> nl.cuda.current_device()
        Traceback (most recent call last):
            ...
        RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
    """
    _no_gpu()


def synchronize(device: Device = None) -> None:
    """Raises: nnlite has no CUDA device.

    Args:
        device (int, str or nl.device, optional): the device PyTorch would wait for.

    Raises:
        RuntimeError: always, saying that nnlite runs on the CPU.

    Examples:
        >>> nl.cuda.synchronize()
        Traceback (most recent call last):
            ...
        RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
    """
    _no_gpu()


def get_device_name(device: Device = None) -> None:
    """Raises: nnlite has no CUDA device.

    Args:
        device (int, str or nl.device, optional): the device PyTorch would name.

    Raises:
        RuntimeError: always, saying that nnlite runs on the CPU.

    Examples:
        >>> nl.cuda.get_device_name()
        Traceback (most recent call last):
            ...
        RuntimeError: nnlite runs on the CPU only; device 'cuda' is not available ...
    """
    _no_gpu()
