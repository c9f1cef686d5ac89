"""What runs inside a DataLoader worker process, and the messages it exchanges with the parent.

Each worker has two pipes of its own: tasks come in on one, results go back on the other (no
queue feeder threads, no lock shared between workers, and a worker's death shows as end of file
on its own pipe only). A batch leaves the worker as plain numpy arrays (every Tensor replaced by an
``_ArrayBox``) pickled with protocol 5, the array data sent out of band straight from memory and
read by the parent directly into the buffers the new arrays use; the parent wraps them back into
Tensors. The worker pickles each message before writing any of it, so a batch that cannot be
pickled becomes an error sent to the parent, never a half-written message.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._runtime.errors import ExceptionWrapper
from .._runtime.nested import map_leaves
from .._runtime.seeding import seed_process
from .._runtime.threads import limit_threads
from .._runtime.watchdog import ParentWatchdog
from . import _core

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from .._typing import Array
    from ..autograd.tensor import Tensor

#: a message on a result pipe: ``(tag, task id, payload)``
_Message = tuple[int, int, Any]

# How often a waiting worker checks that its parent is still alive.
WATCHDOG_INTERVAL = 1.0


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


class _Abort(Exception):
    """The parent is gone or shutting down while this worker waits to send."""


def _write_all(
    fd: int,
    data: bytes | bytearray | memoryview | pickle.PickleBuffer,
    done_event: Any,
    watchdog: ParentWatchdog,
) -> None:
    # ``done_event``: the DataLoader's multiprocessing Event
    view = memoryview(data).cast("B")
    poller: select.poll | None = None
    while view.nbytes:
        try:
            n = os.write(fd, view)
        except BlockingIOError:
            n = 0
        except (BrokenPipeError, OSError):
            raise _Abort from None
        if n:
            view = view[n:]
            continue
        if poller is None:
            poller = select.poll()
            poller.register(fd, select.POLLOUT)
        if not poller.poll(WATCHDOG_INTERVAL * 1000) and (
            done_event.is_set() or not watchdog.parent_alive()
        ):
            raise _Abort


def encode(message: _Message) -> tuple[bytes, list[memoryview]]:
    """``message`` as (frame header, out-of-band buffers): pickle protocol 5 keeps array data out
    of the pickle, so it goes to the pipe straight from the arrays' memory."""
    buffers: list[pickle.PickleBuffer] = []
    header = pickle.dumps(message, protocol=5, buffer_callback=buffers.append)
    raws = [b.raw() for b in buffers]
    meta = struct.pack(f"<I{len(raws)}Q", len(raws), *(r.nbytes for r in raws)) + header
    return struct.pack("<Q", len(meta)) + meta, raws


def _read_exact(fd: int, size: int) -> bytearray:
    out = bytearray(size)
    view = memoryview(out)
    pos = 0
    while pos < size:
        n = os.readv(fd, [view[pos:]])
        if n == 0:
            raise EOFError("the worker closed its pipe in the middle of a message")
        pos += n
    return out


def receive(fd: int) -> Any:  # the message ``encode`` wrote
    """Read one message written by ``encode``; array data lands directly in writable buffers."""
    (meta_len,) = struct.unpack("<Q", _read_exact(fd, 8))
    meta = _read_exact(fd, meta_len)
    (count,) = struct.unpack_from("<I", meta)
    sizes = struct.unpack_from(f"<{count}Q", meta, 4)
    header = memoryview(meta)[4 + 8 * count :]
    buffers = [_read_exact(fd, size) for size in sizes]
    return pickle.loads(header, buffers=buffers)


def encode_task(task: tuple[int, int, Any]) -> bytes:  # (tag, task id, indices)
    """A task as a length-prefixed frame for the task pipe."""
    frame = pickle.dumps(task, protocol=pickle.HIGHEST_PROTOCOL)
    return struct.pack("<I", len(frame)) + frame


class _TaskReader:
    """Reads task frames from the non-blocking task pipe, waking up every ``WATCHDOG_INTERVAL``
    to notice a shutdown or a dead parent."""

    def __init__(self, fd: int, done_event: Any, watchdog: ParentWatchdog) -> None:
        self.fd = fd
        self.done_event = done_event
        self.watchdog = watchdog
        self.buf = bytearray()
        self.poller = select.poll()
        self.poller.register(fd, select.POLLIN)

    def next(self) -> Any:  # a (tag, task id, indices) task, or None
        """The next task, or ``None`` when the worker should stop."""
        buf = self.buf
        while True:
            if len(buf) >= 4:
                (n,) = struct.unpack_from("<I", buf)
                if len(buf) >= 4 + n:
                    task = pickle.loads(memoryview(buf)[4 : 4 + n])
                    del buf[: 4 + n]
                    return task
            if not self.poller.poll(WATCHDOG_INTERVAL * 1000):
                if self.done_event.is_set() or not self.watchdog.parent_alive():
                    return None
                continue
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                continue
            except OSError:
                return None
            if not chunk:  # the parent closed the pipe
                return None
            buf += chunk


def worker_loop(
    dataset: Any,
    fetch: Any,
    task_conn: Connection,
    result_conn: Connection,
    done_event: Any,
    current_tag: Any,
    seed: int,
    worker_id: int,
    num_workers: int,
    worker_init_fn: Callable[[int], None] | None,
    parent_pid: int,
    close_conns: list[Connection],
) -> None:
    """Main function of a worker process.

    Takes ``(tag, task_id, indices)`` tasks from its task pipe until the pipe is closed, the
    ``done_event`` is set or the parent process is gone; answers each task whose tag is still
    current with ``(tag, task_id, batch or ExceptionWrapper or IterationEnd)`` on its result
    pipe, in task order. A new tag starts a new epoch (an ``IterableDataset``'s iterator
    restarts). Both pipes are used without blocking for long, so that the worker always notices a
    shutdown.
    """
    global _worker_info
    # The parent handles Ctrl-C and shuts the workers down; a SIGTERM sent to the worker itself
    # ends it (a forked worker would otherwise inherit the parent's stop-request handler).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for conn in close_conns:  # inherited copies of the parent's pipe ends (fork)
        conn.close()
    fd = result_conn.fileno()
    os.set_blocking(fd, False)
    os.set_blocking(task_conn.fileno(), False)
    watchdog = ParentWatchdog(parent_pid)
    tasks = _TaskReader(task_conn.fileno(), done_event, watchdog)
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
            task = tasks.next()
            if task is None or done_event.is_set():
                break
            tag, task_id, indices = task
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
                frame, buffers = encode((tag, task_id, payload))
            except Exception:
                frame, buffers = encode(
                    (tag, task_id, ExceptionWrapper.from_current(where + " while sending a batch"))
                )
            del payload
            _write_all(fd, frame, done_event, watchdog)
            for buf in buffers:
                _write_all(fd, buf, done_event, watchdog)
            del frame, buffers
    except (KeyboardInterrupt, _Abort):
        pass
    finally:
        _worker_info = None
        result_conn.close()
        task_conn.close()
