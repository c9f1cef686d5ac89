"""Thread counts: ``nl.set_num_threads``, numba's threading layer, and limits for worker processes.

One setting covers nnlite's numba kernels and its matrix products, as ``torch.set_num_threads``
does. Who owns the threads: numba's pool runs the conv/pooling kernels; big matrix products are split
into blocks by ``threads_matmul`` over a few helper threads; numpy's BLAS itself stays on one thread
(``pin_blas_to_one_thread``), because OpenBLAS's threads spin while they wait for work and, on a busy
machine or beside numba's pool, that spinning took the cores the work needed (a 64x784 @ 784x256
product 2-4x slower on 2 threads than on 1). numba's pool keeps numba's own threading layer
(OpenMP's threads spin briefly after a kernel, so kernels start quickly); the product helpers
sleep when idle.
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

# Rounds an idle GNU OpenMP thread spins before it sleeps (see _load_openmp_with_short_spin):
# enough to catch the next kernel of a step, short enough not to starve a block on a busy machine.
OPENMP_SPIN_COUNT = 1000

_threads: list[int | None] = [None]
_default: list[int | None] = [None]  # default_num_threads(), once known
_short_spin: list[bool] = [False]  # numba's OpenMP pool was loaded with OPENMP_SPIN_COUNT
_fork_hook: list[bool] = [False]  # the after-fork hook is registered
# this process was forked from one whose numba pool ran on GNU OpenMP: it stays on one thread
_one_thread_after_fork: list[bool] = [False]


def usable_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_num_threads() -> int:
    """nnlite's thread count when ``set_num_threads`` was never called.

    As in PyTorch: ``OMP_NUM_THREADS`` when it holds a positive integer, else the usable CPUs.
    """
    count = _default[0]
    if count is None:  # read once, as PyTorch reads it at start-up
        value = os.environ.get("OMP_NUM_THREADS", "").strip()
        count = _default[0] = int(value) if value.isdigit() and int(value) > 0 else usable_cpus()
    return count


def configure_threading_layer() -> None:
    """Make numba's threading layer safe for the processes nnlite forks; ``import nnlite`` calls it.

    numba picks its layer itself (TBB when installed, else OpenMP, else its ``workqueue``), unless
    ``NUMBA_THREADING_LAYER`` says otherwise. OpenMP's threads spin for a moment after each kernel,
    so the next kernel starts in about a microsecond, where ``workqueue``'s sleeping threads take
    20-40 µs to wake and, on a busy machine, lose their core to other processes meanwhile. GNU
    OpenMP does not survive ``fork``: a forked child that starts a parallel kernel is terminated.
    So a child forked after the pool started runs nnlite on one thread (every kernel then runs its
    serial build), as data-loader workers and DataParallel replicas do anyway.

    How long GNU OpenMP's threads spin is read once, when its library loads: nnlite loads numba's
    OpenMP pool here with a short spin (``OPENMP_SPIN_COUNT``) unless the environment sets
    ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT``, and restores the environment after, so that other
    OpenMP runtimes in the process (PyTorch's own copy) are not affected.
    """
    if hasattr(os, "register_at_fork") and not _fork_hook[0]:
        os.register_at_fork(after_in_child=_after_fork_in_child)
        _fork_hook[0] = True
    _load_openmp_with_short_spin()


def _load_openmp_with_short_spin() -> None:
    """Load numba's GNU OpenMP pool library with ``GOMP_SPINCOUNT=OPENMP_SPIN_COUNT``.

    OpenMP's default spin (300,000 rounds, milliseconds) made a busy machine's ResNet-18 step
    7-10x slower on 2 threads: a thread that spins waiting for a block whose thread shares its
    core with another process burns the time that block needed (measured on the AMD EPYC of the
    performance guide: batch 16, 820 ms a step beside one busy process, 64 ms with a short spin).
    """
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return  # the user's choice
    if os.environ.get("NUMBA_THREADING_LAYER", "default") not in ("default", "omp", "threadsafe"):
        return
    if "numba.np.ufunc.omppool" in sys.modules:
        return  # loaded already: its spin is fixed
    os.environ["GOMP_SPINCOUNT"] = str(OPENMP_SPIN_COUNT)
    try:
        # a compiled extension that numba ships without type information
        from numba.np.ufunc import omppool  # type: ignore[attr-defined]  # noqa: F401
    except ImportError:  # no OpenMP runtime: numba uses another layer
        pass
    else:
        _short_spin[0] = True
    finally:
        del os.environ["GOMP_SPINCOUNT"]


def pool_spins_briefly() -> bool:
    """numba's OpenMP pool was loaded by nnlite with its short spin (see above).

    Only then do matrix-product blocks run on that pool (``blas_pool``): with OpenMP's long default
    spin, a waiting thread held its core while the block it waited for ran slower, and a
    batch-16 ResNet-18 step took ten times as long.
    """
    return _short_spin[0]


def _pool_runs_on_gnu_openmp() -> bool:
    """numba's pool runs in this process, on GNU OpenMP (whose threads a forked child lacks)."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None or not getattr(parallel, "_is_initialized", False):
        return False
    if parallel.threading_layer() != "omp":
        return False
    try:
        # a compiled extension that numba ships without type information
        from numba.np.ufunc import omppool  # type: ignore[attr-defined]
    except ImportError:
        return False
    return bool(omppool.openmp_vendor == "GNU")


def _after_fork_in_child() -> None:
    if _pool_runs_on_gnu_openmp():
        _threads[0] = 1
        _one_thread_after_fork[0] = True


def pin_blas_to_one_thread() -> None:
    """Run numpy's BLAS on the calling thread only (nnlite splits big products itself)."""
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(1, user_api="blas")
    except Exception:  # noqa: BLE001  (threadpoolctl unable to inspect a library: leave it be)
        pass


def sync_numba_threads() -> int:
    """Size numba's pool (for the calling thread) to nnlite's count; returns that count.

    Called before each parallel kernel, so the count holds whoever started numba's pool and from
    whichever thread the kernel runs (numba's count is per thread).
    """
    import numba

    # numba.config sets its options at run time, from the environment
    n: int = min(get_num_threads(), numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    if numba.get_num_threads() != n:
        numba.set_num_threads(n)
    return n


def set_num_threads(n: int) -> None:
    """Use ``n`` threads in nnlite's kernels and matrix products.

    Big matrix products are split into ``n`` blocks, each a one-thread BLAS call; numpy's BLAS
    itself stays on one thread so that its spinning threads never compete with nnlite's.

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
    if n > 1 and _one_thread_after_fork[0]:
        import warnings

        warnings.warn(
            f"set_num_threads({n}) in a process forked after numba's GNU OpenMP thread pool "
            "started: that pool does not survive fork, so this process stays on one thread "
            "(start it with the 'spawn' or 'forkserver' method to use more)",
            RuntimeWarning,
            stacklevel=2,
        )
        n = 1
    from threadpoolctl import threadpool_limits

    threadpool_limits(n, user_api="openmp")
    pin_blas_to_one_thread()
    _threads[0] = n
    configure_threading_layer()
    sync_numba_threads()


def get_num_threads() -> int:
    """The thread count set by ``set_num_threads``.

    Default, as in PyTorch: ``OMP_NUM_THREADS`` if set to a positive integer, else the number of
    usable CPUs.

    Returns:
        int: the number of threads nnlite's kernels use.

    Examples:
        >>> nl.get_num_threads() >= 1
        True
    """
    if _threads[0] is not None:
        return _threads[0]
    return default_num_threads()


def set_thread_env(threads: int, numba_started: bool = False) -> None:
    """Thread-count environment for libraries that read it when they start.

    ``numba_started``: numba is imported in this process, so ``NUMBA_NUM_THREADS`` is left as
    numba read it. numba re-reads its variables before every compilation and refuses a new
    ``NUMBA_NUM_THREADS`` once its pool runs, which would fail the first kernel compiled after
    that (numba's pool is sized through its own API instead).
    """
    for var in THREAD_ENV_VARS:
        if not (numba_started and var == "NUMBA_NUM_THREADS"):
            os.environ[var] = str(threads)


def limit_threads(threads: int, never_forks: bool = False) -> None:
    """Use ``threads`` threads in BLAS, OpenMP and numba in this (worker) process.

    numba's pool is only sized, not started: starting it costs about half a second, and most
    data-loader workers never run a parallel kernel. ``never_forks``: this process starts no
    children, so unless the user chose a threading layer numba may use OpenMP, which runs a
    one-thread kernel inline instead of handing it to a queue thread (a one-thread DataParallel
    worker's LeNet step was 10-25% faster).
    """
    if _one_thread_after_fork[0]:
        threads = 1  # forked after numba's GNU OpenMP pool started: see configure_threading_layer
    numba = sys.modules.get("numba")
    set_thread_env(threads, numba_started=numba is not None)
    _threads[0] = threads
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(threads, user_api="openmp")
        threadpool_limits(1, user_api="blas")  # see pin_blas_to_one_thread
    except Exception:  # noqa: BLE001  (threadpoolctl missing or unable to inspect a library)
        pass
    if numba is None:
        return  # NUMBA_NUM_THREADS in the environment applies when it is imported
    threads = min(threads, numba.config.NUMBA_NUM_THREADS)
    from numba.np.ufunc import parallel

    if not getattr(parallel, "_is_initialized", False):
        if never_forks and "NUMBA_THREADING_LAYER" not in os.environ:
            try:
                # fails without an OpenMP runtime; a compiled extension without type information
                from numba.np.ufunc import omppool  # type: ignore[attr-defined] # noqa: F401

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
