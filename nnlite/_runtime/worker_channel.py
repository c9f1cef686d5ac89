"""The one channel between a parent process and each of its worker processes (the DataLoader's
workers, DataParallel's replicas).

Shape: each worker has a pipe pair of its own, tasks in on one pipe, results out on the other.
No queue feeder threads, no lock shared between workers, and a worker's death shows as end of file
on its own result pipe only. Both directions carry the same frames. Bulk data that the processes
share memory for (DataParallel's segments, shared tensors) crosses as a handle, never as bytes.

What the channel guarantees, and why:

* **Whole messages.** A message is pickled completely (protocol 5, with multiprocessing's
  reducers, so shared-memory segments and shared tensors go as descriptors) before its first byte
  is written. A message that cannot be pickled raises in the sender and nothing reaches the pipe,
  so the sender can send an error in its place; a reader sees half a message only when the writer
  died in the middle of it, and that reads as end of file (``EOFError``).
* **Array data is copied once.** Arrays are pickled out of band: their bytes go to the pipe
  straight from the arrays' memory and are read straight into the buffers the received arrays use.
  This is what makes worker batches cheap (a 64-image batch is 200 KB).
* **The parent never blocks writing.** Task bytes that do not fit in a pipe wait in the channel and
  are written by ``wait`` as the worker drains the pipe. (A parent blocked on a full task pipe while
  the worker is blocked on a full result pipe would be a deadlock.)
* **One wait for everything.** ``wait`` watches any set of workers' result pipes together with
  their process sentinels, in one ``poll``, against a deadline. A worker that dies is reported at
  once, even when a process it started keeps its pipe open; a worker that stays silent is reported
  when the deadline passes; ``KeyboardInterrupt`` reaches the caller, which shuts its workers down.
* **A worker never hangs.** The worker's reads and writes wake up every ``WATCHDOG_INTERVAL``
  seconds to check that its parent is alive and that it has not been asked to stop, so a killed or
  shut-down parent never leaves a worker behind.

* **Few system calls.** A message leaves in one ``writev`` (header and every array), and each read
  also takes up to 4 KiB beyond the piece it is for, so small messages and a batch's header and
  labels cost no read of their own.
* **A forked worker holds no other channel's ends.** It closes the copies it inherited of every
  parent end open in the parent, or a parent could never see end of file on them.

One transport serves both users: DataParallel's commands and replies are small tuples whose arrays
travel in shared segments, the DataLoader's results are whole batches, and both need the same
whole-message framing, death detection and deadlines. ``benchmarks/data_loading.py`` and
``benchmarks/data_parallel.py`` found no reason for two: on this 2-core machine the figures of the
two transports it replaced and of this one were within the machine's noise, and this one makes
fewer system calls (per batch of a transport-bound loader with 2 workers, 8.7 instead of 11.7; per
DataParallel step of a small model on 2 workers, 26.7 instead of 31.5).
(``nnlite.multiprocessing`` needs no channel: its processes run user code, and ``spawn`` only
reports a failed process's traceback, through a queue, as PyTorch's does.)
"""

from __future__ import annotations

import collections
import io
import itertools
import math
import os
import pickle
import select
import struct
import time
import weakref
from collections.abc import Callable, Sequence
from multiprocessing import Pipe
from multiprocessing.reduction import ForkingPickler
from typing import TYPE_CHECKING, Any

from .watchdog import ParentWatchdog

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

# How often a waiting worker checks that its parent is alive and that it may go on (seconds).
WATCHDOG_INTERVAL = 0.5
# Room for a few batches in the kernel's buffer of a result pipe (Linux's F_SETPIPE_SZ).
RESULT_PIPE_BYTES = 1 << 20

_PROTOCOL = 5  # out-of-band buffers
# Chunks one writev may take (POSIX guarantees at least 16; Linux takes 1024).
_IOV_MAX = os.sysconf("SC_IOV_MAX") if hasattr(os, "sysconf") else 16
# Bytes a read may take beyond the piece of a frame it is for (a task, a small header).
_SPARE = 4096
_LENGTH = struct.Struct("<Q")
_COUNT = struct.Struct("<I")


class ChannelClosed(Exception):
    """In a worker: the parent is gone, closed the channel, or asked the worker to stop."""


def encode(message: object) -> list[memoryview]:
    """``message`` as the chunks of one frame, pickled completely before anything is written.

    A frame is ``[8-byte length of the rest of the head][4-byte buffer count][8 bytes per buffer
    size][pickle]`` followed by the out-of-band buffers, each a view of an array's own memory.
    """
    buffers: list[pickle.PickleBuffer] = []
    stream = io.BytesIO()
    # multiprocessing's pickler (its reducers: segments, connections, shared tensors); the
    # buffer callback is its fourth positional argument (ForkingPickler takes no keywords)
    ForkingPickler(stream, _PROTOCOL, True, buffers.append).dump(message)
    raws = [b.raw() for b in buffers]
    pickled = stream.getbuffer()
    meta = struct.pack(f"<I{len(raws)}Q", len(raws), *(r.nbytes for r in raws))
    head = b"".join((_LENGTH.pack(len(meta) + pickled.nbytes), meta, pickled))
    return [memoryview(head), *raws]


class _Inbox:
    """Reads frames from one pipe with few system calls and no extra copy of large data.

    Each read fills the piece of the frame that is due (straight into its final buffer) and, in
    the same ``readv``, up to ``_SPARE`` bytes beyond it, which serve the next pieces: a task, or a
    batch's small header and labels, costs no read of its own.
    """

    def __init__(self, fd: int, wait: Callable[[], None]) -> None:
        self._fd = fd
        self._wait = wait  # called when a non-blocking pipe has nothing yet
        self._spare = bytearray(_SPARE)
        self._spare_view = memoryview(self._spare)
        self._start = 0  # unread bytes: self._spare[self._start:self._end]
        self._end = 0

    def read(self, size: int) -> bytearray:
        """The next ``size`` bytes; ``EOFError`` if the pipe ends first."""
        out = bytearray(size)
        view = memoryview(out)
        got = min(self._end - self._start, size)
        if got:
            view[:got] = self._spare_view[self._start : self._start + got]
            self._start += got
        while got < size:  # the spare bytes are used up
            try:
                n = os.readv(self._fd, [view[got:], self._spare_view])
            except BlockingIOError:
                self._wait()
                continue
            if n == 0:
                raise EOFError("the other process closed its pipe")
            if n > size - got:
                self._start, self._end = 0, n - (size - got)
                got = size
            else:
                got += n
        return out

    def buffered(self) -> bool:
        """Whether bytes of the next message were already read (``poll`` cannot see them)."""
        return self._end > self._start

    def has_input(self) -> bool:
        """Whether a read would not block (spare bytes, data or end of file are there)."""
        if self.buffered():
            return True
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        return bool(poller.poll(0))

    def receive(self) -> Any:  # any message ``encode`` wrote
        """The next message."""
        (head_len,) = _LENGTH.unpack(self.read(_LENGTH.size))
        head = self.read(head_len)
        (count,) = _COUNT.unpack_from(head)
        sizes = struct.unpack_from(f"<{count}Q", head, _COUNT.size)
        pickled = memoryview(head)[_COUNT.size + 8 * count :]
        buffers = [self.read(size) for size in sizes]
        return pickle.loads(pickled, buffers=buffers)


def _write_available(fd: int, chunks: collections.deque[memoryview]) -> None:
    """Write ``chunks`` to the non-blocking ``fd``, several per system call, dropping what is
    written; ``BlockingIOError`` once the pipe is full."""
    while chunks:
        some = chunks if len(chunks) <= _IOV_MAX else list(itertools.islice(chunks, _IOV_MAX))
        n = os.writev(fd, some)
        while chunks and n >= chunks[0].nbytes:  # (empty chunks, such as an empty array's, too)
            n -= chunks.popleft().nbytes
        if n:
            chunks[0] = chunks[0][n:]


def _never_blocks() -> None:
    raise AssertionError("a blocking pipe reported that it would block")


def _grow_pipe(fd: int) -> None:
    try:
        import fcntl

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), RESULT_PIPE_BYTES)
    except (ImportError, OSError):  # not Linux, or above the system's limit: a smaller buffer
        pass


# Channels whose parent ends are open in this process: a worker forked from here closes its copies.
_open_channels: weakref.WeakSet[WorkerChannel] = weakref.WeakSet()


class WorkerEnd:
    """The worker's end of a channel. Passed to the worker process as an argument; in the worker,
    ``open()`` it first, then ``receive()`` tasks and ``send()`` results.

    Both raise ``ChannelClosed`` once the parent has closed the channel or died, or ``should_stop``
    (given to ``open``) says so.
    """

    def __init__(self, tasks: Connection, results: Connection, parent_pid: int) -> None:
        self._tasks = tasks
        self._results = results
        self._parent_pid = parent_pid
        self._should_stop: Callable[[], bool] | None = None
        self._watchdog: ParentWatchdog | None = None
        self._readable: select.poll | None = None
        self._writable: select.poll | None = None
        self._inbox: _Inbox | None = None

    def open(self, should_stop: Callable[[], bool] | None = None) -> None:
        """Start using the channel in the worker process: close the copies of parent ends that a
        fork inherited (or the parent could never see end of file on them), switch to
        non-blocking pipes and start watching the parent."""
        for channel in list(_open_channels):
            channel._close_parent_ends()
        self._should_stop = should_stop
        self._watchdog = ParentWatchdog(self._parent_pid)
        tasks, results = self._tasks.fileno(), self._results.fileno()
        os.set_blocking(tasks, False)
        os.set_blocking(results, False)
        self._readable = select.poll()
        self._readable.register(tasks, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(results, select.POLLOUT)
        self._inbox = _Inbox(tasks, self._wait_readable)

    def _stopping(self) -> bool:
        assert self._watchdog is not None, "WorkerEnd.open() first"
        if self._should_stop is not None and self._should_stop():
            return True
        return not self._watchdog.parent_alive()

    def _wait(self, poller: select.poll | None) -> None:
        assert poller is not None, "WorkerEnd.open() first"
        while not poller.poll(WATCHDOG_INTERVAL * 1000):
            if self._stopping():
                raise ChannelClosed

    def _wait_readable(self) -> None:
        self._wait(self._readable)

    def receive(self) -> Any:  # the next message the parent sent
        """The next message from the parent; waits as long as the parent lives."""
        assert self._inbox is not None, "WorkerEnd.open() first"
        try:
            return self._inbox.receive()
        except (EOFError, OSError):
            raise ChannelClosed from None

    def send(self, message: object) -> None:
        """Send ``message`` to the parent. Pickling errors are raised before anything is written,
        so the caller can send something else instead."""
        fd = self._results.fileno()
        chunks = collections.deque(encode(message))
        while chunks:
            try:
                _write_available(fd, chunks)
            except BlockingIOError:
                self._wait(self._writable)
            except OSError:  # the parent closed the result pipe
                raise ChannelClosed from None

    def close(self) -> None:
        self._tasks.close()
        self._results.close()


class WorkerChannel:
    """The parent's end of one worker's pipe pair.

    Create it, start the worker process with ``worker_end`` among its arguments, then call
    ``started(process)``. ``send`` tasks; ``wait`` for results, then ``receive`` them.
    """

    def __init__(self) -> None:
        child_tasks, tasks = Pipe(duplex=False)
        results, child_results = Pipe(duplex=False)
        _grow_pipe(child_results.fileno())
        self._tasks = tasks
        self._results = results
        self._inbox = _Inbox(results.fileno(), _never_blocks)
        self._outgoing: collections.deque[memoryview] = collections.deque()
        self._process_ended = False
        self.process: BaseProcess | None = None
        self.worker_end: WorkerEnd | None = WorkerEnd(child_tasks, child_results, os.getpid())
        _open_channels.add(self)

    def started(self, process: BaseProcess) -> None:
        """The worker runs: close this process's copies of the worker's ends, so that the worker's
        death shows here as end of file."""
        self.process = process
        if self.worker_end is not None:
            self.worker_end.close()
            self.worker_end = None
        os.set_blocking(self._tasks.fileno(), False)

    def send(self, message: object) -> None:
        """Queue ``message`` for the worker and write as much as its pipe takes now; the rest is
        written while the parent ``wait``s. Pickling errors are raised before anything is queued;
        ``OSError`` when the worker is already gone."""
        self._outgoing.extend(encode(message))
        self._flush()

    def _flush(self) -> None:
        try:
            _write_available(self._tasks.fileno(), self._outgoing)
        except BlockingIOError:
            pass
        except OSError:
            self._outgoing.clear()  # the worker is gone: nobody will read these
            raise

    def _flush_quietly(self) -> None:
        try:
            self._flush()
        except OSError:  # the worker is gone: a wait for its results reports it
            pass

    def receive(self) -> Any:  # the next message the worker sent
        """The next message from the worker, once ``wait`` has returned this channel.

        Raises ``EOFError`` (or ``OSError``) when the worker died, before or while sending; any
        other exception comes from unpickling the message.
        """
        if self._process_ended and not self._inbox.has_input():
            raise EOFError("the worker process ended without closing its pipe")
        return self._inbox.receive()

    def close(self) -> None:
        """Close the parent's ends: the worker sees end of file on its task pipe and a broken
        result pipe."""
        _open_channels.discard(self)
        self._outgoing.clear()
        self._close_parent_ends()
        if self.worker_end is not None:
            self.worker_end.close()

    def _close_parent_ends(self) -> None:
        self._tasks.close()
        self._results.close()


def wait(
    channels: Sequence[WorkerChannel],
    deadline: float | None = None,
    flushing: Sequence[WorkerChannel] = (),
) -> list[WorkerChannel]:
    """Wait until some of ``channels`` have a message to ``receive`` or their worker process
    ended, or ``deadline`` (a ``time.monotonic()`` value; ``None``: no limit) passes.

    Meanwhile the queued task bytes of ``flushing`` are written as their pipes drain. Returns the
    ready channels, in the order given; none once the deadline has passed.
    """
    early = [c for c in channels if c._inbox.buffered()]
    if early:  # (a message read along with the previous one)
        for channel in flushing:
            channel._flush_quietly()
        return early
    while True:
        poller = select.poll()
        by_fd: dict[int, WorkerChannel] = {}
        for channel in channels:
            assert channel.process is not None, "WorkerChannel.started() first"
            by_fd[channel._results.fileno()] = channel
            by_fd[channel.process.sentinel] = channel
            poller.register(channel._results.fileno(), select.POLLIN)
            poller.register(channel.process.sentinel, select.POLLIN)
        writers: dict[int, WorkerChannel] = {}
        for channel in flushing:
            if channel._outgoing:
                fd = channel._tasks.fileno()
                writers[fd] = channel
                poller.register(fd, select.POLLOUT)
        if deadline is None:
            events = poller.poll()
        else:
            events = poller.poll(max(0, math.ceil((deadline - time.monotonic()) * 1000)))
        ready: set[WorkerChannel] = set()
        for fd, _ in events:
            if fd in writers:
                writers[fd]._flush_quietly()
                continue
            channel = by_fd[fd]
            ready.add(channel)
            if channel.process is not None and fd == channel.process.sentinel:
                channel._process_ended = True
        if ready:
            return [c for c in channels if c in ready]
        if deadline is not None and time.monotonic() >= deadline:
            return []
