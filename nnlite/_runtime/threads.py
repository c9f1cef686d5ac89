"""Thread counts: ``nl.set_num_threads``, numba's threading layer, and limits for worker processes.

One setting covers nnlite's numba kernels and numpy's BLAS, as ``torch.set_num_threads`` does.
Worker processes (data-loader workers, DataParallel replicas) run side by side, so each sizes its
pools down before its first kernel.
"""

import os
import sys

# Environment variables that fix the thread count of BLAS, OpenMP and numba in a process that has
# not started them yet.
THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "NUMBA_NUM_THREADS",
)

_threads = [None]


def usable_cpus():
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def configure_threading_layer():
    """Choose numba's fork-safe threading layer unless the user picked one.

    nnlite forks processes (data-loader workers, DataParallel replicas) that run numba kernels;
    GNU OpenMP, numba's default layer on Linux, does not survive a fork once its pool runs. This
    must happen before numba's pool starts, so ``set_num_threads`` calls it too.
    """
    import numba

    if "NUMBA_THREADING_LAYER" not in os.environ and numba.config.THREADING_LAYER == "default":
        numba.config.THREADING_LAYER = "forksafe"


def set_num_threads(n):
    """Use ``n`` threads in nnlite's numba kernels and in numpy's BLAS.

    Args:
        n (int): the number of threads (at least 1).

    Examples:
        >>> before = nl.get_num_threads()
        >>> nl.set_num_threads(1)
        >>> nl.get_num_threads()
        1
        >>> nl.set_num_threads(before)
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
        configure_threading_layer()  # numba's pool starts below: choose its layer first
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    _threads[0] = n


def get_num_threads():
    """The thread count set by ``set_num_threads`` (default: the number of usable CPUs).

    Returns:
        int: the number of threads nnlite's kernels use.

    Examples:
        >>> nl.get_num_threads() >= 1
        True
    """
    if _threads[0] is not None:
        return _threads[0]
    return usable_cpus()


def set_thread_env(threads, numba_started=False):
    """Thread-count environment for libraries that read it when they start.

    ``numba_started``: numba is imported in this process, so ``NUMBA_NUM_THREADS`` is left as
    numba read it. numba re-reads its variables before every compilation and refuses a new
    ``NUMBA_NUM_THREADS`` once its pool runs, which would fail the first kernel compiled after
    that (numba's pool is sized through its own API instead).
    """
    for var in THREAD_ENV_VARS:
        if not (numba_started and var == "NUMBA_NUM_THREADS"):
            os.environ[var] = str(threads)


def limit_threads(threads, never_forks=False):
    """Use ``threads`` threads in BLAS, OpenMP and numba in this (worker) process.

    numba's pool is only sized, not started: starting it costs about half a second, and most
    data-loader workers never run a parallel kernel. ``never_forks``: this process starts no
    children, so unless the user chose a threading layer numba may use OpenMP, which runs a
    one-thread kernel inline instead of handing it to a queue thread (a one-thread DataParallel
    worker's LeNet step was 10-25% faster).
    """
    numba = sys.modules.get("numba")
    set_thread_env(threads, numba_started=numba is not None)
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads)
    except Exception:  # noqa: BLE001  (threadpoolctl missing or unable to inspect a library)
        pass
    if numba is None:
        return  # NUMBA_NUM_THREADS in the environment applies when it is imported
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    from numba.np.ufunc import parallel

    if not getattr(parallel, "_is_initialized", False):
        if never_forks and "NUMBA_THREADING_LAYER" not in os.environ:
            try:
                from numba.np.ufunc import omppool  # noqa: F401  (fails without an OpenMP runtime)

                numba.config.THREADING_LAYER = "omp"
            except ImportError:
                pass
        if hasattr(parallel, "NUM_THREADS"):
            parallel.NUM_THREADS = threads  # the pool starts with this many threads
            return
    try:
        numba.set_num_threads(threads)
    except Exception:  # noqa: BLE001  (a pool that cannot be resized: the env vars still apply)
        pass
