"""Whole objects (a model, a dict holding models, an optimizer) pickled in PyTorch's zip layout,
as ``torch.save(model, f)`` writes them.

Python's pickler writes the object graph; tensors inside it take PyTorch's form (a call of
``torch._utils._rebuild_tensor_v2`` on a storage kept outside the pickle, parameters wrapped in
``_rebuild_parameter``, dtypes as ``torch.float32`` ...), so the tensors of such a file load as
those of a state dict, and the reader's allow-list decides about every other global (the
classes). The pickler is Python's own pure-Python one, because it lets PyTorch's global names
be written without importing PyTorch.
"""

from __future__ import annotations

import collections
import pickle
from typing import IO, TYPE_CHECKING, Any

from .torch_writer import contiguous_strides, storage_bytes, storage_type_name, write_zip

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor

__all__ = ["write_object"]


class _Global:
    """A global written by name (``torch._utils._rebuild_tensor_v2``) without importing it."""

    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def __call__(
        self, *args: object
    ) -> None:  # the pickler writes only callables as a reduce's function
        raise TypeError(f"{self.module}.{self.name} is a name to pickle, not to call")


class _StorageRef:
    """A storage of the file: pickled as a persistent id, its bytes kept as a zip member."""

    __slots__ = ("record",)

    def __init__(self, record: tuple[Any, ...]) -> None:
        self.record = record


_REBUILD_TENSOR = _Global("torch._utils", "_rebuild_tensor_v2")
_REBUILD_PARAMETER = _Global("torch._utils", "_rebuild_parameter")
_DEVICE = _Global("torch", "device")


class _ObjectPickler(pickle._Pickler):
    """Protocol 2 (as ``torch.save``), with nnlite's tensors, dtypes and devices written as
    PyTorch writes its own."""

    dispatch = dict(pickle._Pickler.dispatch)

    if TYPE_CHECKING:  # the pure-Python pickler's own methods, which typeshed leaves out

        def write(self, data: bytes) -> None: ...

        def memoize(self, obj: object) -> None: ...

        def save_reduce(self, func: Any, args: Any, obj: object = None) -> None: ...

    def __init__(self, file: IO[bytes]) -> None:
        super().__init__(file, protocol=2)
        self.storages: list[Array] = []

    def persistent_id(self, obj: object) -> Any:
        if isinstance(obj, _StorageRef):
            return obj.record
        return None

    def reducer_override(self, obj: object) -> Any:
        from ..autograd.dtypes import dtype
        from ..autograd.tensor import Tensor
        from ..device import device

        if isinstance(obj, Tensor):
            return self._tensor(obj)
        if isinstance(obj, dtype):
            return obj.name  # written by save_global below as torch.<name>
        if isinstance(obj, device):
            return (_DEVICE, (str(obj),))
        return NotImplemented

    def save_global(self, obj: object, name: str | None = None) -> None:
        from ..autograd.dtypes import dtype

        if isinstance(obj, dtype):
            obj = _Global("torch", obj.name)
        if not isinstance(obj, _Global):
            # the pure-Python pickler's method, which typeshed leaves out
            super().save_global(obj, name)  # type: ignore[misc]
            return
        self.write(f"c{obj.module}\n{obj.name}\n".encode("ascii"))
        self.memoize(obj)
        return None

    # pickle's dispatch table is typed for the C pickler's methods; this is the Python one's
    dispatch[_Global] = save_global  # type: ignore[assignment]

    def _tensor(self, t: Tensor) -> tuple[Any, tuple[Any, ...]]:
        from .npz import is_parameter

        arr = t._data
        key = str(len(self.storages))
        record = ("storage", _Global("torch", storage_type_name(arr, ())), key, "cpu", arr.size)
        self.storages.append(storage_bytes(arr))
        ref = _StorageRef(record)
        requires_grad = bool(t.requires_grad)
        hooks: collections.OrderedDict[Any, Any] = collections.OrderedDict()
        if is_parameter(t):
            data = (
                _REBUILD_TENSOR,
                (ref, 0, arr.shape, contiguous_strides(arr.shape), False, hooks),
            )
            return (_REBUILD_PARAMETER, (_Rebuild(*data), requires_grad, collections.OrderedDict()))
        return (
            _REBUILD_TENSOR,
            (ref, 0, arr.shape, contiguous_strides(arr.shape), requires_grad, hooks),
        )


class _Rebuild:
    """A nested call in a reduce's arguments (the tensor inside a parameter)."""

    __slots__ = ("reduce",)

    def __init__(self, func: _Global, args: tuple[Any, ...]) -> None:
        self.reduce = (func, args)


def _save_rebuild(pickler: _ObjectPickler, obj: _Rebuild) -> None:
    pickler.save_reduce(*obj.reduce, obj=obj)


# typed for the C pickler's methods, as above
_ObjectPickler.dispatch[_Rebuild] = _save_rebuild  # type: ignore[assignment]


def write_object(obj: object, fileobj: IO[bytes], archive: str = "archive") -> None:
    """Pickle ``obj`` (any picklable object) to the binary file ``fileobj`` in PyTorch's zip
    layout, its tensors' data as storage members."""
    import io

    buffer = io.BytesIO()
    pickler = _ObjectPickler(buffer)
    try:
        pickler.dump(obj)
    except (pickle.PicklingError, TypeError, AttributeError) as e:
        raise TypeError(f"nl.save: cannot pickle the object: {e}") from e
    write_zip(fileobj, archive, buffer.getvalue(), pickler.storages)
