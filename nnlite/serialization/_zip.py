"""Zip archives (nnlite ``.npz``, PyTorch ``.pth``) read with memory bounded by the file.

Python's ``zipfile`` trusts the central directory: a damaged one surfaces as half a dozen
exception types, and a member's declared size decides how much is inflated. Here every member
is checked against the file before a byte of it is read (known compression, not encrypted,
inside the file, stored members exactly their stored size, compressed ones inflating to at most
``MAX_INFLATION`` times the file, no two members with one name or sharing bytes on disk), and any
failure becomes a ``CheckpointError`` naming the file and the member.

Members that overlap would let a small file hold many large members built from the same bytes;
a name given twice makes readers disagree on which copy counts (PyTorch reads the first, Python's
``zipfile`` the last), so a scanner and the loader could see different files: both are refused.
"""

from __future__ import annotations

import os
import struct
import zipfile
import zlib
from typing import IO, NoReturn

from ._errors import CheckpointError

__all__ = ["ZipReader", "ZIP_MAGIC", "MAX_INFLATION"]

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
MAX_INFLATION = 16  # a member may inflate to at most this many times the file's size
_MIN_INFLATION_BUDGET = 1 << 20
_CHUNK = 1 << 20
_LOCAL_HEADER = struct.Struct("<4s5H3L2H")

# what zipfile, zlib and struct raise on damaged input (zipfile raises RuntimeError for an
# encrypted member, NotImplementedError for an unknown compression, UnicodeDecodeError for a
# damaged name)
DAMAGE = (
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    NotImplementedError,
    RuntimeError,
    ValueError,
    struct.error,
    EOFError,
    OSError,
    zlib.error,
    KeyError,
    IndexError,
    TypeError,
    OverflowError,
)


class ZipReader:
    """The members of the zip archive in the open binary file ``fh``, checked up front.

    ``describe(problem)`` builds the error for a problem found later (the caller knows by then
    which kind of checkpoint the archive holds); ``self.kind`` names it in messages.
    """

    def __init__(self, fh: IO[bytes], name: str) -> None:
        self.fh = fh
        self.name = name
        self.kind = "checkpoint"
        try:
            start = fh.tell()
            fh.seek(0, os.SEEK_END)
            self.file_size = fh.tell() - start
            fh.seek(start)
            self.zf = zipfile.ZipFile(fh)
            infos = self.zf.infolist()
        except DAMAGE as e:
            raise CheckpointError(
                f"damaged checkpoint: {name} (truncated or damaged zip archive: {e})"
            ) from None
        self.infos: dict[str, zipfile.ZipInfo] = {}
        budget = max(self.file_size * MAX_INFLATION, _MIN_INFLATION_BUDGET)
        inflated = 0
        for info in infos:
            if info.filename in self.infos:
                self.fail(
                    f"member {info.filename!r} appears twice; readers disagree on which copy "
                    "counts, so the file is refused",
                    prefix="refusing to load",
                )
            self._check_member(info, budget)
            if info.compress_type != zipfile.ZIP_STORED:
                inflated += info.file_size
            if inflated > budget:
                self.fail(
                    f"its compressed members would inflate to more than {budget} bytes, "
                    f"{MAX_INFLATION} times the file's {self.file_size} bytes",
                    prefix="refusing to load",
                )
            self.infos[info.filename] = info
        self._check_layout(infos)

    def _check_layout(self, infos: list[zipfile.ZipInfo]) -> None:
        """Each member's local header and data lie before the central directory, apart from
        every other member's."""
        end_of_data = getattr(self.zf, "start_dir", self.file_size)
        previous: zipfile.ZipInfo | None = None
        previous_end = 0
        for info in sorted(infos, key=lambda i: i.header_offset):
            end = self._data_start(info) + info.compress_size
            if previous is not None and info.header_offset < previous_end:
                self.fail(
                    f"members {previous.filename!r} and {info.filename!r} overlap in the file",
                    prefix="refusing to load",
                )
            if end > end_of_data:
                self.fail(f"member {info.filename!r} runs into the central directory")
            previous, previous_end = info, end

    def _check_member(self, info: zipfile.ZipInfo, budget: int) -> None:
        where = f"member {info.filename!r}"
        if info.flag_bits & 0x1:
            self.fail(f"{where} is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            self.fail(f"{where} uses unsupported compression method {info.compress_type}")
        if info.header_offset < 0 or info.header_offset + info.compress_size > self.file_size:
            self.fail(f"{where} lies beyond the end of the {self.file_size}-byte file")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            self.fail(
                f"{where}: stored with {info.compress_size} bytes but declares {info.file_size}"
            )
        if info.file_size > budget:
            self.fail(
                f"{where} would inflate to {info.file_size} bytes from a "
                f"{self.file_size}-byte file (more than {MAX_INFLATION} times its size)",
                prefix="refusing to load",
            )

    def fail(self, problem: str, prefix: str | None = None) -> NoReturn:
        raise CheckpointError(f"{prefix or 'corrupt ' + self.kind}: {self.name} ({problem})")

    def names(self) -> list[str]:
        return list(self.infos)

    def __contains__(self, member: object) -> bool:
        return member in self.infos

    def size(self, member: str) -> int:
        return self.infos[member].file_size

    def read(self, member: str, what: str, limit: int | None = None) -> bytearray:
        """The bytes of ``member`` as a writable bytearray (``what`` names it in errors);
        refused before reading when its size exceeds ``limit``."""
        info = self.infos.get(member)
        if info is None:
            self.fail(f"{what} is missing")
        n = info.file_size
        if limit is not None and n > limit:
            self.fail(
                f"{what} is {n} bytes, more than the {limit}-byte limit", prefix="refusing to load"
            )
        buf = bytearray(n)
        view = memoryview(buf)
        pos = 0
        try:
            with self.zf.open(info) as f:
                while pos < n:
                    chunk = f.read(min(_CHUNK, n - pos))
                    if not chunk:
                        break
                    view[pos : pos + len(chunk)] = chunk
                    pos += len(chunk)
                extra = f.read(1)  # reaching the end checks the CRC
        except DAMAGE as e:
            self.fail(f"{what}: {type(e).__name__}: {e}")
        if pos != n or extra:
            self.fail(f"{what}: {pos} bytes of data where the archive declares {n}")
        return buf

    def data_offset(self, member: str) -> int | None:
        """Where the bytes of the stored ``member`` start in the file (for memory mapping)."""
        info = self.infos[member]
        if info.compress_type != zipfile.ZIP_STORED:
            return None
        return self._data_start(info)

    def _data_start(self, info: zipfile.ZipInfo) -> int:
        """Where the data of ``info`` starts: after its local header, name and extra field."""
        member = info.filename
        try:
            self.fh.seek(info.header_offset)
            head = self.fh.read(_LOCAL_HEADER.size)
            magic, *_, name_len, extra_len = _LOCAL_HEADER.unpack(head)
        except DAMAGE as e:
            self.fail(f"member {member!r}: {e}")
        if magic != b"PK\x03\x04":
            self.fail(f"member {member!r}: bad local header")
        offset: int = info.header_offset + _LOCAL_HEADER.size + name_len + extra_len
        if offset + info.compress_size > self.file_size:
            self.fail(f"member {member!r} lies beyond the end of the file")
        return offset

    def close(self) -> None:
        self.zf.close()
