"""How tensors are pickled by multiprocessing: shared ones as a handle to the same memory.

Only multiprocessing's own pickler (process arguments under "spawn"/"forkserver", queues, pipes)
uses these reducers; ``pickle.dumps`` and ``copy.deepcopy`` still copy the data.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable
from multiprocessing.reduction import DupFd, ForkingPickler
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .._runtime import shared_memory

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor


class _FdHandle(Protocol):
    """What ``DupFd`` gives: the descriptor, duplicated into the receiving process."""

    def detach(self) -> int: ...


# how a tensor is rebuilt from its pickled parts (the Tensor or Parameter class's own rebuilder)
_Rebuild = Callable[..., "Tensor"]


def _reduce_tensor(tensor: Tensor) -> tuple[Callable[..., Tensor], tuple[object, ...]]:
    rebuild: _Rebuild
    args: tuple[object, ...]
    rebuild, args = tensor.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    data, rest = args[0], args[1:]
    if not (isinstance(data, np.ndarray) and shared_memory.is_shared(data)):
        return rebuild, args
    fd, nbytes, offset, shape, strides, dtype = shared_memory.describe(data)
    return _rebuild_shared, (rebuild, DupFd(fd), nbytes, offset, shape, strides, dtype, rest)


def _rebuild_shared(
    rebuild: _Rebuild,
    handle: _FdHandle,
    nbytes: int,
    offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: str,
    rest: tuple[object, ...],
) -> Tensor:
    data = shared_memory.rebuild(handle.detach(), nbytes, offset, shape, strides, dtype)
    return rebuild(data, *rest)


def _tensor_classes() -> list[type[Tensor]]:
    from ..autograd.tensor import Tensor
    from ..nn import parameter  # noqa: F401  (defines Parameter and Buffer)

    found: list[type[Tensor]] = []
    todo: list[type[Tensor]] = [Tensor]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def init_reductions() -> None:
    """Register the tensor reducers with multiprocessing's pickler (Tensor and its subclasses)."""
    for cls in _tensor_classes():
        ForkingPickler.register(cls, _reduce_tensor)
