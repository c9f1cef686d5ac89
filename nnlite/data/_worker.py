"""What runs inside a DataLoader worker process, and how a batch is packed for the way back.

Tasks and results travel on the worker's own channel (``nnlite._runtime.worker_channel``). A
batch leaves the worker as plain numpy arrays (every Tensor replaced by an ``_ArrayBox``), so the
channel sends the array data out of band, straight from memory into the buffers of the arrays the
parent receives; the parent wraps them back into Tensors. A batch that cannot be pickled becomes an
error sent to the parent in its place.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._runtime.errors import ExceptionWrapper
from .._runtime.nested import map_leaves
from .._runtime.seeding import seed_process
from .._runtime.threads import limit_threads
from .._runtime.worker_channel import ChannelClosed
from . import _core

if TYPE_CHECKING:
    from .._runtime.worker_channel import WorkerEnd
    from .._typing import Array
    from ..autograd.tensor import Tensor


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: ``id``, ``num_workers``, ``seed``,
    ``dataset``."""

    __slots__ = ("id", "num_workers", "seed", "dataset")

    def __init__(self, id: int, num_workers: int, seed: int, dataset: Any) -> None:
        self.id = id
        self.num_workers = num_workers
        self.seed = seed
        self.dataset = dataset

    def __repr__(self) -> str:
        return (
            f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
            f"dataset={type(self.dataset).__name__})"
        )


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Inside a DataLoader worker process, its ``WorkerInfo``; in the main process, ``None``.

    Returns:
        WorkerInfo or None: ``id``, ``num_workers``, ``seed`` and ``dataset`` of this worker.

    Examples:
        >>> from nnlite.data import get_worker_info
        >>> get_worker_info() is None  # the main process
        True
    """
    return _worker_info


class IterationEnd:
    """A worker's answer to a task once its copy of an ``IterableDataset`` is exhausted."""

    __slots__ = ()


class _ArrayBox:
    """A Tensor's array on its way from a worker to the parent."""

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __reduce__(self) -> tuple[type[_ArrayBox], tuple[Array]]:
        return (_ArrayBox, (self.array,))


def pack(data: Any) -> Any:  # a batch: any structure of tensors, arrays and values
    """Replace Tensors by ``_ArrayBox``es, recursively through lists, tuples and dicts."""
    return map_leaves(data, _core.is_tensor, _box)


def _box(tensor: Tensor) -> _ArrayBox:
    return _ArrayBox(_core.array_of(tensor))


def unpack(data: Any) -> Any:
    """Inverse of ``pack``: ``_ArrayBox``es become Tensors again."""
    return map_leaves(data, _is_box, _unbox)


def _is_box(x: object) -> bool:
    return type(x) is _ArrayBox


def _unbox(box: _ArrayBox) -> Tensor:
    return _core.from_numpy(box.array)


def worker_loop(
    dataset: Any,
    fetch: Any,
    channel: WorkerEnd,
    done_event: Any,
    current_tag: Any,
    seed: int,
    worker_id: int,
    num_workers: int,
    worker_init_fn: Callable[[int], None] | None,
) -> None:
    """Main function of a worker process.

    Takes ``(tag, task_id, indices)`` tasks from its channel until the parent closes it, the
    ``done_event`` is set or the parent process is gone; answers each task whose tag is still
    current with ``(tag, task_id, batch or ExceptionWrapper or IterationEnd)``, in task order. A
    new tag starts a new epoch (an ``IterableDataset``'s iterator restarts).
    """
    global _worker_info
    # The parent handles Ctrl-C and shuts the workers down; a SIGTERM sent to the worker itself
    # ends it (a forked worker would otherwise inherit the parent's stop-request handler).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    channel.open(should_stop=done_event.is_set)
    limit_threads(1)
    seed_process(seed)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, dataset)
    where = f"DataLoader worker process {worker_id} (pid {os.getpid()})"
    init_error = None
    if worker_init_fn is not None:
        try:
            worker_init_fn(worker_id)
        except Exception:
            init_error = ExceptionWrapper.from_current(where + " in worker_init_fn")
    payload: Any
    epoch = None  # the tag of the epoch the fetcher was last started for
    try:
        while True:
            tag, task_id, indices = channel.receive()
            if done_event.is_set():
                break
            if tag != current_tag.value:  # left over from an epoch the parent abandoned
                continue
            if init_error is not None:
                payload = init_error
            else:
                try:
                    if tag != epoch:
                        epoch = tag
                        fetch.begin_epoch(dataset)  # an IterableDataset starts its iterator again
                    payload = pack(fetch(dataset, indices))
                except StopIteration:
                    payload = IterationEnd()
                except Exception:
                    payload = ExceptionWrapper.from_current(where)
            try:
                channel.send((tag, task_id, payload))
            except ChannelClosed:
                raise
            except Exception:  # the batch cannot be pickled: nothing of it was sent
                error = ExceptionWrapper.from_current(where + " while sending a batch")
                channel.send((tag, task_id, error))
            del payload
    except (KeyboardInterrupt, ChannelClosed):
        pass
    finally:
        _worker_info = None
        channel.close()
