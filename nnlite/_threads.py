"""``nl.set_num_threads``: one setting for numba's kernels and numpy's BLAS, as ``torch.set_num_threads``."""
import os

_threads = [None]


def set_num_threads(n):
    """Use ``n`` threads in nnlite's numba kernels and in numpy's BLAS.

    Example:
        >>> nl.set_num_threads(1)
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"set_num_threads expects a positive integer, got {n}")
    from threadpoolctl import threadpool_limits
    threadpool_limits(n)
    try:
        import numba
    except ImportError:
        pass
    else:
        from .nn.kernels._dispatch import configure_threading_layer
        configure_threading_layer()  # numba's pool starts below: choose its layer first
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    _threads[0] = n


def get_num_threads():
    """The thread count set by ``set_num_threads`` (default: the number of CPUs)."""
    if _threads[0] is not None:
        return _threads[0]
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
