"""nnlite._runtime.threads: one module for thread counts and numba's threading layer."""

import ast
import os
import pathlib
import subprocess
import sys

import numpy as np
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


def _run_with_env(code, **env):
    """``code`` in a fresh interpreter, ``env`` set and no thread variable inherited."""
    full = {k: v for k, v in os.environ.items() if k not in threads.THREAD_ENV_VARS}
    full.pop("NUMBA_THREADING_LAYER", None)
    full.update(PYTHONPATH=str(REPO), **env)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=full, timeout=300
    )


@pytest.mark.parametrize("value, expected", [("1", 1), ("3", 3), ("", threads.usable_cpus())])
def test_omp_num_threads_sets_the_default_as_in_pytorch(value, expected):
    proc = _run_with_env("import nnlite as nl; print(nl.get_num_threads())", OMP_NUM_THREADS=value)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == expected


def test_import_keeps_numbas_layer_and_one_blas_thread_before_any_kernel():
    code = (
        "import nnlite, numba\n"
        "from numba.np.ufunc import parallel\n"
        "from threadpoolctl import threadpool_info\n"
        "blas = {i['num_threads'] for i in threadpool_info() if i['user_api'] == 'blas'}\n"
        "print(numba.config.THREADING_LAYER, parallel._is_initialized, sorted(blas))"
    )
    proc = _run_with_env(code)
    assert proc.returncode == 0, proc.stderr
    layer, started, blas = proc.stdout.split(maxsplit=2)
    assert (layer, started) == ("default", "False")  # numba's own choice, its pool not started
    assert blas.strip() in ("[]", "[1]")
    # a layer the user chose is kept
    proc = _run_with_env(code, NUMBA_THREADING_LAYER="workqueue")
    assert proc.stdout.split()[0] == "workqueue", proc.stderr


def test_parallel_kernels_use_nnlites_count_whoever_started_numbas_pool():
    proc = _run_with_env(
        "import numba\n"
        "numba.set_num_threads(1)  # the program starts numba's pool first\n"
        "import nnlite as nl\n"
        "from nnlite._runtime.threads import sync_numba_threads\n"
        "print(sync_numba_threads(), numba.get_num_threads(), nl.get_num_threads())",
        NUMBA_NUM_THREADS="2",
        OMP_NUM_THREADS="2",
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["2", "2", "2"]


def test_small_products_stay_on_one_thread():
    from nnlite._runtime.threads_matmul import MIN_MACS_PER_PART, matmul_parts

    assert matmul_parts(1, 4096, 4096, 4096, threads=1) == 1
    # an MLP's 64x784 @ 784x256 (12.8M multiply-adds) and LeNet's at batch 4
    assert matmul_parts(1, 64, 256, 784, threads=2) == 1
    assert matmul_parts(4, 6, 784, 75, threads=64) == 1
    # ResNet-18's first block at batch 128: 8192 x 576 x 64 = 302M multiply-adds
    assert matmul_parts(1, 8192, 64, 576, threads=2) == 2
    # as many blocks as the work pays for, at most one per thread and per row/column/image
    assert matmul_parts(1, 1024, 1024, 4 * MIN_MACS_PER_PART // (1024 * 1024), threads=64) == 4
    assert matmul_parts(1, 3, 2, 1 << 26, threads=8) == 3


@pytest.mark.parametrize(
    "a_shape, b_shape",
    [
        ((40, 7), (7, 9)),  # rows split
        ((9, 7), (7, 40)),  # columns split
        ((6, 5, 7), (6, 7, 3)),  # batch split
        ((5, 7), (6, 7, 3)),  # a shared matrix times a batch
        ((2, 30, 7), (7, 3)),  # a batch times a shared matrix, rows split
    ],
)
def test_split_products_equal_numpys(monkeypatch, a_shape, b_shape):
    from nnlite._runtime import threads_matmul

    monkeypatch.setattr(threads_matmul, "MIN_MACS_PER_PART", 1)
    monkeypatch.setattr(threads_matmul, "get_num_threads", lambda: 3)
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal(a_shape), rng.standard_normal(b_shape)
    expected = np.matmul(a, b)
    np.testing.assert_allclose(threads_matmul.matmul(a, b), expected, rtol=1e-12)
    out = np.empty_like(expected)
    assert threads_matmul.matmul(a.swapaxes(-1, -2).copy().swapaxes(-1, -2), b, out=out) is out
    np.testing.assert_allclose(out, expected, rtol=1e-12)


FORKED_CHILD = """
import os, warnings
import nnlite as nl
import nnlite.nn.functional as F
nl.set_num_threads(2)
x = nl.randn(8, 16, 128, 128)  # big enough for the parallel build of the pooling kernel
F.max_pool2d(x, 2)  # starts numba's pool
pid = os.fork()
if pid == 0:
    threads = nl.get_num_threads()
    F.max_pool2d(x, 2)  # a parallel kernel here would end the child
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nl.set_num_threads(2)
    os.write(1, f"{threads} {nl.get_num_threads()} {len(caught)}\\n".encode())
    os._exit(0)
_, status = os.waitpid(pid, 0)
import numba
print(numba.threading_layer(), os.waitstatus_to_exitcode(status))
"""


def test_a_child_forked_after_an_openmp_pool_started_runs_on_one_thread():
    proc = _run_with_env(FORKED_CHILD, NUMBA_THREADING_LAYER="omp")
    if proc.returncode != 0 and "No threading layer could be loaded" in proc.stderr:
        pytest.skip("numba has no OpenMP threading layer here")
    assert proc.returncode == 0, proc.stderr
    child, parent = proc.stdout.splitlines()
    assert parent == "omp 0"
    assert child == "1 1 1"  # one thread, kernels ran, set_num_threads(2) warned and kept 1


def test_openmp_pool_loads_with_a_short_spin_unless_the_environment_chooses():
    code = (
        "import os, nnlite\n"
        "from nnlite._runtime import threads\n"
        "print(threads.pool_spins_briefly(), 'GOMP_SPINCOUNT' in os.environ)"
    )
    proc = _run_with_env(code)
    assert proc.returncode == 0, proc.stderr
    if proc.stdout.split()[0] == "False":
        pytest.skip("numba has no OpenMP threading layer here")
    assert proc.stdout.split() == ["True", "False"]  # and the variable was restored
    for env in ({"GOMP_SPINCOUNT": "300000"}, {"OMP_WAIT_POLICY": "ACTIVE"},
                {"NUMBA_THREADING_LAYER": "workqueue"}):  # fmt: skip
        proc = _run_with_env(code, **env)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.split()[0] == "False", env
