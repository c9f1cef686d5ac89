"""Atomic file writes: a temporary file in the target's folder, fsynced, renamed over the target,
then the folder fsynced. Every file nnlite replaces (checkpoints, saved tensors, metrics, reports,
ONNX models, downloads, the spawn job's status files) goes through ``replace_atomically``."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import IO, Any

__all__ = ["replace_atomically", "write_atomically", "write_file"]

_umask: int | None = None


@contextlib.contextmanager
def replace_atomically(
    path: str | os.PathLike[str], mode: int | None = None
) -> Iterator[IO[bytes]]:
    """A binary file to write ``path`` through: a temporary file in the same folder that is
    flushed, fsynced, given ``mode`` and renamed over ``path`` when the block ends (the folder is
    then fsynced too, so the rename survives a crash), and removed if the block raises, so
    ``path`` is never half written.

    Args:
        path (str): the file to write.
        mode (int, optional): its permission bits. Default: those of the file it replaces, else
            0o666 minus the umask, as ``open(path, "wb")`` would give (the temporary file itself
            is created readable by its owner only).

    Returns:
        A context manager giving the temporary binary file.

    Examples:
        >>> from nnlite.serialization import replace_atomically
        >>> with replace_atomically("weights.bin") as f:
        ...     _ = f.write(b"abc")
        >>> open("weights.bin", "rb").read()
        b'abc'
    """
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(
        dir=directory, prefix="." + os.path.basename(path) + ".", suffix=".tmp"
    )
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, new_file_mode(path) if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_directory(directory)


def write_atomically(path: str | os.PathLike[str], data: bytes | str) -> None:
    """Replace ``path`` with ``data`` (``str`` is written as UTF-8) through ``replace_atomically``.

    Args:
        path (str): the file to write.
        data (bytes or str): its new content.

    Examples:
        >>> from nnlite._runtime.atomic_file import write_atomically
        >>> write_atomically("status.json", '{"state": "done"}')
        >>> open("status.json").read()
        '{"state": "done"}'
    """
    with replace_atomically(path) as out:
        out.write(data.encode("utf-8") if isinstance(data, str) else data)


def write_file(f: Any, write: Callable[[IO[bytes]], object]) -> None:
    # ``f``: a path or a binary file object (``nnlite._typing.FileLike``)
    """Call ``write(fileobj)`` on ``f``: a binary file object as it is, or a path written
    atomically, keeping the permissions of the file it replaces (0o666 minus umask for a new one)."""
    if hasattr(f, "write"):
        write(f)
        return
    with replace_atomically(os.fspath(f)) as out:
        write(out)


def new_file_mode(path: str | os.PathLike[str]) -> int:
    """Permissions for a saved file: those of the file it replaces, else 0o666 minus umask."""
    global _umask
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        pass
    if _umask is None:
        _umask = os.umask(0o022)
        os.umask(_umask)
    return 0o666 & ~_umask


def fsync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
