"""safetensors files through the ``safetensors`` package (optional extra ``safetensors``).

The package parses and validates the header (size cap, offsets inside the file, no overlap);
nnlite turns its raw buffers into tensors, reading bfloat16 as float32 since numpy has no
bfloat16.
"""

from __future__ import annotations

import struct
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from .._runtime import atomic_file as _atomic
from ._bounded_repr import error_text, short_repr
from ._dtypes import bfloat16_to_float32
from ._errors import CheckpointError

if TYPE_CHECKING:
    from .._typing import FileLike
    from ..autograd.tensor import Tensor

__all__ = ["save_safetensors", "load_safetensors", "looks_like_safetensors"]

_DTYPES = {
    "F64": "<f8",
    "F32": "<f4",
    "F16": "<f2",
    "I64": "<i8",
    "I32": "<i4",
    "I16": "<i2",
    "I8": "i1",
    "U8": "u1",
    "U16": "<u2",
    "U32": "<u4",
    "U64": "<u8",
    "BOOL": "?",
}
_SAVABLE = {"f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"}
_MAX_HEADER = 100_000_000  # safetensors' own limit


def _safetensors() -> Any:  # the safetensors module
    try:
        import safetensors
        import safetensors.numpy
    except ImportError:
        raise ImportError(
            "reading and writing .safetensors files needs the safetensors package: "
            "pip install 'nnlite[safetensors]' (or pip install safetensors)"
        ) from None
    return safetensors


def looks_like_safetensors(head: bytes, fh: IO[bytes]) -> bool:
    """Whether the file whose first bytes are ``head`` starts like a safetensors file: an
    8-byte little-endian header length that fits in the file, then ``{``."""
    if len(head) < 9 or head[8:9] != b"{":
        return False
    n: int
    (n,) = struct.unpack("<Q", head[:8])
    try:
        start = fh.tell()
        size = fh.seek(0, 2) - start
        fh.seek(start)
    except (OSError, ValueError):
        return False
    return 2 <= n <= min(size - 8, _MAX_HEADER)


def load_safetensors(fh: IO[bytes], name: str) -> dict[str, Tensor]:
    """A dict name -> Tensor of the safetensors file open in ``fh``."""
    safetensors = _safetensors()
    data = fh.read()
    try:
        entries = safetensors.deserialize(data)
    except Exception as e:  # SafetensorError, or the package's own ValueError/TypeError
        raise CheckpointError(f"corrupt safetensors file: {name} ({error_text(e)})") from None
    del data
    from ..autograd.creation import from_numpy

    out: dict[str, Tensor] = {}
    for key, entry in entries:
        dtype, shape, raw = entry["dtype"], entry["shape"], entry["data"]
        if dtype == "BF16":
            arr = bfloat16_to_float32(np.frombuffer(raw, "<u2"))
        elif dtype in _DTYPES:
            arr = np.frombuffer(raw, _DTYPES[dtype])
        else:
            raise CheckpointError(
                f"unsupported safetensors file: {name} (tensor {short_repr(key)} has "
                f"dtype {dtype}, which nnlite cannot hold)"
            )
        count = 1
        for d in shape:
            count *= d
        if arr.size != count:
            raise CheckpointError(
                f"corrupt safetensors file: {name} (tensor {short_repr(key)}: shape "
                f"{short_repr(shape)} but {arr.size} values)"
            )
        out[key] = from_numpy(arr.reshape(shape).astype(arr.dtype.newbyteorder("="), copy=False))
    return out


def save_safetensors(tensors: object, f: FileLike, metadata: dict[str, str] | None = None) -> None:
    # ``tensors``: a dict str -> Tensor or numpy array, checked here
    """Write the flat dict ``tensors`` (str -> Tensor or numpy array) as safetensors to ``f``."""
    safetensors = _safetensors()
    if not isinstance(tensors, dict):
        raise TypeError(
            f"a safetensors file holds a flat dict of tensors, got {type(tensors).__name__}"
        )
    from ..autograd.tensor import Tensor

    arrays: dict[str, Any] = {}
    for key, value in tensors.items():
        if not isinstance(key, str):
            raise TypeError(
                f"a safetensors file holds tensors by str name, got the key "
                f"{key!r} ({type(key).__name__})"
            )
        arr = value._data if isinstance(value, Tensor) else value
        if (
            not isinstance(arr, np.ndarray)
            or f"{arr.dtype.kind}{arr.dtype.itemsize}" not in _SAVABLE
        ):
            what = f"dtype {arr.dtype}" if isinstance(arr, np.ndarray) else type(value).__name__
            raise TypeError(f"a safetensors file holds tensors only; obj[{key!r}] is {what}")
        # np.require, not np.ascontiguousarray: the latter turns a 0-d array into shape (1,)
        arrays[key] = np.require(
            arr.astype(arr.dtype.newbyteorder("<"), copy=False), requirements="C"
        )
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise TypeError("metadata must be a dict of str to str")
    data = safetensors.numpy.save(arrays, metadata=metadata)
    _atomic.write_file(f, lambda out: out.write(data))
