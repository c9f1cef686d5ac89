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


def test_limit_threads_in_a_worker_sizes_pools_without_starting_numbas():
    proc = _run(
        "import numba\n"
        "from numba.np.ufunc import parallel\n"
        "from nnlite._runtime.threads import limit_threads\n"
        "limit_threads(1)\n"
        "import os\n"
        "from threadpoolctl import threadpool_info\n"
        "blas = {i['num_threads'] for i in threadpool_info() if i.get('user_api') == 'blas'}\n"
        "print(os.environ['OMP_NUM_THREADS'], os.environ['NUMBA_NUM_THREADS'], sorted(blas),\n"
        "      parallel._is_initialized, parallel.NUM_THREADS)"
    )
    assert proc.returncode == 0, proc.stderr
    omp, nb, blas, started, numba_threads = proc.stdout.split(maxsplit=4)
    assert (omp, nb, started, numba_threads.strip()) == ("1", "1", "False", "1")
    assert blas in ("[]", "[1]")
