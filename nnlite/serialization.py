"""``nl.save`` / ``nl.load``: checkpoints as ``.npz`` archives without pickle.

A checkpoint is a zip archive (numpy's ``.npz`` layout) holding:

* ``a0.npy``, ``a1.npy``, ...: every array and tensor of the saved object, in numpy's ``.npy``
  format (any numeric or bool dtype, any byte order, written without pickle);
* ``header.json``: the structure of the object, in JSON: dicts (with their key types and order),
  lists, tuples, Python scalars and strings, and references to the arrays.

``load`` reads it with ``np.load(..., allow_pickle=False)``, so opening a checkpoint never runs
code from the file. Round trips are exact: dtypes, shapes, bit patterns (NaN payloads, ``-0.0``),
ints versus floats, big ints, dict key types and order. An object saved twice in one structure
(tied weights) is stored once and comes back as one object.

Node encoding in the header (JSON values)::

    null, true, false, 12, 1.5, "text"     None, bools, ints, finite floats, strings
    {"int": "-0x1f..."}                    ints of 2**64 and beyond, in hex
    {"float": "7ff8000000000001"}          other floats (NaN, inf), by their IEEE-754 bits
    {"complex": [re, im]}                  complex numbers (re, im encoded as floats)
    {"list": [...]}, {"tuple": [...]}      sequences
    {"dict": [[key, value], ...]}          dicts (also {"odict": ...} for OrderedDict)
    {"tensor": i, "requires_grad": b}      Tensor stored in a<i>.npy ({"parameter": ...} likewise)
    {"ndarray": i}, {"npscalar": i}        numpy array / numpy scalar stored in a<i>.npy
    {"bytes": i}                           bytes, stored as a uint8 array
    {"ref": n}                             the n-th tensor/array node again (shared object)
"""
import collections
import contextlib
import json
import os
import struct
import tempfile
import zipfile
import zlib

import numpy as np

__all__ = ["save", "load", "CheckpointError"]

FORMAT_NAME = "nnlite-checkpoint"
FORMAT_VERSION = 1
HEADER_NAME = "header.json"

_MAX_KEY_REPR = 60
_BIG_INT = 2 ** 64   # ints at least this large are written as hex strings


class CheckpointError(RuntimeError, ValueError):
    """A file is not a readable nnlite checkpoint (bad zip, truncated, corrupt or foreign)."""


# ---------------------------------------------------------------------------- paths in errors

def _key_repr(key):
    text = repr(key)
    if len(text) > _MAX_KEY_REPR:
        text = text[: _MAX_KEY_REPR - 3] + "..."
    return text


def _describe_path(path):
    return "obj" + "".join(f"[{_key_repr(k)}]" for k in path)


# ---------------------------------------------------------------------------- encoding

def _float_bits(x):
    return struct.pack(">d", x).hex()


def _float_from_bits(text):
    return struct.unpack(">d", bytes.fromhex(text))[0]


def _encode_float(x):
    if x != x or x in (float("inf"), float("-inf")):
        return {"float": _float_bits(x)}
    return x


class _Encoder:
    def __init__(self):
        self.arrays = []
        self.seen = {}            # id(obj) -> array index, for tensors and arrays
        self.keep_alive = []      # objects whose id is in `seen`
        self.active = set()       # ids of the containers on the current path (cycle check)

    def add_array(self, obj, arr, path):
        if arr.dtype.hasobject:
            raise TypeError(
                f"nl.save: cannot save an array of dtype object at {_describe_path(path)} "
                "(checkpoints hold numeric, bool and string arrays only)"
            )
        index = len(self.arrays)
        self.arrays.append(arr)
        self.seen[id(obj)] = index
        self.keep_alive.append(obj)
        return index

    def encode(self, obj, path):
        # the common scalars first; bool before int (bool is a subclass of int)
        if obj is None or obj is True or obj is False or type(obj) is str:
            return obj
        if type(obj) is int:
            return obj if -_BIG_INT < obj < _BIG_INT else {"int": hex(obj)}
        if type(obj) is float:
            return _encode_float(obj)

        from .autograd.tensor import Tensor

        if isinstance(obj, (Tensor, np.ndarray)):
            index = self.seen.get(id(obj))
            if index is not None:
                return {"ref": index}
            if isinstance(obj, Tensor):
                index = self.add_array(obj, obj._data, path)
                kind = "parameter" if _is_parameter(obj) else "tensor"
                return {kind: index, "requires_grad": bool(obj.requires_grad)}
            return {"ndarray": self.add_array(obj, obj, path)}
        if isinstance(obj, np.generic):
            arr = np.asarray(obj)
            if arr.dtype.hasobject:
                raise TypeError(
                    f"nl.save: cannot save a numpy object scalar at {_describe_path(path)}"
                )
            index = len(self.arrays)
            self.arrays.append(arr)
            return {"npscalar": index}

        if isinstance(obj, (dict, list, tuple)):
            key = id(obj)
            if key in self.active:
                raise ValueError(f"nl.save: the object contains itself at {_describe_path(path)}")
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
            index = len(self.arrays)
            self.arrays.append(np.frombuffer(bytes(obj), dtype=np.uint8))
            return {"bytes": index}
        raise TypeError(
            f"nl.save: cannot save an object of type {_type_name(obj)} at "
            f"{_describe_path(path)}; checkpoints hold dicts, lists, tuples, tensors, numpy "
            "arrays, numbers, strings, bytes and None"
        )

    def encode_key(self, key, path):
        if key is None or isinstance(key, (bool, int, str)):
            return self.encode(key, path)
        if isinstance(key, float):
            return _encode_float(float(key))
        raise TypeError(
            f"nl.save: cannot save a dict key of type {_type_name(key)} "
            f"({_key_repr(key)}) in {_describe_path(path)}; keys must be str, int, float, bool "
            "or None"
        )


def _type_name(obj):
    cls = type(obj)
    if cls.__module__ in ("builtins", None):
        return cls.__qualname__
    return f"{cls.__module__}.{cls.__qualname__}"


def _is_parameter(t):
    # checked by name so that saving does not import nnlite.nn
    return any(c.__name__ == "Parameter" and c.__module__.startswith("nnlite.nn")
               for c in type(t).__mro__)


# ---------------------------------------------------------------------------- save

def save(obj, f):
    """Save ``obj`` to ``f`` (a path, or a binary file object opened for writing).

    ``obj`` is a nested structure of dicts (keys: str, int, float, bool, None), lists, tuples,
    Tensors, numpy arrays and scalars, Python numbers, strings, bytes and None -- for example a
    model's or an optimizer's ``state_dict()``. Writing to a path is atomic: the data goes to a
    temporary file in the same directory, which then replaces ``f``.

    Raises:
        TypeError: for an object that cannot be saved, naming where it is
            (``obj['layers'][2]``).

    Example:
        >>> nl.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3},
        ...         "ckpt.npz")
    """
    encoder = _Encoder()
    root = encoder.encode(obj, ())
    header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "arrays": [[a.dtype.str, list(a.shape)] for a in encoder.arrays],
        "root": root,
    }
    header_bytes = json.dumps(header, ensure_ascii=True, allow_nan=False,
                              separators=(",", ":")).encode("ascii")

    if hasattr(f, "write"):
        _write_archive(f, header_bytes, encoder.arrays)
        return

    path = os.fspath(f)
    with replace_atomically(path, _new_file_mode(path)) as out:
        _write_archive(out, header_bytes, encoder.arrays)
    _fsync_directory(os.path.dirname(os.path.abspath(path)))


def _write_archive(fileobj, header_bytes, arrays):
    with zipfile.ZipFile(fileobj, mode="w", compression=zipfile.ZIP_STORED,
                         allowZip64=True) as zf:
        # fixed timestamps: the same object always gives the same bytes
        zf.writestr(zipfile.ZipInfo(HEADER_NAME, date_time=(1980, 1, 1, 0, 0, 0)), header_bytes)
        for i, arr in enumerate(arrays):
            with zf.open(f"a{i}.npy", mode="w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asarray(arr), allow_pickle=False)


@contextlib.contextmanager
def replace_atomically(path, mode=None):
    """A binary file to write ``path`` through: a temporary file in the same folder that is
    flushed, fsynced, given ``mode`` (if not None) and renamed over ``path`` when the block ends,
    and removed if the block raises, so ``path`` is never half written."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(path) + ".",
                               suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


_umask = None


def _new_file_mode(path):
    """Permissions for the saved file: those of the file it replaces, else 0o666 minus umask."""
    global _umask
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        pass
    if _umask is None:
        _umask = os.umask(0o022)
        os.umask(_umask)
    return 0o666 & ~_umask


def _fsync_directory(directory):
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


# ---------------------------------------------------------------------------- load

def load(f, map_location=None, weights_only=True):
    """Load an object saved with :func:`save` from ``f`` (a path or a binary file object).

    Tensors come back as Tensors (same dtype, shape and ``requires_grad``), numpy arrays as
    arrays, and the structure with its exact key types and order. ``map_location`` (``None``
    or ``"cpu"``) and ``weights_only`` are accepted for compatibility with PyTorch; loading never
    unpickles anything.

    Raises:
        FileNotFoundError, PermissionError, IsADirectoryError: if the path cannot be opened.
        CheckpointError: (a ``RuntimeError`` and ``ValueError``) if the file is not a complete
            nnlite checkpoint, naming the file and what is wrong.
    """
    if map_location not in (None, "cpu"):
        raise RuntimeError(
            f"nl.load: nnlite only has the cpu device, got map_location={map_location!r}"
        )
    name = _display_name(f)
    if hasattr(f, "read"):
        header, arrays = _read_archive(f, name)
    else:
        # open errors (missing file, permissions, a directory) propagate as they are
        with open(os.fspath(f), "rb") as fh:
            header, arrays = _read_archive(fh, name)
    try:
        return _Decoder(arrays).decode(header["root"])
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as e:
        raise CheckpointError(f"corrupt nnlite checkpoint: {name} (bad structure: {e!r})") from e


def _read_archive(fh, name):
    """The header and the arrays of the checkpoint in the open binary file ``fh``."""
    try:
        start = fh.tell()
    except (OSError, AttributeError):
        start = 0
    try:
        npz = np.load(fh, allow_pickle=False)
    except (OSError, EOFError, ValueError, zipfile.BadZipFile, zipfile.LargeZipFile) as e:
        raise _bad_file(name, fh, start, e) from e
    if not isinstance(npz, np.lib.npyio.NpzFile):
        raise CheckpointError(
            f"not an nnlite checkpoint: {name} (a single .npy array, not an .npz archive)"
        )
    with npz:
        try:
            raw = npz[HEADER_NAME]
        except KeyError:
            raise CheckpointError(
                f"not an nnlite checkpoint: {name} (a .npz archive without {HEADER_NAME}; "
                "files written by numpy.savez load with numpy.load)"
            ) from None
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as e:
            raise CheckpointError(f"corrupt nnlite checkpoint: {name} ({HEADER_NAME}: {e})") from e
        header = _parse_header(raw, name)
        arrays = []
        for i, (dtype_str, shape) in enumerate(header["arrays"]):
            member = f"a{i}"
            try:
                arr = npz[member]
            except KeyError:
                raise CheckpointError(
                    f"corrupt nnlite checkpoint: {name} (array {member} is missing)"
                ) from None
            except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error) as e:
                raise CheckpointError(
                    f"corrupt nnlite checkpoint: {name} (array {member}: {e})"
                ) from e
            if not isinstance(arr, np.ndarray) or arr.dtype.str != dtype_str or \
                    list(arr.shape) != shape:
                got = (f"dtype {arr.dtype.str}, shape {list(arr.shape)}"
                       if isinstance(arr, np.ndarray) else "not an array")
                raise CheckpointError(
                    f"corrupt nnlite checkpoint: {name} (array {member}: {got}, the header says "
                    f"dtype {dtype_str}, shape {shape})"
                )
            arrays.append(arr)
    return header, arrays


def _display_name(f):
    if hasattr(f, "read"):
        fname = getattr(f, "name", None)
        return fname if isinstance(fname, str) else f"<{type(f).__name__} object>"
    try:
        return os.fsdecode(os.fspath(f))
    except TypeError:
        return repr(f)


def _bad_file(name, fh, start, e):
    """The CheckpointError for a file that ``np.load`` could not open as an archive."""
    if isinstance(e, (zipfile.BadZipFile, EOFError)):
        head = _peek(fh, start, 4)
        if head == b"":
            detail = "empty file"
        elif head == b"PK\x03\x04":
            detail = f"truncated or damaged zip archive: {e}"
        else:
            detail = f"bad zip: {e}"
        return CheckpointError(f"not an nnlite checkpoint: {name} ({detail})")
    if isinstance(e, ValueError) and "allow_pickle" in str(e):
        return CheckpointError(
            f"not an nnlite checkpoint: {name} (neither .npz nor .npy; nl.load does not "
            "unpickle files, e.g. files written by torch.save or pickle)"
        )
    return CheckpointError(f"not an nnlite checkpoint: {name} ({type(e).__name__}: {e})")


def _peek(fh, start, n):
    try:
        fh.seek(start)
        return fh.read(n)
    except (OSError, ValueError, AttributeError):
        return None


def _parse_header(raw, name):
    if isinstance(raw, np.ndarray):
        raise CheckpointError(f"not an nnlite checkpoint: {name} ({HEADER_NAME} is not JSON text)")
    try:
        header = json.loads(raw.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as e:
        raise CheckpointError(f"corrupt nnlite checkpoint: {name} ({HEADER_NAME}: {e})") from e
    if not isinstance(header, dict) or header.get("format") != FORMAT_NAME:
        raise CheckpointError(f"not an nnlite checkpoint: {name} (unknown header format)")
    version = header.get("version")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise CheckpointError(
            f"unsupported nnlite checkpoint: {name} (format version {version!r}; this nnlite "
            f"reads version {FORMAT_VERSION} and older)"
        )
    arrays = header.get("arrays")
    if not isinstance(arrays, list) or "root" not in header or not all(
            isinstance(a, list) and len(a) == 2 and isinstance(a[0], str) and isinstance(a[1], list)
            for a in arrays):
        raise CheckpointError(f"corrupt nnlite checkpoint: {name} (bad header)")
    return header


class _Decoder:
    def __init__(self, arrays):
        self.arrays = arrays
        self.objects = {}      # array index -> the Tensor or array built for it

    def decode(self, node):
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
                return [self.decode(v) for v in node["list"]]
            if "tuple" in node:
                return tuple(self.decode(v) for v in node["tuple"])
            if "float" in node:
                return _float_from_bits(node["float"])
            if "int" in node:
                return int(node["int"], 16)
            if "tensor" in node or "parameter" in node:
                kind = "tensor" if "tensor" in node else "parameter"
                index = node[kind]
                t = self.make_tensor(self.arrays[index], kind, node.get("requires_grad", False))
                self.objects[index] = t
                return t
            if "ndarray" in node:
                index = node["ndarray"]
                arr = self.arrays[index]
                self.objects[index] = arr
                return arr
            if "ref" in node:
                return self.objects[node["ref"]]
            if "npscalar" in node:
                return self.arrays[node["npscalar"]][()]
            if "complex" in node:
                re, im = node["complex"]
                return complex(self.decode(re), self.decode(im))
            if "bytes" in node:
                return self.arrays[node["bytes"]].tobytes()
        raise ValueError(f"unknown node {str(node)[:80]}")

    def decode_key(self, key):
        value = self.decode(key)
        if isinstance(value, (dict, list)):
            raise ValueError(f"unhashable dict key {str(key)[:80]}")
        return value

    @staticmethod
    def make_tensor(arr, kind, requires_grad):
        if kind == "parameter":
            from .nn import Parameter
            return Parameter(_tensor_from_array(arr), requires_grad=bool(requires_grad))
        t = _tensor_from_array(arr)
        if requires_grad:
            t.requires_grad_(True)
        return t


def _tensor_from_array(arr):
    from .autograd.creation import from_numpy
    return from_numpy(arr)
