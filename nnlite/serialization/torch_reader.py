"""Reading ``torch.save`` files without PyTorch and without running pickled code.

A PyTorch checkpoint is a pickle whose tensors point at storages kept outside it: members
``<archive>/data/<key>`` of a zip (PyTorch 1.6 and later), or raw blocks after the pickles in
the legacy format. The pickle is read by an allow-list unpickler (the globals
``torch.load(weights_only=True)`` needs for tensors, storages and plain containers); tensors
become placeholders while unpickling and then views of their storage, so tensors that shared a
storage share memory afterwards, as in PyTorch. Memory is bounded by the file: each storage
must hold exactly the bytes it declares, and each tensor must fit inside its storage.
"""

from __future__ import annotations

import collections
import io
import pickle
import pickletools
import struct
import types
import warnings
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any, NoReturn

import numpy as np

from ._bounded_repr import error_text, short_repr
from ._dtypes import bfloat16_to_float32
from ._errors import CheckpointError, WeightsOnlyError
from .allowlist import allowed_by_user
from .safe_pickle import (
    Budget,
    Charged,
    ChargedCall,
    Named,
    RestrictedUnpickler,
    UnpicklingRefused,
    charged,
    named,
)
from .torch_writer import WRITER_RECORD

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor
    from ._zip import ZipReader
    from .safe_pickle import Allowed

__all__ = ["read_torch_zip", "read_torch_legacy"]

_STORAGE_DTYPES = {
    "FloatStorage": "f4",
    "DoubleStorage": "f8",
    "HalfStorage": "f2",
    "BFloat16Storage": "bf16",
    "LongStorage": "i8",
    "IntStorage": "i4",
    "ShortStorage": "i2",
    "CharStorage": "i1",
    "ByteStorage": "u1",
    "BoolStorage": "b1",
    "ComplexFloatStorage": "c8",
    "ComplexDoubleStorage": "c16",
}
_TORCH_DTYPES = {
    "float16": "float16",
    "half": "float16",
    "float32": "float32",
    "float": "float32",
    "float64": "float64",
    "double": "float64",
    "int8": "int8",
    "uint8": "uint8",
    "int16": "int16",
    "short": "int16",
    "int32": "int32",
    "int": "int32",
    "int64": "int64",
    "long": "int64",
    "bool": "bool",
    "bfloat16": "float32",
}
_BUDGET_FACTOR = 2
_MAX_EXTENT = 1 << 48  # sizes, strides and offsets beyond this fit no storage numpy can map
_MIN_BUDGET = 1 << 20
# bytes charged for what the allowed callables build (about what CPython allocates)
_TENSOR_COST = 128  # a tensor or parameter placeholder (its Tensor comes later, one per spec)
_STORAGE_COST = 64  # a storage record
_ENTRY_COST = 100  # an OrderedDict entry (a dict slot and a link of its order)
_ITEM_COST = 8  # a pointer in a tuple, a list, a set's table (x2)
_LATIN1 = ("latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1")


class _StorageType:
    __slots__ = ("name", "dtype")

    def __init__(self, name: str, dtype: str | None) -> None:
        self.name, self.dtype = name, dtype


class _Storage:
    """A storage named by the pickle: its key, dtype code and element count."""

    __slots__ = ("key", "dtype", "numel")

    def __init__(self, key: str, dtype: str, numel: int) -> None:
        self.key, self.dtype, self.numel = key, dtype, numel


class _TensorSpec:
    """A tensor to build once the storages are read (no ``__dict__``: a pickle's ``BUILD``
    cannot change it)."""

    __slots__ = ("storage", "offset", "size", "stride", "requires_grad", "parameter")

    def __init__(
        self,
        storage: object,
        offset: Any,
        size: Sequence[Any],
        stride: Sequence[Any],
        requires_grad: Any,
    ) -> None:
        # the values come from the file: checked when the tensor is built (``_Converter``)
        if not isinstance(storage, _Storage):
            raise TypeError(f"a tensor's storage must be a storage, got {type(storage).__name__}")
        self.storage: _Storage = storage
        self.offset = offset
        self.size, self.stride = tuple(size), tuple(stride)
        self.requires_grad = requires_grad
        self.parameter = False


def _rebuild_tensor_v2(
    storage: object,
    storage_offset: Any,
    size: Sequence[Any],
    stride: Sequence[Any],
    requires_grad: Any = False,
    backward_hooks: object = None,
    metadata: object = None,
) -> _TensorSpec:
    return _TensorSpec(storage, storage_offset, size, stride, requires_grad)


def _rebuild_tensor(
    storage: object, storage_offset: Any, size: Sequence[Any], stride: Sequence[Any]
) -> _TensorSpec:
    return _TensorSpec(storage, storage_offset, size, stride, False)


def _rebuild_parameter(
    data: object, requires_grad: Any, backward_hooks: object, state: object = None
) -> _TensorSpec:
    if not isinstance(data, _TensorSpec):
        raise TypeError(f"a parameter's data must be a tensor, got {type(data).__name__}")
    spec = _TensorSpec(data.storage, data.offset, data.size, data.stride, requires_grad)
    spec.parameter = True
    return spec


def _rebuild_from_type_v2(
    func: Callable[..., Any], new_type: object, args: Sequence[Any], state: object
) -> Any:
    if new_type not in (_TENSOR_TYPE, _PARAMETER_TYPE):
        raise TypeError("only plain tensors and parameters can be rebuilt")
    # func comes from the file: only the (charged) rebuild functions may be called here
    if not (func in _REBUILDERS or (isinstance(func, ChargedCall) and func.fn in _REBUILDERS)):
        raise TypeError(f"_rebuild_from_type_v2 calls {short_repr(func)}, not a tensor rebuild")
    if type(args) is not tuple:
        raise TypeError("_rebuild_from_type_v2 needs a tuple of arguments")
    return func(*args)


_REBUILDERS = (_rebuild_tensor_v2, _rebuild_tensor, _rebuild_parameter)


_TENSOR_TYPE = _StorageType("Tensor", None)
_PARAMETER_TYPE = _StorageType("Parameter", None)


def _length(x: Any) -> int:
    try:
        return len(x)
    except TypeError:
        return 0


def _tensor_cost(
    storage: object = None, offset: object = None, size: Any = (), stride: Any = (), *rest: object
) -> int:
    return _TENSOR_COST + _ITEM_COST * (_length(size) + _length(stride))


def _parameter_cost(*args: object) -> int:
    return _TENSOR_COST


def _latin1_cost(text: object, encoding: object = "utf-8", *errors: object) -> int:
    """What ``_codecs.encode(text, encoding)`` builds, for the one form pickles write
    (``bytes`` under protocol 2: a str encoded as latin-1); other forms are refused."""
    if type(text) is not str or not isinstance(encoding, str) or errors:
        raise TypeError("_codecs.encode is only allowed as pickle writes bytes: (str, 'latin1')")
    if encoding.lower() not in _LATIN1:
        raise TypeError(f"_codecs.encode with encoding {short_repr(encoding)} is not allowed")
    return len(text)


def _bytearray_cost(source: object = b"", *encoding: object) -> int:
    if encoding:
        return _latin1_cost(source, *encoding)
    if type(source) is int:
        if source < 0:
            raise ValueError("negative count")
        return source
    if isinstance(source, (bytes, bytearray)):
        return len(source)
    raise TypeError(f"bytearray from a {type(source).__name__} is not allowed")


def _items_cost(each: int) -> Callable[..., int]:
    def cost(items: object = (), *rest: object) -> int:
        if rest:
            raise TypeError("one argument expected")
        return each * _length(items)

    return cost


def _allowed_globals() -> Allowed:
    import codecs

    from ..autograd import dtypes as nl_dtypes

    # every callable charged by what it builds; the other names are arguments, never called
    allowed: Allowed = {
        ("collections", "OrderedDict"): charged(collections.OrderedDict, _items_cost(_ENTRY_COST)),
        ("torch._utils", "_rebuild_tensor_v2"): charged(_rebuild_tensor_v2, _tensor_cost),
        ("torch._utils", "_rebuild_tensor"): charged(_rebuild_tensor, _tensor_cost),
        ("torch._utils", "_rebuild_parameter"): charged(_rebuild_parameter, _parameter_cost),
        ("torch._utils", "_rebuild_parameter_with_state"): charged(
            _rebuild_parameter, _parameter_cost
        ),
        ("torch._tensor", "_rebuild_from_type_v2"): charged(_rebuild_from_type_v2, lambda *a: 0),
        ("torch", "Tensor"): named(_TENSOR_TYPE),
        ("torch.nn.parameter", "Parameter"): named(_PARAMETER_TYPE),
        ("torch", "Size"): charged(tuple, _items_cost(_ITEM_COST)),
        ("torch", "device"): charged(lambda *a: "cpu", lambda *a: 0),
        ("_codecs", "encode"): charged(codecs.encode, _latin1_cost),
        ("builtins", "bytearray"): charged(bytearray, _bytearray_cost),
        ("builtins", "set"): charged(set, _items_cost(2 * _ITEM_COST)),
        ("builtins", "frozenset"): charged(frozenset, _items_cost(2 * _ITEM_COST)),
        ("builtins", "complex"): charged(complex, lambda *a: 32),
    }
    for name, dtype in _STORAGE_DTYPES.items():
        allowed[("torch", name)] = named(_StorageType(name, dtype))
    for name, nl_name in _TORCH_DTYPES.items():
        allowed[("torch", name)] = named(getattr(nl_dtypes, nl_name))
    return allowed


def warn_unpickling(name: str) -> None:
    """The warning of ``nl.load(weights_only=False)`` on a file nl.save did not write."""
    warnings.warn(
        f"nl.load(weights_only=False) is unpickling {name}, which was not written by nl.save. "
        "Unpickling runs whatever functions the file names, so a malicious file can run any "
        "code on this machine. Only do this with files from a source you trust; "
        "weights_only=True (the default) loads tensors and plain containers without running "
        "code, and add_safe_globals allowlists the classes you trust.",
        UserWarning,
        stacklevel=6,  # the caller of nl.load
    )


def _is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def _refusal(module: str, name: str) -> str:
    if module.startswith("torch.nn.modules"):
        return (
            f"it holds a whole model (the global {module}.{name}); nnlite cannot "
            "rebuild PyTorch's classes: in PyTorch, save model.state_dict() instead of the model"
        )
    if _is_torch(module):
        return (
            f"the global {module}.{name} is not allowed: nnlite rebuilds PyTorch's tensors, "
            "storages, dtypes and plain containers, not PyTorch's other objects; if the file "
            "holds a whole model, save model.state_dict() instead"
        )
    full = f"{module}.{name}"
    return (
        f"Weights only load failed: the global {full} was not an allowed global by default. "
        "This file can still be loaded, in two ways; take either only if you trust the source "
        "of the checkpoint. (1) Re-running nl.load with weights_only=False will likely "
        "succeed, but it can result in arbitrary code execution. (2) To load with "
        f"weights_only=True, use nnlite.serialization.add_safe_globals([{full}]) or the "
        f"nnlite.serialization.safe_globals([{full}]) context manager to allowlist this global "
        "if you trust this class/function"
    )


class _FullUnpickler(pickle.Unpickler):
    """``weights_only=False``: any global is imported and called, as Python's pickle does,
    except PyTorch's (its tensor forms map to nnlite's, its other objects are refused)."""

    def __init__(
        self,
        data: bytes,
        torch_globals: Allowed,
        persistent_load: Callable[[Any], Any],
    ) -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8")
        self._torch_globals = torch_globals
        self._persistent = persistent_load

    def find_class(self, module: str, name: str) -> Any:
        if _is_torch(module):
            obj = self._torch_globals.get((module, name))
            if obj is None:
                raise UnpicklingRefused(_refusal(module, name), forbidden=True)
            if isinstance(obj, Named):
                return obj.obj
            return obj.fn if isinstance(obj, Charged) else obj
        return super().find_class(module, name)

    def persistent_load(self, pid: Any) -> Any:
        return self._persistent(pid)


class _Reading:
    """The state of one PyTorch file being read: its storages and error messages.
    ``weights_only=False`` unpickles any object the file names (the user trusts it)."""

    def __init__(
        self, name: str, file_size: int, weights_only: bool = True, member: str = "data.pkl"
    ) -> None:
        self.name = name
        self.member = member  # what the messages name: the pickle's member, or a legacy part
        self.storages: dict[str, _Storage] = {}
        self.budget = Budget(max(_BUDGET_FACTOR * file_size, _MIN_BUDGET))
        self.weights_only = weights_only
        # the user's allow-list: these objects, and instances of these classes, may appear
        self.user_globals = allowed_by_user() if weights_only else {}
        self.user_classes = tuple(o for o in self.user_globals.values() if isinstance(o, type))

    def fail(self, problem: str, prefix: str = "corrupt PyTorch checkpoint") -> NoReturn:
        raise CheckpointError(f"{prefix}: {self.name} ({self.member}: {problem})")

    def buildable(self, obj: object) -> bool:
        """Whether a pickle's ``BUILD`` may set ``obj``'s state: instances of the user's
        allowed classes only (as PyTorch: never a shared object, a class or a function)."""
        return type(obj) in self.user_classes

    def persistent_load(self, pid: Any, legacy: bool = False) -> _Storage:
        if not (
            isinstance(pid, tuple) and len(pid) == (6 if legacy else 5) and pid[0] == "storage"
        ):
            raise UnpicklingRefused(f"unknown persistent id {short_repr(pid)}")
        _, storage_type, key, _location, numel = pid[:5]
        if not isinstance(storage_type, _StorageType) or storage_type.dtype is None:
            raise UnpicklingRefused(f"unknown storage type {short_repr(storage_type)}")
        if not isinstance(key, str) or type(numel) is not int or numel < 0:
            raise UnpicklingRefused(f"bad storage record {short_repr(pid)}")
        if legacy and pid[5] is not None:
            raise UnpicklingRefused("storage views of the legacy format are not supported")
        known = self.storages.get(key)
        if known is not None:
            if (known.dtype, known.numel) != (storage_type.dtype, numel):
                raise UnpicklingRefused(f"storage {short_repr(key)} declared twice, differently")
            return known
        self.budget.charge(_STORAGE_COST + len(key), "a storage record")
        storage = _Storage(key, storage_type.dtype, numel)
        self.storages[key] = storage
        return storage

    def unpickle(self, data: bytes | bytearray, legacy: bool = False) -> Any:
        def persistent_load(pid: Any) -> _Storage:
            return self.persistent_load(pid, legacy)

        try:
            if not self.weights_only:
                torch_globals = _allowed_globals()
                torch_globals[("torch", "device")] = _nl_device
                return self._unpickle_everything(data, torch_globals, persistent_load)
            allowed = _allowed_globals()
            allowed.update(self.user_globals)
            return RestrictedUnpickler(
                bytes(data),
                allowed,
                _refusal,
                self.budget,
                persistent_load=persistent_load,
                buildable=self.buildable,
                encoding="utf-8",
            ).load()
        except UnpicklingRefused as e:
            if e.refused_global is not None and not _is_torch(e.refused_global):
                raise WeightsOnlyError(
                    f"refusing to load: {self.name} ({self.member}: {e})"
                ) from None
            self.fail(str(e), "refusing to load" if e.forbidden else "corrupt PyTorch checkpoint")

    def _unpickle_everything(
        self,
        data: bytes | bytearray,
        torch_globals: Allowed,
        persistent_load: Callable[[Any], Any],
    ) -> Any:
        """``weights_only=False``: Python's pickle; what it raises (the file's code may raise
        anything) becomes a CheckpointError naming the file, the original chained."""
        try:
            return _FullUnpickler(bytes(data), torch_globals, persistent_load).load()
        except (UnpicklingRefused, CheckpointError):
            raise
        except RecursionError:
            self.fail("the structure is nested too deeply")
        except Exception as e:
            raise CheckpointError(
                f"corrupt PyTorch checkpoint: {self.name} ({self.member}: {error_text(e)})"
            ) from e

    def convert(self, obj: object, arrays: dict[str, Array]) -> Any:
        try:
            return _Converter(self, arrays).convert(obj)
        except CheckpointError:
            raise
        except RecursionError:
            self.fail("the structure is nested too deeply")
        except (TypeError, ValueError, OverflowError, KeyError, IndexError, AttributeError) as e:
            self.fail(error_text(e))


def _storage_array(raw: Any, code: str, byteorder: str) -> Array:
    # ``raw``: bytes, a memoryview or a memory-mapped uint8 array
    """The typed array over the raw bytes ``raw`` of a storage (float32 for bfloat16)."""
    if code == "bf16":
        return bfloat16_to_float32(np.frombuffer(raw, byteorder + "u2"))
    dtype = np.dtype(code if code in ("b1", "u1", "i1") else byteorder + code)
    if code == "b1":
        dtype = np.dtype("?")
    arr = np.frombuffer(raw, dtype)
    if not dtype.isnative:
        arr = arr.astype(dtype.newbyteorder("="))
    return arr


def _contiguous_strides(size: Sequence[int]) -> tuple[int, ...]:
    strides: list[int] = []
    step = 1
    for d in reversed(size):
        strides.append(step)
        step *= max(d, 1)
    return tuple(strides[::-1])


def _itemsize(code: str) -> int:
    return 2 if code == "bf16" else np.dtype(code if code != "b1" else "?").itemsize


def _nl_device(*args: Any) -> Any:  # an nl.device
    from ..device import device

    return device(*args)


class _Converter:
    """Placeholders to Tensors and the unpickled containers to fresh ones, each object once.
    Other objects (instances of allowed classes, or anything under ``weights_only=False``)
    stay themselves, with the placeholders in their attributes replaced."""

    def __init__(self, reading: _Reading, arrays: dict[str, Array]) -> None:
        self.reading = reading
        self.arrays = arrays
        self.memo: dict[int, Any] = {}
        user = reading.user_globals.values()
        self.user_objects = {id(obj) for obj in user}
        self.user_classes = reading.user_classes

    def convert(self, obj: Any) -> Any:
        if obj is None or isinstance(obj, (bool, int, float, complex, str, bytes)):
            return obj
        done = self.memo.get(id(obj))
        if done is not None:
            return done
        if isinstance(obj, _TensorSpec):
            out = self.tensor(obj)
        elif type(obj) in (dict, collections.OrderedDict):
            out = type(obj)()
            self.memo[id(obj)] = out
            for k, v in obj.items():
                out[self.convert(k)] = self.convert(v)
        elif type(obj) is list:
            out = []
            self.memo[id(obj)] = out
            out.extend(self.convert(v) for v in obj)
        elif type(obj) in (tuple, set, frozenset):
            out = type(obj)(self.convert(v) for v in obj)
        elif type(obj) is bytearray or type(obj).__module__ == "nnlite.autograd.dtypes":
            out = obj
        elif not self.reading.weights_only or id(obj) in self.user_objects:
            out = self.attributes(obj)
        elif self.user_classes and isinstance(obj, self.user_classes):
            out = self.attributes(obj)
        else:
            self.reading.fail(f"unexpected object of type {type(obj).__name__}")
        self.memo[id(obj)] = out
        return out

    def attributes(self, obj: Any) -> Any:
        """``obj`` itself, its attributes converted in place (classes and functions as they
        are)."""
        self.memo[id(obj)] = obj
        if isinstance(obj, dict):  # defaultdict (an optimizer's state), Counter, ...
            items = list(obj.items())
            obj.clear()
            for key, value in items:
                obj[self.convert(key)] = self.convert(value)
        elif isinstance(obj, list):
            obj[:] = [self.convert(v) for v in obj]
        state = getattr(obj, "__dict__", None)
        if isinstance(state, dict) and not isinstance(
            obj, (type, types.FunctionType, types.BuiltinFunctionType, types.ModuleType)
        ):
            for key, value in list(state.items()):
                state[key] = self.convert(value)
        return obj

    def tensor(self, spec: _TensorSpec) -> Tensor:
        reading = self.reading
        storage = spec.storage
        base = self.arrays[storage.key]
        size, stride, offset = spec.size, spec.stride, spec.offset
        if not (
            all(type(d) is int and 0 <= d < _MAX_EXTENT for d in size + stride)
            and len(size) == len(stride)
            and type(offset) is int
            and 0 <= offset < _MAX_EXTENT
        ):
            reading.fail(
                f"a tensor of storage {short_repr(storage.key)} has size {short_repr(size)}, "
                f"stride {short_repr(stride)}, offset {short_repr(offset)}"
            )
        numel = 1
        last = offset
        for d, s in zip(size, stride):
            numel *= d
            last += (d - 1) * s if d else 0
        if numel and (last >= storage.numel or numel > storage.numel):
            reading.fail(
                f"a tensor of size {size}, stride {stride}, offset {offset} does not fit "
                f"in its storage {short_repr(storage.key)} of {storage.numel} elements"
            )
        itemsize = base.dtype.itemsize
        if not numel:
            arr = np.zeros(size, base.dtype)
        elif stride == _contiguous_strides(size):
            arr = base[offset : offset + numel].reshape(size)
        else:
            arr = np.lib.stride_tricks.as_strided(
                base[offset:], shape=size, strides=[s * itemsize for s in stride]
            )
        requires_grad = spec.requires_grad
        if type(requires_grad) is not bool:
            reading.fail(f"requires_grad is {short_repr(requires_grad)}, not a bool")
        if requires_grad and arr.dtype.kind not in "fc":
            reading.fail(
                f"a tensor of dtype {arr.dtype} is marked as requiring grad; only "
                "floating point tensors can require gradients"
            )
        from ..autograd.creation import from_numpy

        try:
            t = from_numpy(arr)
        except TypeError as e:
            reading.fail(
                f"storage {short_repr(storage.key)}: {e}", prefix="unsupported PyTorch checkpoint"
            )
        if spec.parameter:
            from ..nn.parameter import Parameter

            return Parameter(t, requires_grad=requires_grad)
        if requires_grad:
            t.requires_grad_(True)
        return t


# ---------------------------------------------------------------------------- zip format


def read_torch_zip(
    reader: ZipReader, mmap_path: str | None = None, weights_only: bool = True
) -> Any:
    """The object in the ``torch.save`` zip archive open in ``reader`` (a ``ZipReader``);
    ``weights_only=False`` unpickles whatever the file holds (see :class:`_FullUnpickler`)."""
    reader.kind = "PyTorch checkpoint"
    pickles = [n for n in reader.names() if n == "data.pkl" or n.endswith("/data.pkl")]
    if len(pickles) > 1:  # readers would disagree on which one is the checkpoint
        reader.fail(
            f"it holds {len(pickles)} pickles ({short_repr(pickles)}); a checkpoint has one",
            prefix="refusing to load",
        )
    pkl = pickles[0]
    prefix = pkl[: -len("data.pkl")]
    byteorder = "<"
    if prefix + "byteorder" in reader:
        text = bytes(reader.read(prefix + "byteorder", "byteorder", limit=16))
        if text not in (b"little", b"big"):
            reader.fail(f"byteorder is {text[:16]!r}")
        byteorder = "<" if text == b"little" else ">"
    if not weights_only and prefix + WRITER_RECORD not in reader:
        warn_unpickling(reader.name)
    reading = _Reading(reader.name, reader.file_size, weights_only, member=pkl)
    obj = reading.unpickle(reader.read(pkl, "data.pkl"))
    arrays: dict[str, Array] = {}
    for key, storage in reading.storages.items():
        member = f"{prefix}data/{key}"
        if member not in reader:
            reader.fail(f"storage {short_repr(key)} is missing")
        nbytes = storage.numel * _itemsize(storage.dtype)
        if reader.size(member) != nbytes:
            reader.fail(
                f"storage {short_repr(key)} declares {storage.numel} elements ({nbytes} bytes) but "
                f"its member holds {reader.size(member)} bytes"
            )
        offset = reader.data_offset(member) if mmap_path else None
        if mmap_path is not None and offset is not None and nbytes:
            raw = np.memmap(mmap_path, dtype=np.uint8, mode="c", offset=offset, shape=(nbytes,))
        else:
            raw = reader.read(member, f"storage {short_repr(key)}")
        arrays[key] = _storage_array(raw, storage.dtype, byteorder)
    return reading.convert(obj, arrays)


# ---------------------------------------------------------------------------- legacy format

_LEGACY_MAGIC = 0x1950A86A20F9469CFC6C
_LEGACY_PROTOCOL = 1001


def read_torch_legacy(fh: IO[bytes], name: str) -> Any:
    """The object in a legacy (before PyTorch 1.6) ``torch.save`` file open in ``fh``: pickles
    of the magic number, the protocol version, the system info, the object and the storage keys,
    then each storage as an int64 element count and its bytes."""
    data = bytearray(fh.read())
    reading = _Reading(name, len(data), member="legacy pickle")
    pos = 0
    parts: list[tuple[int, int]] = []
    for _ in range(4):
        end = _pickle_end(data, pos, reading)
        parts.append((pos, end))
        pos = end
    magic = reading.unpickle(data[parts[0][0] : parts[0][1]])
    version = reading.unpickle(data[parts[1][0] : parts[1][1]])
    if magic != _LEGACY_MAGIC or version != _LEGACY_PROTOCOL:
        reading.fail(f"legacy header {short_repr(magic)}, protocol {short_repr(version)}")
    sys_info = reading.unpickle(data[parts[2][0] : parts[2][1]])
    little = not isinstance(sys_info, dict) or sys_info.get("little_endian", True)
    obj = reading.unpickle(data[parts[3][0] : parts[3][1]], legacy=True)
    end = _pickle_end(data, pos, reading)
    keys = reading.unpickle(data[pos:end])
    pos = end
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        reading.fail("the storage key list is not a list of strings")
    arrays: dict[str, Array] = {}
    view = memoryview(data)
    byteorder = "<" if little else ">"
    for key in keys:
        storage = reading.storages.get(key)
        if storage is None:
            reading.fail(f"storage {short_repr(key)} is listed but no tensor uses it")
        if pos + 8 > len(data):
            reading.fail(f"truncated before storage {short_repr(key)}")
        (numel,) = struct.unpack(byteorder + "q", data[pos : pos + 8])
        nbytes = storage.numel * _itemsize(storage.dtype)
        if numel != storage.numel or pos + 8 + nbytes > len(data):
            reading.fail(
                f"storage {short_repr(key)} declares {storage.numel} elements; the file holds "
                f"{numel} and {len(data) - pos - 8} bytes remain"
            )
        arrays[key] = _storage_array(view[pos + 8 : pos + 8 + nbytes], storage.dtype, byteorder)
        pos += 8 + nbytes
    missing = set(reading.storages) - set(arrays)
    if missing:
        reading.fail(f"storage {short_repr(min(missing))} is missing")
    return reading.convert(obj, arrays)


def _pickle_end(data: bytearray, start: int, reading: _Reading) -> int:
    stream = io.BytesIO(data)
    stream.seek(start)
    try:
        for opcode, _, pos in pickletools.genops(stream):
            if opcode.name == "STOP" and pos is not None:  # (a BytesIO: always a position)
                return pos + 1
    except Exception as e:  # pickletools' ValueError on truncated or malformed input
        reading.fail(f"malformed pickle at byte {start}: {e}")
    reading.fail(f"truncated pickle at byte {start}")
