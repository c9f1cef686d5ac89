"""``nl.set_num_threads`` / ``nl.get_num_threads``: defined in ``nnlite._runtime.threads``."""

from ._runtime.threads import get_num_threads, set_num_threads

__all__ = ["get_num_threads", "set_num_threads"]
