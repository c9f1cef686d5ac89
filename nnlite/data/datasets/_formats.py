"""Readers for the dataset file formats: IDX (MNIST family) and CIFAR-10 python batches."""

from __future__ import annotations

import gzip
import importlib
import os
import struct
import zlib
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ...serialization.safe_pickle import (
    Allowed,
    RestrictedUnpickler,
    UnpicklingRefused,
    charged,
    named,
)

if TYPE_CHECKING:
    from ..._typing import Array, StrPath


__all__ = [
    "read_idx",
    "read_idx_images",
    "read_idx_labels",
    "read_cifar_batch",
    "read_cifar_meta",
    "DatasetFormatError",
]


class DatasetFormatError(RuntimeError):
    """A dataset file is corrupt or not in the expected format; the message names the file.

    Examples:
        >>> with open("broken-idx3-ubyte", "wb") as f:
        ...     _ = f.write(b"no")
        >>> read_idx("broken-idx3-ubyte")
        Traceback (most recent call last):
            ...
        nnlite.data.datasets._formats.DatasetFormatError: ...
    """


# ------------------------------------------------------------------------------------------ IDX

_IDX_DTYPES: dict[int, np.dtype[Any]] = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}
IDX_IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions
IDX_LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension


MAX_GZIP_RATIO = 64  # a gzipped IDX file may declare at most this many times its size
_MIN_GZIP_BUDGET = 1 << 20


def _open_idx(path: str) -> tuple[gzip.GzipFile | IO[bytes], int, IO[bytes]]:
    """The IDX file at ``path`` as a binary stream (decompressing gzip, whatever the file is
    called), and the file's size on disk."""
    f = open(path, "rb")
    size = os.fstat(f.fileno()).st_size
    if f.read(2) == b"\x1f\x8b":
        f.seek(0)
        return gzip.GzipFile(fileobj=f, mode="rb"), size, f
    if path.endswith(".gz"):
        f.close()
        raise DatasetFormatError(
            f"{path}: named .gz but is not gzip data; delete the file and download it again"
        )
    f.seek(0)
    return f, size, f


def _read_exactly(stream: gzip.GzipFile | IO[bytes], n: int, path: str) -> bytes:
    try:
        return stream.read(n)
    except (OSError, EOFError, zlib.error) as e:
        raise DatasetFormatError(
            f"{path}: corrupt gzip data ({e}); delete the file and download it again"
        ) from None


def read_idx(path: StrPath, magic: int | None = None) -> Array:
    """The array stored in an IDX file (gzipped or not), in native byte order.

    With ``magic`` (e.g. ``0x00000803``), the file's magic number must equal it. The header's
    claim is checked against the file before the data is read: a file declaring more data than
    it holds (or, gzipped, more than ``MAX_GZIP_RATIO`` times its size) is refused.

    Args:
        path (str): the file (``.gz`` files are decompressed).
        magic (int, optional): the magic number the file must have.

    Returns:
        numpy.ndarray: the data, shaped by the header.

    Examples:
        >>> import struct
        >>> with open("images-idx3-ubyte", "wb") as f:
        ...     _ = f.write(struct.pack(">IIII", 0x803, 2, 3, 3) + bytes(18))
        >>> read_idx("images-idx3-ubyte", magic=0x803).shape
        (2, 3, 3)
    """
    path = str(path)
    stream, file_size, raw_file = _open_idx(path)
    with raw_file, stream:
        gzipped = stream is not raw_file
        head = _read_exactly(stream, 4, path)
        if len(head) < 4:
            raise DatasetFormatError(f"{path}: too short for an IDX file ({len(head)} bytes)")
        file_magic = struct.unpack(">I", head)[0]
        zero, code, ndim = struct.unpack(">HBB", head)
        if zero != 0 or code not in _IDX_DTYPES or ndim == 0:
            raise DatasetFormatError(
                f"{path}: bad magic number 0x{file_magic:08X}: not an IDX file"
            )
        if magic is not None and file_magic != magic:
            raise DatasetFormatError(
                f"{path}: magic number 0x{file_magic:08X}, expected 0x{magic:08X}"
            )
        dims_raw = _read_exactly(stream, 4 * ndim, path)
        if len(dims_raw) < 4 * ndim:
            raise DatasetFormatError(f"{path}: truncated IDX header ({4 + len(dims_raw)} bytes)")
        dims = struct.unpack(f">{ndim}I", dims_raw)
        dtype = _IDX_DTYPES[code]
        expected = dtype.itemsize
        for d in dims:
            expected *= d
        header = 4 + 4 * ndim
        if gzipped:
            if expected > max(MAX_GZIP_RATIO * file_size, _MIN_GZIP_BUDGET):
                raise DatasetFormatError(
                    f"{path}: the header announces shape {dims} ({expected} bytes of data), "
                    f"more than {MAX_GZIP_RATIO} times the {file_size}-byte gzip file; it is "
                    "corrupt"
                )
        elif expected != file_size - header:
            raise DatasetFormatError(
                f"{path}: the header announces shape {dims} ({expected} bytes of data) but the "
                f"file holds {file_size - header} bytes; it is truncated or corrupt"
            )
        data = _read_exactly(stream, expected + 1, path)
    if len(data) != expected:
        held = f"{len(data)} bytes" if len(data) < expected else "more"
        raise DatasetFormatError(
            f"{path}: the header announces shape {dims} ({expected} bytes of data) but the "
            f"file holds {held}; it is truncated or corrupt"
        )
    arr = np.frombuffer(data, dtype=dtype).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=True)


def read_idx_images(path: StrPath) -> Array:
    """An ``(N, H, W)`` uint8 array from an IDX image file."""
    return read_idx(path, IDX_IMAGES_MAGIC)


def read_idx_labels(path: StrPath, num_classes: int = 10) -> Array:
    """An ``(N,)`` int64 array from an IDX label file (values checked against ``num_classes``)."""
    labels = read_idx(path, IDX_LABELS_MAGIC).astype(np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise DatasetFormatError(
            f"{path}: labels must be in [0, {num_classes - 1}], found "
            f"{labels.min()}..{labels.max()}"
        )
    return labels


# ------------------------------------------------------------------------------------ CIFAR-10


def _numpy_attr(module: str, name: str) -> Any:
    if module.startswith("numpy.core"):  # numpy 2 moved numpy.core to numpy._core
        try:
            return getattr(
                importlib.import_module("numpy._core" + module[len("numpy.core") :]), name
            )
        except ImportError:
            pass
    return getattr(importlib.import_module(module), name)


_ARRAY_COST = 4096  # bytes charged per array a batch builds (numpy copies small ones)
_MAX_BUILDS = 64  # BUILD opcodes (array states) in one batch file; the real ones have 1


def _nbytes(x: object) -> int:
    return len(x) if isinstance(x, (bytes, bytearray, str)) else 0


def _reconstruct_cost(subtype: object, shape: object, dtype: object) -> int:
    """What ``_reconstruct(ndarray, shape, dtype)`` allocates (pickles ask for shape ``(0,)``
    and fill the array by ``BUILD``); only plain arrays are built."""
    if subtype is not np.ndarray:
        raise TypeError("_reconstruct builds numpy.ndarray only")
    if not (isinstance(shape, tuple) and all(type(d) is int and d >= 0 for d in shape)):
        raise TypeError("_reconstruct needs a shape of non-negative ints")
    code = dtype.decode("latin1") if isinstance(dtype, bytes) else dtype
    if not isinstance(code, (str, np.dtype)) or np.dtype(code).hasobject:
        raise TypeError("_reconstruct needs a dtype of plain values")
    nbytes = np.dtype(code).itemsize
    for d in shape:
        nbytes *= d
    return nbytes + _ARRAY_COST


def _scalar_cost(dtype: object, obj: object = b"", *rest: object) -> int:
    return (dtype.itemsize if isinstance(dtype, np.dtype) else 0) + _nbytes(obj) + 64


def _plain_dtype(*args: Any) -> np.dtype[Any]:
    """``numpy.dtype(*args)``, refusing dtypes that hold Python objects."""
    dtype: np.dtype[Any] = np.dtype(*args)
    if dtype.hasobject:
        raise TypeError("arrays of Python objects are not allowed")
    return dtype


def _latin1_cost(text: object, encoding: object = "utf-8", *errors: object) -> int:
    if type(text) is not str or not isinstance(encoding, str) or errors:
        raise TypeError("_codecs.encode is only allowed as pickle writes bytes: (str, 'latin1')")
    if encoding.lower() not in ("latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1"):
        raise TypeError("_codecs.encode is only allowed with the latin-1 encoding")
    return len(text)


def _buildable(obj: object) -> bool:
    """What a batch's ``BUILD`` may set the state of: arrays (their data) and dtypes."""
    return isinstance(obj, (np.ndarray, np.dtype))


def _cifar_globals() -> Allowed:
    """The globals a CIFAR-10 python batch may name, each charged for the bytes it builds;
    ``numpy.ndarray`` is only an argument of ``_reconstruct``, never called (it would make an
    array of any shape over a few bytes)."""
    import codecs

    allowed: Allowed = {}
    for core in ("numpy.core", "numpy._core"):
        allowed[(f"{core}.multiarray", "_reconstruct")] = charged(
            _numpy_attr(f"{core}.multiarray", "_reconstruct"), _reconstruct_cost
        )
        allowed[(f"{core}.multiarray", "scalar")] = charged(
            _numpy_attr(f"{core}.multiarray", "scalar"), _scalar_cost
        )
        allowed[(f"{core}.numeric", "_frombuffer")] = charged(
            _numpy_attr(f"{core}.numeric", "_frombuffer"),
            lambda buf, *a: _nbytes(buf) + _ARRAY_COST,
        )
    allowed[("numpy", "ndarray")] = named(np.ndarray)
    allowed[("numpy", "dtype")] = charged(_plain_dtype, lambda *a: 64)
    # how protocol 2 writes bytes from Python 3
    allowed[("_codecs", "encode")] = charged(codecs.encode, _latin1_cost)
    return allowed


def _refusal(module: str, name: str) -> str:
    return f"refusing to load {module}.{name}: a CIFAR-10 batch holds only strings, numbers, lists and numpy arrays"


def _load_restricted(path: str) -> dict[Any, Any]:
    with open(path, "rb") as f:
        raw = f.read()
    try:
        obj = RestrictedUnpickler(
            raw,
            _cifar_globals(),
            _refusal,
            budget=2 * len(raw) + (1 << 20),
            limits={"BUILD": _MAX_BUILDS},
            buildable=_buildable,
            encoding="latin1",
        ).load()
    except UnpicklingRefused as e:
        if e.forbidden:
            raise DatasetFormatError(f"{path}: {e}") from None
        raise DatasetFormatError(f"{path}: not a readable CIFAR-10 python batch ({e})") from None
    if not isinstance(obj, dict):
        raise DatasetFormatError(f"{path}: a CIFAR-10 batch is a dict, found {type(obj).__name__}")
    return {(k.decode("latin1") if isinstance(k, bytes) else k): v for k, v in obj.items()}


def read_cifar_batch(
    path: StrPath, image_size: int = 3072, num_classes: int = 10
) -> tuple[Array, Array]:
    """``(data, labels)`` of a CIFAR python batch: ``data`` an ``(N, 3072)`` uint8 array
    (rows are R, G, B planes of 32x32), ``labels`` an ``(N,)`` int64 array."""
    path = str(path)
    entry = _load_restricted(path)
    data = entry.get("data")
    labels = entry.get("labels", entry.get("fine_labels"))
    if (
        not isinstance(data, np.ndarray)
        or data.dtype != np.uint8
        or data.ndim != 2
        or data.shape[1] != image_size
    ):
        what = (
            f"dtype {data.dtype}, shape {data.shape}"
            if isinstance(data, np.ndarray)
            else type(data).__name__
        )
        raise DatasetFormatError(
            f"{path}: 'data' must be a uint8 array of shape (N, {image_size}), found {what}"
        )
    if labels is None:
        raise DatasetFormatError(f"{path}: no 'labels' entry")
    # a flat list of ints, checked element by element before numpy sees it: a list holding
    # lists (shared, or holding themselves) would make np.asarray build an array far larger
    # than the file
    if isinstance(labels, np.ndarray) and labels.ndim == 1 and labels.dtype.kind in "iu":
        labels = labels.astype(np.int64)
    elif isinstance(labels, list) and all(type(x) is int for x in labels):
        try:
            labels = np.array(labels, dtype=np.int64)
        except OverflowError:
            raise DatasetFormatError(f"{path}: 'labels' holds ints beyond int64") from None
    else:
        raise DatasetFormatError(
            f"{path}: 'labels' must be a flat list of ints, found {_describe(labels)}"
        )
    if labels.shape != (data.shape[0],):
        raise DatasetFormatError(
            f"{path}: {data.shape[0]} images but labels of shape {labels.shape}"
        )
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise DatasetFormatError(
            f"{path}: labels must be in [0, {num_classes - 1}], found "
            f"{labels.min()}..{labels.max()}"
        )
    return data, labels


def _describe(value: object) -> str:
    if isinstance(value, list):
        kinds = sorted({type(x).__name__ for x in value[:1000]})
        return f"a list of {len(value)} items of type {', '.join(kinds) or '-'}"
    return type(value).__name__


def read_cifar_meta(path: StrPath, key: str = "label_names") -> list[str]:
    """The class names stored in ``batches.meta``."""
    entry = _load_restricted(str(path))
    names = entry.get(key)
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, (str, bytes)) for n in names):
        raise DatasetFormatError(f"{path}: {key!r} must be a list of strings")
    return [n.decode("latin1") if isinstance(n, bytes) else n for n in names]
