"""Matrix products split over nnlite's threads when they are big, on the calling thread when small.

numpy's BLAS stays on one thread (``threads.pin_blas_to_one_thread``). A big product is cut into
blocks (along the batch of a batched product, else the longer of the output's two sides) and each
block is an ordinary one-thread BLAS call: the caller runs the first, helper threads the others.
numpy releases the GIL inside BLAS, so the blocks run side by side; the helpers wait on a lock when
idle, so unlike BLAS's own threads they never spin on a busy machine.

A block is only worth a thread with enough work to pay the hand-over (tens of microseconds): each
holds at least ``MIN_MACS_PER_PART`` multiply-adds, so a product gets ``min(threads, macs // that)``
blocks. Small products (an MLP's, LeNet's at small batches) stay on one thread.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from .blas_pool import blocks_on_pool
from .threads import get_num_threads

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from numpy.typing import NDArray

    Array: TypeAlias = NDArray[Any]  # of any dtype

# Multiply-adds a block must hold to pay for handing it to another thread: about 0.3 ms of
# float32 BLAS on one core, where a hand-over costs 20-60 us.
MIN_MACS_PER_PART = 1 << 24

_pool_lock = threading.Lock()


class _HelperPool:
    """The executor of the helper threads (started when a product first needs it) and its size."""

    def __init__(self) -> None:
        self.executor: ThreadPoolExecutor | None = None
        self.helpers = 0


_pool = _HelperPool()


def matmul_parts(batch: int, m: int, n: int, k: int, threads: int) -> int:
    """How many blocks a ``(batch, m, k) @ (batch, k, n)`` product is split into on ``threads``.

    Args:
        batch, m, n, k (int): the product's batch size and matrix sides.
        threads (int): the threads available.

    Returns:
        int: between 1 (run on the calling thread) and ``threads``.
    """
    if threads <= 1:
        return 1
    parts = min(threads, (batch * m * n * k) // MIN_MACS_PER_PART)
    return max(1, min(parts, max(batch, m, n)))


def _executor(helpers: int) -> ThreadPoolExecutor:
    with _pool_lock:
        if _pool.executor is None or _pool.helpers < helpers:
            if _pool.executor is not None:
                _pool.executor.shutdown(wait=False)
            _pool.executor = ThreadPoolExecutor(helpers, thread_name_prefix="nnlite-matmul")
            _pool.helpers = helpers
        return _pool.executor


def _forget_pool() -> None:
    """In a forked child the helper threads do not exist: start a new pool when one is needed."""
    _pool.executor, _pool.helpers = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _bounds(size: int, parts: int) -> list[tuple[int, int]]:
    return [(size * i // parts, size * (i + 1) // parts) for i in range(parts)]


def _blocks(a: Array, b: Array, out: Array, parts: int) -> list[tuple[Array, Array, Array]]:
    """``parts`` triples (a block, b block, out block) whose products fill ``out``."""
    batch = out.shape[0] if out.ndim == 3 else 1
    if out.ndim == 3 and batch >= parts:
        return [
            (a[i:j] if a.ndim == 3 else a, b[i:j] if b.ndim == 3 else b, out[i:j])
            for i, j in _bounds(batch, parts)
        ]
    m, n = out.shape[-2:]
    if m >= n:
        return [(a[..., i:j, :], b, out[..., i:j, :]) for i, j in _bounds(m, parts)]
    return [(a, b[..., :, i:j], out[..., :, i:j]) for i, j in _bounds(n, parts)]


def matmul(a: Array, b: Array, out: Array | None = None) -> Array:
    """``np.matmul(a, b, out=out)`` for 2-D or 3-D arrays, split over nnlite's threads when big.

    Args:
        a (numpy.ndarray): ``(m, k)`` or ``(batch, m, k)``.
        b (numpy.ndarray): ``(k, n)`` or ``(batch, k, n)``.
        out (numpy.ndarray, optional): where to write the product.

    Returns:
        numpy.ndarray: the product (``out`` when given).

    Example:
        >>> a = np.ones((2, 3), np.float32)
        >>> matmul(a, a.T)
        array([[3., 3.],
               [3., 3.]], dtype=float32)
    """
    threads = get_num_threads()
    if threads <= 1 or a.ndim not in (2, 3) or b.ndim not in (2, 3):
        return np.matmul(a, b, out=out)
    batch = max(a.shape[0] if a.ndim == 3 else 1, b.shape[0] if b.ndim == 3 else 1)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    parts = matmul_parts(batch, m, n, k, threads)
    if parts == 1:
        return np.matmul(a, b, out=out)
    if out is None:
        shape = (batch, m, n) if max(a.ndim, b.ndim) == 3 else (m, n)
        out = np.empty(shape, np.result_type(a.dtype, b.dtype))
    blocks = _blocks(a, b, out, parts)
    if blocks_on_pool(a, b, out, blocks):
        return out
    pool = _executor(parts - 1)
    futures = [pool.submit(np.matmul, x, y, out=z) for x, y, z in blocks[1:]]
    x, y, z = blocks[0]
    np.matmul(x, y, out=z)
    for future in futures:
        future.result()
    return out
