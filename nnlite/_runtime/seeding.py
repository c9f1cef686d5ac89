"""Seeding a worker process's random generators (nnlite's, numpy's global one and Python's)."""

import random
import sys

import numpy as np


def seed_process(seed: int, numpy_seed: int | None = None, python_seed: int | None = None) -> None:
    """Seed nnlite's generator with ``seed``, numpy's global generator with ``numpy_seed`` (taken
    modulo 2**32) and Python's ``random`` with ``python_seed``; both default to ``seed``.

    nnlite's generator is seeded only when nnlite's core is loaded in this process (a data-loader
    worker that never builds a tensor does not import it).

    Examples:
        >>> base_seed, worker_id = 1234, 2
        >>> seed_process(base_seed + worker_id)
        >>> np.random.randint(1000) == np.random.RandomState(1236).randint(1000)
        True
    """
    numpy_seed = seed if numpy_seed is None else numpy_seed
    python_seed = seed if python_seed is None else python_seed
    random.seed(python_seed)
    np.random.seed(numpy_seed % 2**32)  # noqa: NPY002  (user code draws from the global one)
    core = sys.modules.get("nnlite.autograd.random")
    if core is not None:
        core.manual_seed(seed)
