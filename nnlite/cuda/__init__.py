"""``nl.cuda``: PyTorch's CUDA queries, answered for a framework that runs on the CPU only.

``is_available()`` is False and ``device_count()`` is 0, so ``"cuda" if nl.cuda.is_available()
else "cpu"`` picks the CPU. Seeding functions are accepted and do nothing (there is no CUDA
generator), as in a PyTorch build without CUDA; anything that needs a GPU raises.

Example:
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
    """Always ``False``: nnlite runs on the CPU."""
    return False


def device_count():
    """Always ``0``."""
    return 0


def is_initialized():
    return False


def manual_seed(seed):
    """Accepted and ignored: there is no CUDA generator (``nl.manual_seed`` seeds nnlite)."""
    int(seed)


def manual_seed_all(seed):
    """Accepted and ignored, as ``manual_seed``."""
    int(seed)


def seed():
    """Accepted and ignored."""


def seed_all():
    """Accepted and ignored."""


def empty_cache():
    """Nothing to free: a no-op, as in PyTorch before CUDA is initialised."""


def _no_gpu(index=None):
    check_device("cuda" if index is None else f"cuda:{index}")


def set_device(device):
    """Raises: nnlite has no CUDA device."""
    _no_gpu(getattr(device, "index", device) if not isinstance(device, str) else None)


def current_device():
    """Raises: nnlite has no CUDA device."""
    _no_gpu()


def synchronize(device=None):
    """Raises: nnlite has no CUDA device."""
    _no_gpu()


def get_device_name(device=None):
    """Raises: nnlite has no CUDA device."""
    _no_gpu()
