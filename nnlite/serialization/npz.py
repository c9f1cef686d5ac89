"""nnlite's own checkpoint format: a numpy ``.npz`` archive without pickle.

The archive holds:

* one ``.npy`` member per array and tensor of the saved object, named by its path in the object
  (``model/conv1.weight.npy``, ``optimizer/state/0/momentum_buffer.npy``), so that
  ``numpy.load(path).files`` lists real names; any numeric, bool or string dtype, any byte order;
* ``header.json``: the structure of the object in JSON: dicts (with their key types and order),
  lists, tuples, Python scalars and strings, and references to the arrays.

Reading never unpickles: the ``.npy`` headers are parsed by numpy's header reader and the data
is taken as raw bytes, after checking that the member holds exactly the bytes its header
declares, so memory stays bounded by the file. Round trips are exact: dtypes, shapes, bit
patterns (NaN payloads, ``-0.0``), ints versus floats, big ints, dict key types and order. An
object saved twice in one structure (tied weights) is stored once and comes back as one object.

Node encoding in the header (JSON values)::

    null, true, false, 12, 1.5, "text"     None, bools, ints, finite floats, strings
    {"int": "-0x1f..."}                    ints of 2**64 and beyond, in hex
    {"float": "7ff8000000000001"}          other floats (NaN, inf), by their IEEE-754 bits
    {"complex": [re, im]}                  complex numbers (re, im encoded as floats)
    {"list": [...]}, {"tuple": [...]}      sequences
    {"dict": [[key, value], ...]}          dicts (also {"odict": ...} for OrderedDict)
    {"tensor": i, "requires_grad": b}      Tensor stored in array i ({"parameter": ...} likewise)
    {"ndarray": i}, {"npscalar": i}        numpy array / numpy scalar stored in array i
    {"bytes": i}                           bytes, stored as a uint8 array
    {"ref": i}                             the tensor or array of array i again (shared object)

``header["arrays"][i]`` is ``[dtype, shape, member]`` (version 2); version 1 files had
``[dtype, shape]`` with the member ``a<i>.npy``, and still load.
"""

from __future__ import annotations

import collections
import io
import json
import re
import struct
import zipfile
from collections.abc import Hashable, Sequence
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._bounded_repr import error_text, short_repr

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor
    from ._zip import ZipReader

#: where an object sits in the saved structure: the keys and indices leading to it
_Path = Sequence[Hashable]
#: a node of the JSON header: a number, string, None, list or dict (see the module docstring)
_Node = Any

__all__ = ["write_npz", "read_npz", "HEADER_NAME"]

FORMAT_NAME = "nnlite-checkpoint"
FORMAT_VERSION = 2
HEADER_NAME = "header.json"
MAX_HEADER_BYTES = 64 << 20  # the JSON header may not exceed this
MAX_HEADER_DEPTH = 256  # nor nest deeper than this
_MAX_NPY_HEADER = 1 << 16
_MAX_KEY_REPR = 60
_MAX_MEMBER_NAME = 200
_BIG_INT = 2**64  # ints at least this large are written as hex strings
_UNSAFE_CHARS = re.compile("[\x00-\x1f\x7f]")
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')


# ---------------------------------------------------------------------------- paths


def _key_repr(key: object) -> str:
    text = repr(key)
    if len(text) > _MAX_KEY_REPR:
        text = text[: _MAX_KEY_REPR - 3] + "..."
    return text


def describe_path(path: _Path) -> str:
    """``obj['layers'][2]``: where an object sits in the saved structure."""
    return "obj" + "".join(f"[{_key_repr(k)}]" for k in path)


def member_name(path: _Path, used: set[str]) -> str:
    """A member name for the array at ``path``: its keys joined by ``/`` (``model/fc.weight``),
    unique among ``used``, without empty, ``.`` or ``..`` parts or control characters."""
    parts = [str(k).replace("\\", "/") for k in path] or ["root"]
    parts = [p for part in parts for p in part.split("/")]
    name = "/".join(p if p not in ("", ".", "..") else f"_{p}_" for p in parts)
    # zip names end at a NUL byte and are UTF-8: control characters and lone surrogates go
    name = _UNSAFE_CHARS.sub("_", name).encode("utf-8", "replace").decode("utf-8")
    if len(name) > _MAX_MEMBER_NAME:
        name = name[:_MAX_MEMBER_NAME]
    unique, n = name, 1
    while unique in used or unique == HEADER_NAME[:-5]:
        unique, n = f"{name}~{n}", n + 1
    used.add(unique)
    return unique


# ---------------------------------------------------------------------------- encoding


def _float_bits(x: float) -> str:
    return struct.pack(">d", x).hex()


def _encode_float(x: float) -> float | dict[str, str]:
    if x != x or x in (float("inf"), float("-inf")):
        return {"float": _float_bits(x)}
    return x


def type_name(obj: object) -> str:
    cls = type(obj)
    if cls.__module__ in ("builtins", None):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def is_parameter(t: object) -> bool:
    # checked by name so that saving does not import nnlite.nn
    return any(
        c.__name__ == "Parameter" and c.__module__.startswith("nnlite.nn") for c in type(t).__mro__
    )


class _Encoder:
    def __init__(self) -> None:
        self.arrays: list[tuple[Array, str]] = []  # (array, member name)
        self.names: set[str] = set()
        self.seen: dict[int, int] = {}  # id(obj) -> array index, for tensors and arrays
        self.keep_alive: list[object] = []  # objects whose id is in `seen`
        self.active: set[int] = set()  # ids of the containers on the current path (cycle check)

    def add_array(self, arr: Array, path: _Path, obj: object = None) -> int:
        if arr.dtype.hasobject:
            raise TypeError(
                f"nl.save: cannot save an array of dtype object at {describe_path(path)} "
                "(checkpoints hold numeric, bool and string arrays only)"
            )
        index = len(self.arrays)
        self.arrays.append((arr, member_name(path, self.names)))
        if obj is not None:
            self.seen[id(obj)] = index
            self.keep_alive.append(obj)
        return index

    def encode(self, obj: object, path: tuple[Hashable, ...]) -> _Node:
        # the common scalars first; bool before int (bool is a subclass of int)
        if obj is None or obj is True or obj is False or type(obj) is str:
            return obj
        if type(obj) is int:
            return obj if -_BIG_INT < obj < _BIG_INT else {"int": hex(obj)}
        if type(obj) is float:
            return _encode_float(obj)

        from ..autograd.tensor import Tensor

        if isinstance(obj, (Tensor, np.ndarray)):
            index = self.seen.get(id(obj))
            if index is not None:
                return {"ref": index}
            if isinstance(obj, Tensor):
                index = self.add_array(obj._data, path, obj)
                kind = "parameter" if is_parameter(obj) else "tensor"
                return {kind: index, "requires_grad": bool(obj.requires_grad)}
            return {"ndarray": self.add_array(obj, path, obj)}
        if isinstance(obj, np.generic):
            arr = np.asarray(obj)
            if arr.dtype.hasobject:
                raise TypeError(
                    f"nl.save: cannot save a numpy object scalar at {describe_path(path)}"
                )
            return {"npscalar": self.add_array(arr, path)}

        if isinstance(obj, (dict, list, tuple)):
            key = id(obj)
            if key in self.active:
                raise ValueError(f"nl.save: the object contains itself at {describe_path(path)}")
            self.active.add(key)
            try:
                if isinstance(obj, dict):
                    items = []
                    for k, v in obj.items():
                        items.append([self.encode_key(k, path), self.encode(v, path + (k,))])
                    tag = "odict" if isinstance(obj, collections.OrderedDict) else "dict"
                    return {tag: items}
                values = [self.encode(v, path + (i,)) for i, v in enumerate(obj)]
                return {"tuple" if isinstance(obj, tuple) else "list": values}
            finally:
                self.active.discard(key)

        # subclasses of the scalar types (IntEnum, str subclasses, ...) as their base value
        if isinstance(obj, bool):
            return bool(obj)
        if isinstance(obj, int):
            return self.encode(int(obj), path)
        if isinstance(obj, float):
            return _encode_float(float(obj))
        if isinstance(obj, str):
            return str(obj)
        if isinstance(obj, complex):
            return {"complex": [_encode_float(obj.real), _encode_float(obj.imag)]}
        if isinstance(obj, (bytes, bytearray)):
            return {"bytes": self.add_array(np.frombuffer(bytes(obj), dtype=np.uint8), path)}
        raise TypeError(
            f"nl.save: cannot save an object of type {type_name(obj)} at "
            f"{describe_path(path)}; checkpoints hold dicts, lists, tuples, tensors, numpy "
            "arrays, numbers, strings, bytes and None"
        )

    def encode_key(self, key: object, path: tuple[Hashable, ...]) -> _Node:
        if key is None or isinstance(key, (bool, int, str)):
            return self.encode(key, path)
        if isinstance(key, float):
            return _encode_float(float(key))
        raise TypeError(
            f"nl.save: cannot save a dict key of type {type_name(key)} "
            f"({_key_repr(key)}) in {describe_path(path)}; keys must be str, int, float, bool "
            "or None"
        )


def write_npz(obj: object, fileobj: IO[bytes]) -> None:
    """Write ``obj`` to the binary file ``fileobj`` in nnlite's ``.npz`` format."""
    encoder = _Encoder()
    root = encoder.encode(obj, ())
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "arrays": [[a.dtype.str, list(a.shape), name] for a, name in encoder.arrays],
        "root": root,
    }
    header_bytes = json.dumps(
        header, ensure_ascii=True, allow_nan=False, separators=(",", ":")
    ).encode("ascii")
    with zipfile.ZipFile(fileobj, mode="w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        # fixed timestamps: the same object always gives the same bytes
        zf.writestr(zipfile.ZipInfo(HEADER_NAME, date_time=(1980, 1, 1, 0, 0, 0)), header_bytes)
        for arr, name in encoder.arrays:
            info = zipfile.ZipInfo(name + ".npy", date_time=(1980, 1, 1, 0, 0, 0))
            with zf.open(info, mode="w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(arr), allow_pickle=False)


# ---------------------------------------------------------------------------- reading


def read_npz(reader: ZipReader) -> Any:
    """The object stored in the nnlite checkpoint open in ``reader`` (a ``ZipReader``)."""
    reader.kind = "nnlite checkpoint"
    header = _parse_header(reader)
    arrays = [_read_array(reader, i, entry) for i, entry in enumerate(header["arrays"])]
    try:
        return _Decoder(arrays).decode(header["root"])
    except (
        KeyError,
        IndexError,
        TypeError,
        ValueError,
        AttributeError,
        OverflowError,
        struct.error,
        RecursionError,
    ) as e:
        reader.fail(f"bad structure: {error_text(e)}")


def _parse_header(reader: ZipReader) -> dict[str, Any]:
    raw = reader.read(HEADER_NAME, HEADER_NAME, limit=MAX_HEADER_BYTES)
    if raw.startswith(b"\x93NUMPY"):
        reader.fail(f"{HEADER_NAME} is not JSON text", prefix="not an nnlite checkpoint")
    depth = _json_depth(raw)
    if depth > MAX_HEADER_DEPTH:
        reader.fail(
            f"{HEADER_NAME} nests {depth} levels deep, more than the limit of {MAX_HEADER_DEPTH}"
        )
    try:
        header = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        reader.fail(f"{HEADER_NAME}: {e}")
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        reader.fail("unknown header format", prefix="not an nnlite checkpoint")
    version = header.get("version")
    if type(version) is not int or version > FORMAT_VERSION:
        reader.fail(
            f"format version {short_repr(version)}; this nnlite reads version "
            f"{FORMAT_VERSION} and older",
            prefix="unsupported nnlite checkpoint",
        )
    arrays = header.get("arrays")
    if not isinstance(arrays, list) or "root" not in header:
        reader.fail("bad header: no 'arrays' list or no 'root'")
    for i, entry in enumerate(arrays):
        if not (
            isinstance(entry, list)
            and len(entry) in (2, 3)
            and isinstance(entry[0], str)
            and isinstance(entry[1], list)
            and all(type(d) is int and d >= 0 for d in entry[1])
            and (len(entry) == 2 or isinstance(entry[2], str))
        ):
            reader.fail(
                f"bad header: arrays[{i}] is {short_repr(entry)}, expected "
                "[dtype string, list of sizes, member name]"
            )
    return header


def _json_depth(raw: bytes | bytearray) -> int:
    """The deepest bracket nesting of the JSON text ``raw``, strings left out."""
    text = np.frombuffer(_JSON_STRING.sub(b'""', bytes(raw)), dtype=np.uint8)
    steps = np.isin(text, (ord("["), ord("{"))).astype(np.int64) - np.isin(
        text, (ord("]"), ord("}"))
    )
    return int(np.cumsum(steps).max()) if steps.size else 0


def _read_array(reader: ZipReader, index: int, entry: _Node) -> Array:
    dtype_str, shape = entry[0], entry[1]
    name = entry[2] if len(entry) == 3 else f"a{index}"
    what = f"array {name}"
    member = name + ".npy"
    if member not in reader:
        reader.fail(f"{what} is missing")
    buf = reader.read(member, what)
    arr = _array_from_npy(reader, buf, what)
    if arr.dtype.str != dtype_str or list(arr.shape) != shape:
        reader.fail(
            f"{what}: dtype {arr.dtype.str}, shape {list(arr.shape)}, the header says "
            f"dtype {dtype_str}, shape {shape}"
        )
    return arr


def _array_from_npy(reader: ZipReader, buf: bytearray, what: str) -> Array:
    """The array in the ``.npy`` bytes ``buf``, sharing its memory; refused unless ``buf``
    holds exactly the bytes the ``.npy`` header declares."""
    fp = io.BytesIO(bytes(buf[: _MAX_NPY_HEADER + 16]))
    try:
        version = np.lib.format.read_magic(fp)
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, fortran, dtype = read_header(fp, max_header_size=_MAX_NPY_HEADER)
    except (
        ValueError,
        TypeError,
        SyntaxError,
        EOFError,
        OverflowError,
        MemoryError,
        RecursionError,
        struct.error,
    ) as e:
        reader.fail(f"{what}: bad .npy header: {e}")
    if dtype.hasobject:
        reader.fail(f"{what}: dtype object would need pickle")
    count = 1
    for d in shape:
        count *= d
    needed = count * dtype.itemsize
    offset = fp.tell()
    held = len(buf) - offset
    if needed != held or (dtype.itemsize == 0 and count > len(buf)):
        reader.fail(
            f"{what}: the .npy header declares shape {tuple(shape)} of {dtype.str} "
            f"({needed} bytes) but the member holds {held} bytes"
        )
    arr = (
        np.frombuffer(buf, dtype=dtype, count=count, offset=offset) if count else np.empty(0, dtype)
    )
    arr = arr.reshape(shape[::-1]).T if fortran else arr.reshape(shape)
    if not arr.flags.aligned:
        arr = arr.copy()
    return arr


def _float_from_bits(text: str) -> float:
    value: float = struct.unpack(">d", bytes.fromhex(text))[0]
    return value


class _Decoder:
    def __init__(self, arrays: list[Array]) -> None:
        self.arrays = arrays
        self.objects: dict[
            int, Tensor | Array
        ] = {}  # array index -> the Tensor or array built for it

    def index(self, node: dict[str, Any], kind: str) -> int:
        i = node[kind]
        if type(i) is not int or not 0 <= i < len(self.arrays):
            raise ValueError(f"{kind} index {short_repr(i)} is not an array of the file")
        return i

    def decode(self, node: _Node) -> Any:
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if isinstance(node, dict) and len(node) >= 1:
            if "dict" in node or "odict" in node:
                tag = "dict" if "dict" in node else "odict"
                out = {} if tag == "dict" else collections.OrderedDict()
                for key, value in node[tag]:
                    out[self.decode_key(key)] = self.decode(value)
                return out
            if "list" in node:
                return [self.decode(v) for v in _sequence(node["list"])]
            if "tuple" in node:
                return tuple(self.decode(v) for v in _sequence(node["tuple"]))
            if "float" in node:
                return _float_from_bits(node["float"])
            if "int" in node:
                return int(node["int"], 16)
            if "tensor" in node or "parameter" in node:
                kind = "tensor" if "tensor" in node else "parameter"
                index = self.index(node, kind)
                t = self.make_tensor(self.arrays[index], kind, node.get("requires_grad", False))
                self.objects[index] = t
                return t
            if "ndarray" in node:
                index = self.index(node, "ndarray")
                self.objects[index] = self.arrays[index]
                return self.arrays[index]
            if "ref" in node:
                return self.objects[node["ref"]]
            if "npscalar" in node:
                return self.arrays[self.index(node, "npscalar")][()]
            if "complex" in node:
                re_, im = node["complex"]
                return complex(self.decode(re_), self.decode(im))
            if "bytes" in node:
                return self.arrays[self.index(node, "bytes")].tobytes()
        raise ValueError(f"unknown node {short_repr(node)}")

    def decode_key(self, key: _Node) -> Any:
        value = self.decode(key)
        if isinstance(value, (dict, list)):
            raise ValueError(f"unhashable dict key {short_repr(key)}")
        return value

    @staticmethod
    def make_tensor(arr: Array, kind: str, requires_grad: object) -> Tensor:
        if type(requires_grad) is not bool:
            raise ValueError(f"requires_grad is {short_repr(requires_grad)}, not a bool")
        if requires_grad and arr.dtype.kind not in "fc":
            raise ValueError(
                f"an array of dtype {arr.dtype} is marked as requiring grad; only "
                "floating point tensors can require gradients"
            )
        from ..autograd.creation import from_numpy

        if kind == "parameter":
            from ..nn.parameter import Parameter

            return Parameter(from_numpy(arr), requires_grad=requires_grad)
        t = from_numpy(arr)
        if requires_grad:
            t.requires_grad_(True)
        return t


def _sequence(value: object) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"expected a list, got {short_repr(value)}")
    return value
