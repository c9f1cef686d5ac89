"""``nl.set_num_threads`` / ``nl.get_num_threads``: defined in ``nnlite._runtime.threads``.

Importing nnlite fixes numba's threading layer and keeps numpy's BLAS on one thread before any of
nnlite's kernels can start a pool (``nnlite._runtime.threads`` says why).
"""

from ._runtime.threads import (
    configure_threading_layer,
    get_num_threads,
    pin_blas_to_one_thread,
    set_num_threads,
)

configure_threading_layer()
pin_blas_to_one_thread()

__all__ = ["get_num_threads", "set_num_threads"]
