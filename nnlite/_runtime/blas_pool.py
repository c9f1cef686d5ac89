"""Blocks of a matrix product run on numba's thread pool, each a one-thread call of numpy's BLAS.

``threads_matmul`` cuts a big product into blocks. Handing the blocks to Python helper threads
costs a wake-up each (20-40 µs, longer on a busy machine) and puts a second set of threads beside
numba's pool, whose OpenMP threads spin for a moment after each kernel: the two competed for the
cores. Here the blocks run inside one numba parallel loop instead, so the same threads run the
convolution kernels and the products, and a product starts as quickly as any kernel.

The loop calls numpy's own OpenBLAS by its C entry point (``cblas_sgemm``/``cblas_dgemm``, under
the name numpy's build gives it), found through threadpoolctl and resolved by name when the
kernel is linked, so the compiled kernel stays in numba's cache. Where that entry point is not
found (another BLAS), where numba's pool is not OpenMP with nnlite's short spin
(``threads.pool_spins_briefly``), or an operand's layout is not one BLAS takes directly,
``blocks_on_pool`` returns False and the caller uses its helper threads.
"""

from __future__ import annotations

import ctypes
import types as pytypes
from typing import TYPE_CHECKING, Any

import numpy as np

from .jit import njit, prange
from .threads import pool_spins_briefly, sync_numba_threads

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from numpy.typing import NDArray

# CBLAS's enumerations
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
# columns of a task row: operand addresses, the block's sides, how many matrices it holds and
# the byte steps between them (0 for an operand shared by a batch)
_A, _B, _C, _M, _N, _COUNT, _A_STEP, _B_STEP, _C_STEP = range(9)

_kernels: dict[np.dtype[Any], Callable[..., None]] = {}
_searched = [False]


def _run_tasks(
    tasks: NDArray[np.int64],
    k: int,
    trans_a: int,
    trans_b: int,
    lda: int,
    ldb: int,
    ldc: int,
    alpha: Any,
    beta: Any,
) -> None:
    # one task per thread; ``gemm`` is a global of each build (see _build_kernel)
    for t in prange(tasks.shape[0]):
        for j in range(tasks[t, _COUNT]):
            gemm(  # type: ignore[name-defined]  # noqa: F821
                _ROW_MAJOR,
                trans_a,
                trans_b,
                tasks[t, _M],
                tasks[t, _N],
                k,
                alpha,
                tasks[t, _A] + j * tasks[t, _A_STEP],
                lda,
                tasks[t, _B] + j * tasks[t, _B_STEP],
                ldb,
                beta,
                tasks[t, _C] + j * tasks[t, _C_STEP],
                ldc,
            )


def _build_kernel(symbol: str, scalar: Any, index: Any) -> Callable[..., None]:
    """``_run_tasks`` compiled against the BLAS entry point ``symbol`` (named after it, so that
    each entry point keeps its own cache file)."""
    from numba import types

    i32 = types.int32
    address = types.int64  # pointers travel as integers (the same registers in the C ABI)
    signature = types.void(
        *(i32, i32, i32, index, index, index, scalar),
        *(address, index, address, index, scalar, address, index),
    )
    namespace = dict(_run_tasks.__globals__, gemm=types.ExternalFunction(symbol, signature))
    fn = pytypes.FunctionType(_run_tasks.__code__, namespace, f"_run_tasks_{symbol}")
    fn.__qualname__ = fn.__name__
    return njit(parallel=True, cache=True, nogil=True)(fn)


def _find_kernels() -> None:
    """Build the kernels for numpy's OpenBLAS, if that is numpy's BLAS and its entry points show."""
    _searched[0] = True
    try:
        import llvmlite.binding as llvm
        from numba import types
        from threadpoolctl import threadpool_info
    except ImportError:
        return
    paths = [
        i["filepath"]
        for i in threadpool_info()
        if i.get("user_api") == "blas" and i.get("internal_api") == "openblas"
    ]
    for path in paths[:1]:
        library = ctypes.CDLL(path)
        for prefix in ("scipy_", ""):
            for suffix, index in (("64_", types.int64), ("", types.int32)):
                names: dict[np.dtype[Any], str] = {
                    np.dtype(np.float32): f"{prefix}cblas_sgemm{suffix}",
                    np.dtype(np.float64): f"{prefix}cblas_dgemm{suffix}",
                }
                if all(hasattr(library, name) for name in names.values()):
                    llvm.load_library_permanently(path)
                    for dtype, name in names.items():
                        scalar = types.float32 if dtype == np.float32 else types.float64
                        _kernels[dtype] = _build_kernel(name, scalar, index)
                    return


def _layout(strides: tuple[int, ...], rows: int, cols: int, item: int) -> tuple[int, int] | None:
    """CBLAS's transpose flag and leading dimension for a row-major matrix with these strides."""
    row_step, col_step = strides[-2], strides[-1]
    if col_step == item and row_step % item == 0 and row_step // item >= max(1, cols):
        return _NO_TRANS, row_step // item
    if row_step == item and col_step % item == 0 and col_step // item >= max(1, rows):
        return _TRANS, col_step // item
    return None


def blocks_on_pool(
    a: NDArray[Any],
    b: NDArray[Any],
    out: NDArray[Any],
    blocks: Sequence[tuple[NDArray[Any], NDArray[Any], NDArray[Any]]],
) -> bool:
    """Fill ``out`` with ``a @ b`` by running ``blocks`` (views of the three) on numba's pool.

    Args:
        a, b, out (numpy.ndarray): the operands and the result, 2-D or 3-D, one float dtype.
        blocks: (a block, b block, out block) triples whose products fill ``out``.

    Returns:
        bool: True when done; False (nothing written) when numpy's BLAS entry point was not found
        or an operand's layout is not one BLAS takes as it is.
    """
    if not pool_spins_briefly():
        return False
    if not _searched[0]:
        _find_kernels()
    kernel = _kernels.get(out.dtype)
    if kernel is None or not (a.dtype == b.dtype == out.dtype):
        return False
    item = out.itemsize
    m, k = a.shape[-2:]
    n = b.shape[-1]
    layout_a = _layout(a.strides, m, k, item)
    layout_b = _layout(b.strides, k, n, item)
    layout_c = _layout(out.strides, m, n, item)
    if k == 0 or layout_a is None or layout_b is None or layout_c is None:
        return False
    if layout_c[0] != _NO_TRANS:
        return False
    tasks = np.empty((len(blocks), 9), np.int64)
    for row, (x, y, z) in zip(tasks, blocks):
        row[_A] = x.ctypes.data
        row[_B] = y.ctypes.data
        row[_C] = z.ctypes.data
        row[_M], row[_N] = z.shape[-2:]
        row[_COUNT] = z.shape[0] if z.ndim == 3 else 1
        row[_A_STEP] = x.strides[0] if x.ndim == 3 else 0
        row[_B_STEP] = y.strides[0] if y.ndim == 3 else 0
        row[_C_STEP] = z.strides[0] if z.ndim == 3 else 0
    scalar = out.dtype.type
    sync_numba_threads()
    kernel(
        tasks,
        k,
        *layout_a[:1],
        *layout_b[:1],
        layout_a[1],
        layout_b[1],
        layout_c[1],
        scalar(1),
        scalar(0),
    )
    return True
