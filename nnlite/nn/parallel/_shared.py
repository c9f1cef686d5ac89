"""Shared-memory blocks for DataParallel, with numpy views laid out in them.

A segment is a block of ``nnlite._runtime.shared_memory`` (the allocator of
``Tensor.share_memory_``): an anonymous memory file mapped shared, with no name. The parent
creates every segment and hands it to a worker inside a message; multiprocessing sends its file
descriptor along (``DupFd``), and the worker maps the same memory. Having no name, a segment
cannot be left behind in ``/dev/shm``: its memory returns to the system when the last process
that maps it unmaps it or dies, however the processes end.

Three kinds of content live in segments:

* a *layout*: fixed slots (parameters, buffers, gradients) at 64-byte aligned offsets;
* an *arena*: a per-step list of arrays (input chunks, outputs, output gradients) packed one
  after the other and described to the other side by ``(offset, shape, dtype)`` triples;
* a small flag array (which gradients exist).
"""

from multiprocessing.reduction import DupFd

import numpy as np

from ..._runtime.shared_memory import SharedStorage

ALIGN = 64


def _aligned(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Segment:
    """One shared-memory segment of at least ``nbytes`` bytes (``size``).

    Pickled by multiprocessing (process arguments, pipe messages), it carries its memory file's
    descriptor, and the receiving process maps the same memory.
    """

    def __init__(self, nbytes, storage=None):
        self.storage = SharedStorage.new(nbytes) if storage is None else storage
        self.size = self.storage.nbytes

    def __reduce__(self):
        return _attach, (DupFd(self.storage.fd), self.size)

    def view(self, offset, shape, dtype):
        """A numpy array of ``shape``/``dtype`` at byte ``offset`` inside the segment (no copy).

        The view keeps the mapping alive: ``release()`` never pulls memory from under it.
        """
        count = 1
        for n in shape:
            count *= int(n)
        return np.frombuffer(self.storage, dtype=dtype, count=count, offset=offset).reshape(shape)

    def release(self):
        """Drop this process's mapping; it is unmapped once no numpy view of it is alive."""
        self.storage = None


def _attach(handle, nbytes):
    """The segment another process sent: its memory mapped here from the received descriptor."""
    return Segment(nbytes, SharedStorage.from_fd(handle.detach(), nbytes))


class Layout:
    """Fixed slots in a segment: ``slots[i] = (offset, shape, dtype)``; ``nbytes`` in total."""

    def __init__(self, entries, start=0):
        self.slots = []
        offset = _aligned(start)
        for shape, dtype in entries:
            dtype = np.dtype(dtype)
            shape = tuple(int(s) for s in shape)
            self.slots.append((offset, shape, dtype.str))
            offset = _aligned(offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
        self.nbytes = max(offset, ALIGN)

    def views(self, segment):
        return [segment.view(off, shape, dtype) for off, shape, dtype in self.slots]


def pack_size(arrays):
    """Bytes an arena needs for ``arrays`` (``None`` entries take no space)."""
    return sum(_aligned(a.nbytes) for a in arrays if a is not None)


def pack(segment, arrays, offset=0):
    """Copy ``arrays`` into ``segment`` one after the other, from byte ``offset`` on.

    Returns one descriptor per array: ``(offset, shape, dtype)``, or ``None`` for a ``None``
    entry. Raises ``ValueError`` when the arrays do not fit (check ``pack_size`` first).
    """
    if offset + pack_size(arrays) > segment.size:
        raise ValueError("arrays do not fit in the shared segment")
    out = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        view = segment.view(offset, a.shape, a.dtype)
        np.copyto(view, a, casting="no")
        out.append((offset, a.shape, a.dtype.str))
        offset += _aligned(a.nbytes)
    return out


def unpack(segment, descriptors, copy=True):
    """Arrays described by ``pack``'s descriptors (copies unless ``copy=False``)."""
    out = []
    for d in descriptors:
        if d is None:
            out.append(None)
            continue
        view = segment.view(*d)
        out.append(view.copy() if copy else view)
    return out


def grow(needed):
    """Capacity for a segment that must hold ``needed`` bytes: headroom for slightly larger
    batches, rounded up to 64 KiB."""
    n = max(int(needed * 1.25), 1 << 16)
    return (n + (1 << 16) - 1) >> 16 << 16
