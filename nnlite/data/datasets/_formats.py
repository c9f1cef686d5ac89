"""Readers for the dataset file formats: IDX (MNIST family) and CIFAR-10 python batches."""
import gzip
import importlib
import io
import pickle
import struct
import zlib

import numpy as np

__all__ = ["read_idx", "read_idx_images", "read_idx_labels", "read_cifar_batch", "read_cifar_meta",
           "DatasetFormatError"]


class DatasetFormatError(RuntimeError):
    """A dataset file is corrupt or not in the expected format; the message names the file."""


# ------------------------------------------------------------------------------------------ IDX

_IDX_DTYPES = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"),
               0x0C: np.dtype(">i4"), 0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}
IDX_IMAGES_MAGIC = 0x00000803  # unsigned bytes, 3 dimensions
IDX_LABELS_MAGIC = 0x00000801  # unsigned bytes, 1 dimension


def _read_bytes(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] == b"\x1f\x8b":  # gzip, whatever the file is called
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as e:
            raise DatasetFormatError(f"{path}: corrupt gzip data ({e}); delete the file and download it again") \
                from None
    elif path.endswith(".gz"):
        raise DatasetFormatError(f"{path}: named .gz but is not gzip data; delete the file and download it again")
    return raw


def read_idx(path, magic=None):
    """The array stored in an IDX file (gzipped or not), in native byte order.

    With ``magic`` (e.g. ``0x00000803``), the file's magic number must equal it.
    """
    path = str(path)
    raw = _read_bytes(path)
    if len(raw) < 4:
        raise DatasetFormatError(f"{path}: too short for an IDX file ({len(raw)} bytes)")
    file_magic = struct.unpack(">I", raw[:4])[0]
    zero, code, ndim = struct.unpack(">HBB", raw[:4])
    if zero != 0 or code not in _IDX_DTYPES or ndim == 0:
        raise DatasetFormatError(f"{path}: bad magic number 0x{file_magic:08X}: not an IDX file")
    if magic is not None and file_magic != magic:
        raise DatasetFormatError(f"{path}: magic number 0x{file_magic:08X}, expected 0x{magic:08X}")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise DatasetFormatError(f"{path}: truncated IDX header ({len(raw)} bytes)")
    dims = struct.unpack(f">{ndim}I", raw[4:header])
    dtype = _IDX_DTYPES[code]
    expected = int(np.prod(dims, dtype=np.int64)) * dtype.itemsize
    actual = len(raw) - header
    if actual != expected:
        raise DatasetFormatError(f"{path}: the header announces shape {dims} ({expected} bytes of data) but the "
                                 f"file holds {actual} bytes; it is truncated or corrupt")
    arr = np.frombuffer(raw, dtype=dtype, offset=header).reshape(dims)
    return arr.astype(dtype.newbyteorder("="), copy=True)


def read_idx_images(path):
    """An ``(N, H, W)`` uint8 array from an IDX image file."""
    return read_idx(path, IDX_IMAGES_MAGIC)


def read_idx_labels(path, num_classes=10):
    """An ``(N,)`` int64 array from an IDX label file (values checked against ``num_classes``)."""
    labels = read_idx(path, IDX_LABELS_MAGIC).astype(np.int64)
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise DatasetFormatError(f"{path}: labels must be in [0, {num_classes - 1}], found "
                                 f"{labels.min()}..{labels.max()}")
    return labels


# ------------------------------------------------------------------------------------ CIFAR-10

def _numpy_attr(module, name):
    if module.startswith("numpy.core"):  # numpy 2 moved numpy.core to numpy._core
        try:
            return getattr(importlib.import_module("numpy._core" + module[len("numpy.core"):]), name)
        except ImportError:
            pass
    return getattr(importlib.import_module(module), name)


class _RestrictedUnpickler(pickle.Unpickler):
    """Unpickles dicts, lists, strings, numbers and numpy arrays, nothing else: any other global
    a pickle names is refused, so a crafted file cannot run code."""

    ALLOWED = {
        ("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
        ("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"),
        ("numpy.core.numeric", "_frombuffer"), ("numpy._core.numeric", "_frombuffer"),
        ("numpy", "ndarray"), ("numpy", "dtype"),
        ("_codecs", "encode"),  # how protocol 2 writes bytes from Python 3
    }

    def __init__(self, file, path):
        super().__init__(file, encoding="latin1")
        self.path = path

    def find_class(self, module, name):
        if (module, name) in self.ALLOWED:
            if module == "_codecs":
                import codecs
                return codecs.encode
            return _numpy_attr(module, name)
        raise DatasetFormatError(f"{self.path}: refusing to load {module}.{name}: a CIFAR-10 batch holds only "
                                 f"strings, numbers, lists and numpy arrays")


def _load_restricted(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        obj = _RestrictedUnpickler(io.BytesIO(raw), path).load()
    except DatasetFormatError:
        raise
    except Exception as e:
        raise DatasetFormatError(f"{path}: not a readable CIFAR-10 python batch ({type(e).__name__}: {e})") from None
    if not isinstance(obj, dict):
        raise DatasetFormatError(f"{path}: a CIFAR-10 batch is a dict, found {type(obj).__name__}")
    return {(k.decode("latin1") if isinstance(k, bytes) else k): v for k, v in obj.items()}


def read_cifar_batch(path, image_size=3072, num_classes=10):
    """``(data, labels)`` of a CIFAR python batch: ``data`` an ``(N, 3072)`` uint8 array
    (rows are R, G, B planes of 32x32), ``labels`` an ``(N,)`` int64 array."""
    path = str(path)
    entry = _load_restricted(path)
    data = entry.get("data")
    labels = entry.get("labels", entry.get("fine_labels"))
    if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 2 or data.shape[1] != image_size:
        what = (f"dtype {data.dtype}, shape {data.shape}" if isinstance(data, np.ndarray)
                else type(data).__name__)
        raise DatasetFormatError(f"{path}: 'data' must be a uint8 array of shape (N, {image_size}), found {what}")
    if labels is None:
        raise DatasetFormatError(f"{path}: no 'labels' entry")
    try:
        labels = np.asarray(labels, dtype=np.int64)
    except (TypeError, ValueError):
        raise DatasetFormatError(f"{path}: 'labels' must be a list of ints") from None
    if labels.shape != (data.shape[0],):
        raise DatasetFormatError(f"{path}: {data.shape[0]} images but labels of shape {labels.shape}")
    if labels.size and (labels.min() < 0 or labels.max() >= num_classes):
        raise DatasetFormatError(f"{path}: labels must be in [0, {num_classes - 1}], found "
                                 f"{labels.min()}..{labels.max()}")
    return data, labels


def read_cifar_meta(path, key="label_names"):
    """The class names stored in ``batches.meta``."""
    entry = _load_restricted(str(path))
    names = entry.get(key)
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, (str, bytes)) for n in names):
        raise DatasetFormatError(f"{path}: {key!r} must be a list of strings")
    return [n.decode("latin1") if isinstance(n, bytes) else n for n in names]
