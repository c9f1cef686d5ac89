"""Shared-memory blocks for DataParallel: named POSIX segments with numpy views laid out in them.

The parent process creates every segment and is the only one that unlinks it; worker processes
attach by name. The parent unlinks a segment as soon as every worker that needs it has attached
(the mappings stay valid), so a name lives in ``/dev/shm`` only for the moment between creation
and attachment, and nothing is left behind when all the processes are killed at once (the
resource tracker, which would otherwise unlink leftovers, may die with them). A segment's name
starts with ``nldp_`` followed by the creating process id, so a leftover is easy to spot.

Three kinds of content live in segments:

* a *layout*: fixed slots (parameters, buffers, gradients) at 64-byte aligned offsets;
* an *arena*: a per-step list of arrays (input chunks, outputs, output gradients) packed one
  after the other and described to the other side by ``(offset, shape, dtype)`` triples;
* a small flag array (which gradients exist).
"""

import itertools
import os
import secrets
from multiprocessing import shared_memory

import numpy as np

ALIGN = 64
_counter = itertools.count()


def _aligned(n):
    return (n + ALIGN - 1) // ALIGN * ALIGN


class _SharedMemory(shared_memory.SharedMemory):
    """``SharedMemory`` that never unmaps memory still in use.

    Views are made with ``np.frombuffer``, which holds a buffer export, so ``close()`` raises
    ``BufferError`` instead of unmapping while a view is alive; the mapping is then released when
    the last view is collected. The file descriptor is closed at once (the mapping keeps its
    own), so nothing leaks when ``close()`` cannot run.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        fd = getattr(self, "_fd", -1)
        if fd >= 0:
            os.close(fd)
            self._fd = -1

    def __del__(self):
        try:
            self.close()
        except (OSError, BufferError):
            pass


class Segment:
    """One named shared-memory segment.

    ``Segment(nbytes)`` creates a new segment (owned by this process); ``Segment.attach(name)``
    maps an existing one.
    """

    def __init__(self, nbytes=None, name=None):
        if name is None:
            name = f"nldp_{os.getpid()}_{next(_counter)}_{secrets.token_hex(3)}"
            self.shm = _SharedMemory(name=name, create=True, size=max(int(nbytes), 1))
            self.owner = os.getpid()
        else:
            self.shm = _SharedMemory(name=name, create=False)
            self.owner = None
        self.linked = self.owner is not None  # this process still has to unlink the name
        self.name = self.shm.name
        self.size = self.shm.size

    @classmethod
    def attach(cls, name):
        return cls(name=name)

    def view(self, offset, shape, dtype):
        """A numpy array of ``shape``/``dtype`` at byte ``offset`` inside the segment (no copy).

        The view keeps the mapping alive: ``release()`` never pulls memory from under it.
        """
        count = 1
        for n in shape:
            count *= int(n)
        return np.frombuffer(self.shm.buf, dtype=dtype, count=count, offset=offset).reshape(shape)

    def unlink(self):
        """Remove the segment's name from ``/dev/shm`` (creating process only; idempotent).

        Mappings made before stay valid; the memory is returned to the system when the last
        mapping is gone.
        """
        if self.linked and self.owner == os.getpid() and self.shm is not None:
            self.linked = False
            try:
                self.shm.unlink()
            except FileNotFoundError:
                pass

    def release(self):
        """Unmap (and, in the creating process, unlink) the segment.

        If numpy views are still alive somewhere the mapping stays valid until they are collected.
        """
        if self.shm is None:
            return
        self.unlink()
        shm, self.shm = self.shm, None
        try:
            shm.close()
        except BufferError:
            pass  # views are still alive: the memory is unmapped when the last one is collected


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
