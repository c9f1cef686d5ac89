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

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from multiprocessing.reduction import DupFd
from typing import TYPE_CHECKING, Protocol, TypeAlias

import numpy as np

from ..._runtime.shared_memory import SharedStorage

if TYPE_CHECKING:
    import numpy.typing as npt

    from ..._typing import Array

ALIGN = 64
#: where an array lies in a segment: ``(offset, shape, dtype string)``
Descriptor: TypeAlias = "tuple[int, tuple[int, ...], str]"


class _FdHandle(Protocol):
    """A file descriptor as multiprocessing sends it (``DupFd``): ``detach()`` gives it here."""

    def detach(self) -> int: ...


def _aligned(n: int) -> int:
    return (n + ALIGN - 1) // ALIGN * ALIGN


class Segment:
    """One shared-memory segment of at least ``nbytes`` bytes (``size``).

    Pickled by multiprocessing (process arguments, pipe messages), it carries its memory file's
    descriptor, and the receiving process maps the same memory.
    """

    def __init__(self, nbytes: int, storage: SharedStorage | None = None) -> None:
        self.storage: SharedStorage | None = (
            SharedStorage.new(nbytes) if storage is None else storage
        )
        self.size = self.storage.nbytes

    def _mapped(self) -> SharedStorage:
        if self.storage is None:
            raise ValueError("the shared segment was released")
        return self.storage

    def __reduce__(self) -> tuple[Callable[[_FdHandle, int], Segment], tuple[_FdHandle, int]]:
        return _attach, (DupFd(self._mapped().fd), self.size)

    def view(self, offset: int, shape: Sequence[int], dtype: npt.DTypeLike) -> Array:
        """A numpy array of ``shape``/``dtype`` at byte ``offset`` inside the segment (no copy).

        The view keeps the mapping alive: ``release()`` never pulls memory from under it.
        """
        count = 1
        for n in shape:
            count *= int(n)
        return np.frombuffer(self._mapped(), dtype=dtype, count=count, offset=offset).reshape(shape)

    def release(self) -> None:
        """Drop this process's mapping; it is unmapped once no numpy view of it is alive."""
        self.storage = None


def _attach(handle: _FdHandle, nbytes: int) -> Segment:
    """The segment another process sent: its memory mapped here from the received descriptor."""
    return Segment(nbytes, SharedStorage.from_fd(handle.detach(), nbytes))


class Layout:
    """Fixed slots in a segment: ``slots[i] = (offset, shape, dtype)``; ``nbytes`` in total."""

    def __init__(
        self, entries: Iterable[tuple[Sequence[int], npt.DTypeLike]], start: int = 0
    ) -> None:
        self.slots: list[Descriptor] = []
        offset = _aligned(start)
        for given_shape, given_dtype in entries:
            dtype = np.dtype(given_dtype)
            shape = tuple(int(s) for s in given_shape)
            self.slots.append((offset, shape, dtype.str))
            offset = _aligned(offset + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
        self.nbytes = max(offset, ALIGN)

    def views(self, segment: Segment) -> list[Array]:
        return [segment.view(off, shape, dtype) for off, shape, dtype in self.slots]


def pack_size(arrays: Iterable[Array | None]) -> int:
    """Bytes an arena needs for ``arrays`` (``None`` entries take no space)."""
    return sum(_aligned(a.nbytes) for a in arrays if a is not None)


def pack(
    segment: Segment, arrays: Sequence[Array | None], offset: int = 0
) -> list[Descriptor | None]:
    """Copy ``arrays`` into ``segment`` one after the other, from byte ``offset`` on.

    Returns one descriptor per array: ``(offset, shape, dtype)``, or ``None`` for a ``None``
    entry. Raises ``ValueError`` when the arrays do not fit (check ``pack_size`` first).
    """
    if offset + pack_size(arrays) > segment.size:
        raise ValueError("arrays do not fit in the shared segment")
    out: list[Descriptor | None] = []
    for a in arrays:
        if a is None:
            out.append(None)
            continue
        view = segment.view(offset, a.shape, a.dtype)
        np.copyto(view, a, casting="no")
        out.append((offset, a.shape, a.dtype.str))
        offset += _aligned(a.nbytes)
    return out


def unpack(
    segment: Segment, descriptors: Iterable[Descriptor | None], copy: bool = True
) -> list[Array | None]:
    """Arrays described by ``pack``'s descriptors (copies unless ``copy=False``)."""
    out: list[Array | None] = []
    for d in descriptors:
        if d is None:
            out.append(None)
            continue
        view = segment.view(*d)
        out.append(view.copy() if copy else view)
    return out


def grow(needed: int) -> int:
    """Capacity for a segment that must hold ``needed`` bytes: headroom for slightly larger
    batches, rounded up to 64 KiB."""
    n = max(int(needed * 1.25), 1 << 16)
    return (n + (1 << 16) - 1) >> 16 << 16
