"""``nl.cuda``: PyTorch's CUDA queries, answered for a framework that runs on the CPU only.

``is_available()`` is False and ``device_count()`` is 0, so ``"cuda" if nl.cuda.is_available()
else "cpu"`` picks the CPU. Seeding functions are accepted and do nothing (there is no CUDA
generator), as in a PyTorch build without CUDA; anything that needs a GPU raises.

Examples:
    >>> device = nl.device("cuda" if nl.cuda.is_available() else "cpu")
    >>> device
    device(type='cpu')
"""

from ..device import check_device

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


def is_available():
    """Whether a CUDA GPU can be used: always ``False``, nnlite runs on the CPU.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.cuda.is_available()
        False
    """
    return False


def device_count():
    """The number of CUDA devices: always ``0``.

    Returns:
        int: ``0``.

    Examples:
        >>> nl.cuda.device_count()
        0
    """
    return 0


def is_initialized():
    """Whether CUDA has been initialised: always ``False``.

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.cuda.is_initialized()
        False
    """
    return False


def manual_seed(seed):
    """Accepted and ignored: there is no CUDA generator (``nl.manual_seed`` seeds nnlite's).

    Args:
        seed (int): checked to be an integer, then unused.

    Examples:
        >>> nl.cuda.manual_seed(0)  # does nothing, as in a PyTorch build without CUDA
    """
    int(seed)


def manual_seed_all(seed):
    """Accepted and ignored, as ``manual_seed``.

    Args:
        seed (int): checked to be an integer, then unused.

    Examples:
        >>> nl.cuda.manual_seed_all(0)
    """
    int(seed)


def seed():
    """Accepted and ignored: there is no CUDA generator.

    Examples:
        >>> nl.cuda.seed()
    """


def seed_all():
    """Accepted and ignored: there is no CUDA generator.

    Examples:
        >>> nl.cuda.seed_all()
    """


def empty_cache():
    """Nothing to free: a no-op, as in PyTorch before CUDA is initialised.

    Examples:
        >>> nl.cuda.empty_cache()
    """


def _no_gpu(index=None):
    check_device("cuda" if index is None else f"cuda:{index}")


def set_device(device):
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


def current_device():
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


def synchronize(device=None):
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


def get_device_name(device=None):
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
