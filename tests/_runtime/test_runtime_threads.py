"""nnlite._runtime.threads: one module for thread counts and numba's threading layer."""

import ast
import os
import pathlib
import subprocess
import sys

import pytest

import nnlite as nl
from nnlite._runtime import threads

REPO = pathlib.Path(nl.__file__).resolve().parent.parent
RUNTIME = REPO / "nnlite" / "_runtime"


def _run(code):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )


def test_runtime_imports_nothing_from_the_rest_of_nnlite():
    for path in RUNTIME.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                assert node.level <= 1 and not (node.module or "").startswith("nnlite"), (
                    path.name,
                    node.module,
                )
            elif isinstance(node, ast.Import):
                assert not any(a.name.startswith("nnlite") for a in node.names), path.name


@pytest.mark.parametrize(
    "first", ["nnlite.nn.kernels._dispatch", "nnlite._threads", "nnlite._runtime.threads"]
)
def test_kernels_and_thread_settings_import_in_any_order(first):
    proc = _run(
        f"import {first}\nimport nnlite.nn.kernels._dispatch as d, nnlite._threads as t\n"
        "assert d.get_num_threads is t.get_num_threads\n"
        "assert d.configure_threading_layer.__module__ == 'nnlite._runtime.threads'\nprint('ok')"
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_set_and_get_num_threads():
    before = nl.get_num_threads()
    try:
        nl.set_num_threads(1)
        assert nl.get_num_threads() == 1 == threads.get_num_threads()
        import numba

        assert numba.get_num_threads() == 1
    finally:
        nl.set_num_threads(before)
    with pytest.raises(ValueError, match="set_num_threads expects a positive integer, got 0"):
        nl.set_num_threads(0)


def _run_without_numba_env(code):
    """``code`` in a fresh interpreter whose environment sets no ``NUMBA_NUM_THREADS``."""
    env = dict(os.environ, PYTHONPATH=str(REPO), NUMBA_NUM_THREADS="2")
    # numba reads 2 threads at import, then the variable is gone, as in a process started
    # before any thread limit was set (a data-loader worker's forkserver)
    prologue = "import numba, os\ndel os.environ['NUMBA_NUM_THREADS']\n"
    return subprocess.run(
        [sys.executable, "-c", prologue + code],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_limit_threads_in_a_worker_sizes_pools_without_starting_numbas():
    proc = _run_without_numba_env(
        "from numba.np.ufunc import parallel\n"
        "from nnlite._runtime.threads import limit_threads\n"
        "limit_threads(1)\n"
        "from threadpoolctl import threadpool_info\n"
        "blas = {i['num_threads'] for i in threadpool_info() if i.get('user_api') == 'blas'}\n"
        "print(os.environ['OMP_NUM_THREADS'], os.environ.get('NUMBA_NUM_THREADS', 'unset'),\n"
        "      sorted(blas), parallel._is_initialized, parallel.NUM_THREADS)"
    )
    assert proc.returncode == 0, proc.stderr
    omp, nb, blas, started, numba_threads = proc.stdout.split(maxsplit=4)
    # numba's variable is left as numba read it: its pool is sized through its own API
    assert (omp, nb, started, numba_threads.strip()) == ("1", "unset", "False", "1")
    assert blas in ("[]", "[1]")


def test_kernels_compile_after_limit_threads_once_the_pool_runs():
    # Compiling re-reads numba's variables; a NUMBA_NUM_THREADS that differs from the running
    # pool's made the first kernel compiled after the pool started fail (DataParallel workers
    # forked from a server that imported numba without the variable).
    proc = _run_without_numba_env(
        "import numpy as np\n"
        "from nnlite._runtime.threads import limit_threads\n"
        "limit_threads(1, never_forks=True)\n"
        "from numba.np.ufunc import parallel\n"
        "parallel._launch_threads()  # as the first run of a kernel loaded from the cache does\n"
        "@numba.njit(parallel=True)\n"
        "def total(a):\n"
        "    s = 0.0\n"
        "    for i in numba.prange(a.size):\n"
        "        s += a[i]\n"
        "    return s\n"
        "first = total(np.arange(10.0))\n"
        "@numba.njit(parallel=True)\n"
        "def doubled(a):\n"
        "    out = np.empty_like(a)\n"
        "    for i in numba.prange(a.size):\n"
        "        out[i] = 2 * a[i]\n"
        "    return out\n"
        "print(first, doubled(np.arange(4.0)).sum(), numba.get_num_threads())"
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["45.0", "12.0", "1"]
