"""Writing PyTorch's zip checkpoint format, so that ``torch.load(weights_only=True)`` reads
nnlite state dicts and training checkpoints.

The pickle is written opcode by opcode (protocol 2, as ``torch.save``): it names PyTorch's
rebuild functions and storage types without importing PyTorch, and holds only what the
weights-only unpickler accepts: tensors, parameters, ``OrderedDict``, dicts, lists, tuples,
numbers, strings, bytes and None. Each tensor's data goes, contiguous and little-endian, to its
own storage member ``<archive>/data/<key>``, aligned to 64 bytes as PyTorch aligns them; a
tensor that appears twice (tied weights) is written once and comes back as one tensor.
"""

from __future__ import annotations

import builtins
import collections
import pickle
import struct
import zipfile
from collections.abc import Hashable, Sequence
from typing import IO, TYPE_CHECKING, Any, cast

import numpy as np

from .npz import describe_path, is_parameter, type_name

if TYPE_CHECKING:
    from .._typing import Array

# (``_PickleWriter`` has methods named ``int`` and ``str``: its annotations say ``builtins.int``)
_Path = tuple[Hashable, ...]

__all__ = [
    "WRITER_RECORD",
    "write_torch",
    "write_zip",
    "storage_type_name",
    "storage_bytes",
    "contiguous_strides",
]

_STORAGE_TYPES = {
    "f4": "FloatStorage",
    "f8": "DoubleStorage",
    "f2": "HalfStorage",
    "i8": "LongStorage",
    "i4": "IntStorage",
    "i2": "ShortStorage",
    "i1": "CharStorage",
    "u1": "ByteStorage",
    "b1": "BoolStorage",
    "c8": "ComplexFloatStorage",
    "c16": "ComplexDoubleStorage",
}
_ALIGNMENT = 64
# the record saying nl.save wrote the archive (PyTorch ignores records it does not know);
# nl.load(weights_only=False) warns on files without it
WRITER_RECORD = ".data/nnlite_writer"
WRITER_MARK = b"nnlite\n"
_DATE = (1980, 1, 1, 0, 0, 0)


class _PickleWriter:
    """Protocol-2 opcodes for the objects a weights-only checkpoint may hold."""

    def __init__(self) -> None:
        self.out = bytearray(b"\x80\x02")
        self.memo = 0
        self.globals: dict[tuple[builtins.str, builtins.str], builtins.int] = {}  # -> memo index
        self.tensors: dict[builtins.int, builtins.int] = {}  # id(tensor) -> memo index
        self.keep_alive: list[object] = []
        self.storages: list[Array] = []  # contiguous little-endian arrays, key = position

    def put(self) -> builtins.int:
        index = self.memo
        self.memo += 1
        self.out += b"q" + bytes([index]) if index < 256 else b"r" + struct.pack("<I", index)
        return index

    def get(self, index: builtins.int) -> None:
        self.out += b"h" + bytes([index]) if index < 256 else b"j" + struct.pack("<I", index)

    def global_(self, module: builtins.str, name: builtins.str) -> None:
        index = self.globals.get((module, name))
        if index is not None:
            self.get(index)
            return
        self.out += f"c{module}\n{name}\n".encode("ascii")
        self.globals[(module, name)] = self.put()

    def empty_ordered_dict(self) -> None:
        self.global_("collections", "OrderedDict")
        self.out += b")R"

    def tuple_of_ints(self, values: Sequence[builtins.int]) -> None:
        if len(values) == 0:
            self.out += b")"
            return
        self.out += b"("
        for v in values:
            self.int(v)
        self.out += b"t"

    def int(self, x: builtins.int) -> None:
        if 0 <= x < 256:
            self.out += b"K" + bytes([x])
        elif 0 <= x < 65536:
            self.out += b"M" + struct.pack("<H", x)
        elif -(2**31) <= x < 2**31:
            self.out += b"J" + struct.pack("<i", x)
        else:
            encoded = pickle.encode_long(x)
            if len(encoded) < 256:
                self.out += b"\x8a" + bytes([len(encoded)]) + encoded
            else:
                self.out += b"\x8b" + struct.pack("<i", len(encoded)) + encoded

    def str(self, s: builtins.str) -> None:
        data = s.encode("utf-8", "surrogatepass")
        self.out += b"X" + struct.pack("<I", len(data)) + data

    def write(self, obj: object, path: _Path) -> None:
        if obj is None:
            self.out += b"N"
        elif obj is True or obj is False:
            self.out += b"\x88" if obj else b"\x89"
        elif isinstance(obj, (bool, np.bool_)):
            self.write(bool(obj), path)
        elif isinstance(obj, (int, np.integer)):
            self.int(int(obj))
        elif isinstance(obj, (float, np.floating)):
            self.out += b"G" + struct.pack(">d", float(obj))
        elif isinstance(obj, str):
            self.str(str(obj))
        elif isinstance(obj, (bytes, bytearray)):
            # protocol 2 spells bytes as _codecs.encode(latin-1 text, "latin1"), as PyTorch does
            self.global_("_codecs", "encode")
            self.str(bytes(obj).decode("latin1"))
            self.str("latin1")
            self.out += b"\x86R"
        elif isinstance(obj, (dict, list, tuple)):
            self.container(obj, path)
        else:
            from ..autograd.tensor import Tensor

            if isinstance(obj, (Tensor, np.ndarray)):
                self.tensor(obj, path)
            else:
                raise TypeError(
                    f"nl.save: cannot save an object of type {type_name(obj)} at "
                    f"{describe_path(path)} in PyTorch's format; it holds dicts, lists, tuples, "
                    "tensors, numpy arrays, numbers, strings, bytes and None"
                )

    def container(self, obj: tuple[Any, ...] | list[Any] | dict[Any, Any], path: _Path) -> None:
        if isinstance(obj, tuple):
            self.out += b"("
            for i, v in enumerate(obj):
                self.write(v, path + (i,))
            self.out += b"t"
            return
        if isinstance(obj, list):
            self.out += b"]"
            self.put()
            items = [(None, v) for v in obj]
        elif isinstance(obj, collections.OrderedDict):
            self.empty_ordered_dict()
            self.put()
            items = list(obj.items())
        else:
            self.out += b"}"
            self.put()
            items = list(obj.items())
        if not items:
            return
        self.out += b"("
        for i, (k, v) in enumerate(items):
            if isinstance(obj, list):
                self.write(v, path + (i,))
            else:
                if not (k is None or isinstance(k, (bool, int, float, str))):
                    raise TypeError(
                        f"nl.save: cannot save a dict key of type {type_name(k)} in "
                        f"{describe_path(path)}; keys must be str, int, float, bool "
                        "or None"
                    )
                self.write(k, path)
                self.write(v, path + (k,))
        self.out += b"e" if isinstance(obj, list) else b"u"

    def tensor(self, obj: Any, path: _Path) -> None:  # a Tensor or a numpy array
        index = self.tensors.get(id(obj))
        if index is not None:
            self.get(index)
            return
        arr = obj if isinstance(obj, np.ndarray) else obj._data
        storage_type = storage_type_name(arr, path)
        parameter = not isinstance(obj, np.ndarray) and is_parameter(obj)
        requires_grad = bool(getattr(obj, "requires_grad", False))
        if parameter:
            self.global_("torch._utils", "_rebuild_parameter")
            self.out += b"("
        key = len(self.storages)
        self.storages.append(storage_bytes(arr))
        self.global_("torch._utils", "_rebuild_tensor_v2")
        self.out += b"(("
        self.str("storage")
        self.global_("torch", storage_type)
        self.str(str(key))
        self.str("cpu")
        self.int(arr.size)
        self.out += b"tQ"
        self.int(0)
        self.tuple_of_ints(arr.shape)
        self.tuple_of_ints(contiguous_strides(arr.shape))
        self.out += b"\x89" if parameter or not requires_grad else b"\x88"
        self.empty_ordered_dict()
        self.out += b"tR"
        if parameter:
            self.out += b"\x88" if requires_grad else b"\x89"
            self.empty_ordered_dict()
            self.out += b"tR"
        self.tensors[id(obj)] = self.put()
        self.keep_alive.append(obj)


def storage_type_name(arr: Array, path: _Path) -> str:
    """PyTorch's storage type for the array ``arr`` (``FloatStorage``, ...); ``path`` names
    where it sits in the saved object if PyTorch has none."""
    code = f"{arr.dtype.kind}{arr.dtype.itemsize}"
    if code not in _STORAGE_TYPES:
        raise TypeError(
            f"nl.save: PyTorch's format has no storage for dtype {arr.dtype} "
            f"(at {describe_path(path)})"
        )
    return _STORAGE_TYPES[code]


def storage_bytes(arr: Array) -> Array:
    """The storage of ``arr``: its elements contiguous and little-endian."""
    return np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False)


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    strides: list[int] = []
    step = 1
    for d in reversed(shape):
        strides.append(step)
        step *= max(d, 1)
    return tuple(strides[::-1])


def write_torch(obj: object, fileobj: IO[bytes], archive: str = "archive") -> None:
    """Write ``obj`` to the binary file ``fileobj`` in PyTorch's zip checkpoint format, with
    records under the folder ``archive`` (PyTorch names it after the file)."""
    writer = _PickleWriter()
    writer.write(obj, ())
    writer.out += b"."
    write_zip(fileobj, archive, bytes(writer.out), writer.storages)


def write_zip(
    fileobj: IO[bytes], archive: str, pickle_bytes: bytes, storages: Sequence[Array]
) -> None:
    """PyTorch's zip layout: ``data.pkl`` (``pickle_bytes``), the version records and each array
    of ``storages`` as member ``data/<position>``, every member's data 64-byte aligned."""
    with zipfile.ZipFile(fileobj, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:

        def record(name: str, data: bytes | memoryview) -> None:
            info = zipfile.ZipInfo(f"{archive}/{name}", date_time=_DATE)
            # pad the local header's extra field so that the data starts on an aligned offset
            start = (
                cast(IO[bytes], zf.fp).tell() + 30
            )  # (open for writing) + len(info.filename.encode("utf-8")) + 4
            pad = -start % _ALIGNMENT
            info.extra = struct.pack("<HH", 0x4246, pad) + b"\0" * pad
            zf.writestr(info, data)

        record("data.pkl", pickle_bytes)
        record(".format_version", b"1")
        record(".storage_alignment", str(_ALIGNMENT).encode())
        record("byteorder", b"little")
        for key, arr in enumerate(storages):
            record(f"data/{key}", arr.reshape(-1).view(np.uint8).data)
        record("version", b"3\n")
        record(WRITER_RECORD, WRITER_MARK)
