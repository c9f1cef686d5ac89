"""``nnlite.multiprocessing``: Python's ``multiprocessing`` with tensors that can live in shared
memory, as ``torch.multiprocessing``.

Everything ``multiprocessing`` offers is here (``Process``, ``Queue``, ``Pipe``, ``Pool``,
``get_context``, ``set_start_method``, ``cpu_count``, ...). A tensor whose data is in shared memory
(``Tensor.share_memory_()``, ``Module.share_memory()``) crosses to another process as a handle to
the same memory, with any start method and through queues and pipes; other tensors are copied.
``spawn(fn, args, nprocs)`` starts ``nprocs`` processes running ``fn(i, *args)`` and raises the
first one's error here.

Example (Hogwild: several processes train one model):
    >>> import nnlite.multiprocessing as mp
    >>> model = nn.Linear(4, 1).share_memory()  # parameters in shared memory
    >>> def train(model):
    ...     with nl.no_grad():
    ...         model.weight.zero_()  # stands in for optimizer steps
    >>> workers = [mp.Process(target=train, args=(model,)) for _ in range(2)]
    >>> for p in workers:
    ...     p.start()
    >>> for p in workers:
    ...     p.join()
    >>> model.weight  # the workers changed this process's parameters
    Parameter containing:
    tensor([[0., 0., 0., 0.]], requires_grad=True)
"""

import multiprocessing
from multiprocessing import *  # noqa: F401,F403  (the whole of Python's multiprocessing API)

from . import reductions
from .spawn import (
    ProcessContext,
    ProcessExitedException,
    ProcessRaisedException,
    spawn,
    start_processes,
)

__all__ = list(multiprocessing.__all__) + [
    "spawn",
    "start_processes",
    "ProcessContext",
    "ProcessRaisedException",
    "ProcessExitedException",
    "set_sharing_strategy",
    "get_sharing_strategy",
    "get_all_sharing_strategies",
]

reductions.init_reductions()

_STRATEGIES = ("file_descriptor",)


def get_all_sharing_strategies() -> set[str]:
    """The ways tensors can be shared between processes: ``{"file_descriptor"}`` (nnlite passes
    descriptors of unnamed memory files, so nothing is left behind in ``/dev/shm``).

    Returns:
        set of str: ``{"file_descriptor"}``.

    Examples:
        >>> import nnlite.multiprocessing as mp
        >>> mp.get_all_sharing_strategies()
        {'file_descriptor'}
    """
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The current sharing strategy (always ``"file_descriptor"``).

    Returns:
        str: ``"file_descriptor"``.

    Examples:
        >>> import nnlite.multiprocessing as mp
        >>> mp.get_sharing_strategy()
        'file_descriptor'
    """
    return _STRATEGIES[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose how tensors are shared; nnlite offers ``"file_descriptor"`` only.

    Args:
        new_strategy (str): the strategy's name.

    Examples:
        >>> import nnlite.multiprocessing as mp
        >>> mp.set_sharing_strategy("file_descriptor")
        >>> mp.set_sharing_strategy("file_system")
        Traceback (most recent call last):
            ...
        AssertionError: sharing strategy 'file_system' is not available in nnlite; ...
    """
    if new_strategy not in _STRATEGIES:
        raise AssertionError(
            f"sharing strategy {new_strategy!r} is not available in nnlite; "
            f"available: {sorted(_STRATEGIES)}"
        )
