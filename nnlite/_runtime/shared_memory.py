"""Arrays in memory that child processes share: ``Tensor.share_memory_``, the Hogwild pattern and
DataParallel's segments (``nn/parallel/_shared.py``).

A shared array lives in an anonymous memory file (``memfd_create``; an unlinked temporary file
where that is missing) mapped shared. A forked child inherits the mapping; a spawned child gets
the file descriptor when multiprocessing pickles the tensor (``nnlite.multiprocessing``), and maps
the same memory. The file has no name, so nothing is ever left in ``/dev/shm``, however the
processes end: the memory returns to the system when the last process unmaps it (PyTorch's
"file_descriptor" strategy).
"""

from __future__ import annotations

import mmap
import os
import tempfile
import weakref
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from typing import Any, TypeAlias

    from numpy.typing import NDArray

    Array: TypeAlias = NDArray[Any]  # of any dtype


class SharedStorage(mmap.mmap):
    """A shared mapping of an anonymous memory file of ``nbytes`` bytes.

    ``fd`` stays open while the storage lives, so that it can be handed to child processes.
    """

    fd: int
    nbytes: int
    address: int  # of the first byte

    @classmethod
    def new(cls, nbytes: int) -> SharedStorage:
        """A zero-filled storage of ``nbytes`` bytes."""
        nbytes = max(int(nbytes), 1)  # mmap refuses an empty mapping
        if hasattr(os, "memfd_create"):
            fd = os.memfd_create("nnlite_shared", os.MFD_CLOEXEC)
        else:
            with tempfile.TemporaryFile() as f:
                fd = os.dup(f.fileno())
        try:
            os.ftruncate(fd, nbytes)
        except BaseException:
            os.close(fd)
            raise
        return cls.from_fd(fd, nbytes)

    @classmethod
    def from_fd(cls, fd: int, nbytes: int) -> SharedStorage:
        """Map the memory file ``fd`` (the storage takes ownership of the descriptor)."""
        storage = cls(fd, nbytes, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        storage.fd = fd
        storage.nbytes = nbytes
        storage.address = np.frombuffer(storage, dtype=np.uint8, count=1).ctypes.data
        weakref.finalize(storage, os.close, fd)
        return storage


def storage_of(array: object) -> SharedStorage | None:
    """The ``SharedStorage`` an array's memory lies in, or ``None``."""
    base: object = array
    while isinstance(base, np.ndarray):
        base = base.base
    if isinstance(base, memoryview):
        base = base.obj
    return base if isinstance(base, SharedStorage) else None


def is_shared(array: object) -> bool:
    """Whether ``array`` lies in shared memory (made by ``to_shared`` or received from a process)."""
    return storage_of(array) is not None


def to_shared(array: Array) -> Array:
    """A copy of ``array`` in a new shared storage (C-contiguous, same shape and dtype).

    Examples:
        >>> shared = to_shared(np.zeros(3, np.float32))
        >>> is_shared(shared)
        True
    """
    storage = SharedStorage.new(array.nbytes)
    shared: Array = np.ndarray(array.shape, dtype=array.dtype, buffer=storage)
    np.copyto(shared, array)
    return shared


def describe(array: Array) -> tuple[int, int, int, tuple[int, ...], tuple[int, ...], str]:
    """``(fd, nbytes, offset, shape, strides, dtype)`` for a shared array: what another process
    needs, with the descriptor, to map the same memory (``rebuild``)."""
    storage = storage_of(array)
    if storage is None:
        raise ValueError("describe: the array does not lie in shared memory")
    offset = array.ctypes.data - storage.address
    return storage.fd, storage.nbytes, offset, array.shape, array.strides, array.dtype.str


def rebuild(
    fd: int,
    nbytes: int,
    offset: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...],
    dtype: str,
) -> Array:
    """The array ``describe`` described, mapped from the descriptor ``fd`` (this process's own copy)."""
    storage = SharedStorage.from_fd(fd, nbytes)
    array: Array = np.ndarray(
        shape, dtype=np.dtype(dtype), buffer=storage, offset=offset, strides=strides
    )
    return array
