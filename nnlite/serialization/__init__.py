"""``nl.save`` / ``nl.load``: checkpoints in three formats, none of which runs code on a default
load.

* ``.pth``, ``.pt`` (``format="torch"``): PyTorch's zip format, read by
  ``torch.load(weights_only=True)``;
* ``.safetensors`` (``format="safetensors"``): safetensors, read by any safetensors library;
* anything else (``format="npz"``): nnlite's ``.npz``, read by ``nl.load`` and ``numpy.load``.

``load`` recognises the format from the file's first bytes, whatever its name: an nnlite
``.npz`` (:mod:`.npz`), a ``torch.save`` file, zip or legacy (:mod:`.torch_reader`, through an
allow-list unpickler), or safetensors (:mod:`.safetensors_format`). Every damaged, foreign or
hostile file raises :class:`CheckpointError` naming the file and the problem, with memory
bounded by the file's size.

Objects other than data (a whole model, an optimizer) are pickled in PyTorch's zip layout
(:mod:`.object_pickle`), as ``torch.save`` does. As in PyTorch, ``load`` refuses the classes such
a file names unless the user allowlists them (:mod:`.allowlist`) or passes
``weights_only=False``, which unpickles the file as Python's pickle does (running any code the
file names: ``load`` warns when the file was not written by ``save``).
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING, Any, cast

from .._runtime import atomic_file as _atomic
from .._runtime.atomic_file import replace_atomically
from ._errors import CheckpointError, WeightsOnlyError
from ._zip import ZIP_MAGIC, ZipReader
from .allowlist import add_safe_globals, clear_safe_globals, get_safe_globals, safe_globals
from .npz import HEADER_NAME, read_npz, write_npz
from .pickle_options import check_save_options, resolve_weights_only

if TYPE_CHECKING:
    from .._typing import FileLike
    from ..autograd.tensor import Tensor
    from ._zip import ZipReader as _ZipReader

__all__ = [
    "save",
    "load",
    "save_file",
    "load_file",
    "add_safe_globals",
    "clear_safe_globals",
    "get_safe_globals",
    "safe_globals",
    "CheckpointError",
    "WeightsOnlyError",
    "replace_atomically",
]

_FORMATS = ("npz", "torch", "safetensors")
_SUFFIX_FORMATS = {".pth": "torch", ".pt": "torch", ".safetensors": "safetensors"}
_DATA_TYPES = (bool, int, float, complex, str, bytes, bytearray)
_TORCH_LEGACY_MAGIC = b"\x80\x02\x8a\x0a\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19"


def save(
    obj: object,
    f: FileLike,
    format: str | None = None,
    *,
    pickle_module: Any = None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Save ``obj`` to ``f`` (a path, or a binary file object opened for writing).

    ``obj`` is usually a nested structure of dicts (keys: str, int, float, bool, None), lists,
    tuples, Tensors, numpy arrays and scalars, Python numbers, strings, bytes and None -- for
    example a model's or an optimizer's ``state_dict()``. The format follows ``format``
    (``"npz"``, ``"torch"`` or ``"safetensors"``), else the suffix: ``.pth``/``.pt`` write
    PyTorch's zip format (``torch.load`` reads it), ``.safetensors`` a safetensors file (a flat
    dict of tensors), anything else nnlite's ``.npz``. Any other object (a whole model, an
    optimizer) is pickled in PyTorch's zip format whatever the name, as ``torch.save`` does;
    ``nl.load`` reads it back with ``weights_only=False`` or with its classes allowlisted
    (:func:`add_safe_globals`). Writing to a path is atomic: the data goes to a temporary file in
    the same directory, which then replaces ``f``.

    Args:
        obj: what to save (see above).
        f (str, os.PathLike or binary file): where to write.
        format (str, optional): ``"npz"``, ``"torch"`` or ``"safetensors"``; by default from the suffix.
        pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record:
            PyTorch's keywords; only their defaults (Python's pickle, protocol 2, the zip format
            with its byte order record), the format nnlite writes, are accepted.

    Raises:
        TypeError: for an object the format cannot hold, naming where it is
            (``obj['layers'][2]``), or one that cannot be pickled.

    Examples:
        >>> model = nl.nn.Linear(4, 2)
        >>> opt = nl.optim.SGD(model.parameters(), lr=0.1)
        >>> nl.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": 3},
        ...         "ckpt.npz")
        >>> nl.save(model.state_dict(), "linear.pth")   # torch.load reads this one
    """
    check_save_options(
        pickle_module, pickle_protocol, _use_new_zipfile_serialization, _disable_byteorder_record
    )
    fmt = _save_format(f, format)
    if fmt == "torch" or (not _names_format(f, format) and not _is_data(obj)):
        archive = "archive"
        if not hasattr(f, "write"):
            archive = os.path.splitext(os.path.basename(os.fsdecode(os.fspath(f))))[0] or "archive"
        if _is_data(obj):
            from .torch_writer import write_torch as write
        else:
            from .object_pickle import write_object as write
        _atomic.write_file(f, lambda out: write(obj, out, archive))
    elif fmt == "safetensors":
        from .safetensors_format import save_safetensors

        save_safetensors(obj, f)
    else:
        _atomic.write_file(f, lambda out: write_npz(obj, out))


def _is_data(obj: object) -> bool:
    """Whether ``obj`` is a structure of containers, tensors, arrays and scalars that every
    format holds (else it is pickled)."""
    import numpy as np

    from ..autograd.tensor import Tensor

    pending = [obj]
    seen = set()
    while pending:
        item = pending.pop()
        if item is None or isinstance(item, _DATA_TYPES + (Tensor, np.ndarray, np.generic)):
            continue
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, dict):
            if not all(k is None or isinstance(k, (bool, int, float, str)) for k in item):
                return False
            pending.extend(item.values())
        elif isinstance(item, (list, tuple)):
            pending.extend(item)
        else:
            return False
    return True


def _names_format(f: FileLike, format: str | None) -> bool:
    """Whether the caller chose nnlite's .npz or safetensors (by ``format`` or the suffix):
    then an object those formats cannot hold is an error, not a pickle."""
    if format is not None:
        return format != "torch"
    if hasattr(f, "write"):
        return False
    return os.path.splitext(os.fsdecode(os.fspath(f)))[1].lower() in (".npz", ".safetensors")


def _save_format(f: FileLike, format: str | None) -> str:
    if format is not None:
        if format not in _FORMATS:
            raise ValueError(
                f"nl.save: unknown format {format!r}; expected one of "
                f"{', '.join(map(repr, _FORMATS))}"
            )
        return format
    if hasattr(f, "write"):
        return "npz"
    suffix = os.path.splitext(os.fsdecode(os.fspath(f)))[1].lower()
    return _SUFFIX_FORMATS.get(suffix, "npz")


def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: bool | None = None,
) -> Any:
    """Load an object saved with :func:`save`, ``torch.save`` or safetensors from ``f`` (a path
    or a binary file object).

    nnlite checkpoints come back exactly (Tensors as Tensors, numpy arrays as arrays, the same
    key types and order). PyTorch files come back as PyTorch would return them with
    ``weights_only=True``: tensors (bfloat16 read as float32), ``OrderedDict``, containers,
    numbers and strings, tensors that shared a storage still sharing memory. safetensors files
    come back as a dict of tensors. ``map_location`` (the cpu, as a string, device or dict) and
    ``mmap`` (memory-map a PyTorch file's storages, copy-on-write) are accepted as in PyTorch.

    Security model (PyTorch's): ``.npz`` and safetensors files hold no code, whatever
    ``weights_only`` says. A PyTorch file is a pickle, and a pickle can name any function to call
    while it loads. With ``weights_only=True`` (the default) it is read by an allow-list
    unpickler, as ``torch.load(weights_only=True)``: only tensors, storages, dtypes, plain
    containers and the classes you allowlist (:func:`add_safe_globals`, :func:`safe_globals`)
    can be named; their state is set only on the objects the file itself builds, never on
    nnlite's shared objects; memory is bounded by the file's size; anything else raises
    :class:`CheckpointError` and changes nothing. With ``weights_only=False`` the file is
    unpickled by Python's pickle, which **runs whatever code the file names** (a file can run
    ``os.system`` on your machine): only pass it for files you trust, such as whole models you
    saved yourself with :func:`save`. nnlite warns (``UserWarning``) when it is used on a file
    :func:`save` did not write (a file can claim to come from :func:`save`: the warning is a
    reminder, not a check). PyTorch's own classes (a whole ``torch.nn`` model) are refused
    either way: nnlite cannot rebuild them.

    Args:
        f (str, os.PathLike or binary file): what to read.
        map_location (optional): the CPU, as a string, device, dict or function (others raise).
        pickle_module (optional): Python's :mod:`pickle` (others raise); given, ``weights_only``
            defaults to False and True raises, as in PyTorch.
        weights_only (bool, optional): ``True`` (the default without ``pickle_module``) reads PyTorch files with the allow-list
            unpickler; ``False`` unpickles them with Python's pickle, which runs code from the
            file (see the security model above).
        mmap (bool, optional): memory-map a PyTorch file instead of reading it.

    Returns:
        The saved object.

    Raises:
        FileNotFoundError, PermissionError, IsADirectoryError: if the path cannot be opened.
        CheckpointError: (a ``RuntimeError`` and ``ValueError``) if the file is damaged,
            foreign or holds anything but data, naming the file and what is wrong.
        WeightsOnlyError: (a ``CheckpointError`` and ``pickle.UnpicklingError``) if the file
            names a global that is not allowlisted, naming it and the two ways out.

    Examples:
        >>> model = nl.nn.Linear(4, 2)
        >>> nl.save({"model": model.state_dict(), "epoch": 3}, "ckpt.npz")
        >>> nl.save(model.state_dict(), "linear.pth")
        >>> state = nl.load("ckpt.npz")
        >>> state["epoch"]
        3
        >>> model.load_state_dict(nl.load("linear.pth", map_location="cpu"))
        <All keys matched successfully>
    """
    _check_map_location(map_location)
    weights_only = resolve_weights_only(pickle_module, weights_only)
    name = _display_name(f)
    if hasattr(f, "read"):
        if mmap:
            raise ValueError("nl.load: mmap=True needs f to be a path, not a file object")
        return _load_from(cast("IO[bytes]", f), name, None, weights_only)  # a file object
    path = os.fspath(f)
    # open errors (missing file, permissions, a directory) propagate as they are
    with open(path, "rb") as fh:
        return _load_from(fh, name, path if mmap else None, weights_only)


def _load_from(fh: IO[bytes], name: str, mmap_path: str | None, weights_only: bool = True) -> Any:
    try:
        start = fh.tell()
        head = fh.read(16)
        fh.seek(start)
    except (OSError, ValueError, AttributeError) as e:
        raise CheckpointError(f"not an nnlite checkpoint: {name} (cannot read it: {e})") from None
    if not head:
        raise CheckpointError(f"not an nnlite checkpoint: {name} (empty file)")
    if head[:4] in ZIP_MAGIC:
        reader = ZipReader(fh, name)
        try:
            return _load_zip(reader, name, mmap_path, weights_only is not False)
        finally:
            reader.close()
    if head.startswith(_TORCH_LEGACY_MAGIC):
        from .torch_reader import read_torch_legacy

        return read_torch_legacy(fh, name)
    if head.startswith(b"\x93NUMPY"):
        raise CheckpointError(
            f"not an nnlite checkpoint: {name} (a single .npy array, not an .npz archive)"
        )
    from .safetensors_format import load_safetensors, looks_like_safetensors

    if looks_like_safetensors(head, fh):
        return load_safetensors(fh, name)
    if head[:1] == b"\x80" or head[:1] in (b"(", b"}", b"]"):
        raise CheckpointError(
            f"not an nnlite checkpoint: {name} (a pickle file; nl.load does not unpickle files, "
            "except PyTorch checkpoints written by torch.save)"
        )
    raise CheckpointError(
        f"not an nnlite checkpoint: {name} (neither an nnlite .npz, a PyTorch file nor a "
        "safetensors file)"
    )


def _load_zip(reader: _ZipReader, name: str, mmap_path: str | None, weights_only: bool) -> Any:
    names = reader.names()
    if HEADER_NAME in names:
        return read_npz(reader)
    if any(n == "data.pkl" or n.endswith("/data.pkl") for n in names):
        from .torch_reader import read_torch_zip

        return read_torch_zip(reader, mmap_path, weights_only)
    if names and all(n.endswith(".npy") for n in names):
        raise CheckpointError(
            f"not an nnlite checkpoint: {name} (a .npz archive without {HEADER_NAME}; "
            "files written by numpy.savez load with numpy.load)"
        )
    raise CheckpointError(
        f"not an nnlite checkpoint: {name} (a zip archive with neither {HEADER_NAME} nor a "
        "PyTorch data.pkl)"
    )


def _check_map_location(map_location: Any) -> None:  # checked here: only the cpu passes
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if target is not None and str(target) != "cpu":
            raise RuntimeError(
                f"nl.load: nnlite only has the cpu device, got map_location={map_location!r}"
            )


def _display_name(f: Any) -> str:  # a path or a file object, else named by its repr
    if hasattr(f, "read"):
        fname = getattr(f, "name", None)
        return fname if isinstance(fname, str) else f"<{type(f).__name__} object>"
    try:
        return os.fsdecode(os.fspath(f))
    except TypeError:
        return repr(f)


def save_file(
    tensors: dict[str, Tensor],
    filename: str | os.PathLike[str],
    metadata: dict[str, str] | None = None,
) -> None:
    """Save a flat dict of tensors to a safetensors file, as ``safetensors.torch.save_file``.

    Args:
        tensors (dict[str, Tensor]): the tensors (or numpy arrays) by name.
        filename (str or os.PathLike): where to write (atomically).
        metadata (dict[str, str], optional): text stored in the file's header.

    Needs the ``safetensors`` package (``pip install nnlite[safetensors]``).

    Examples:
        >>> model = nl.nn.Linear(4, 2)
        >>> nl.save_file(model.state_dict(), "model.safetensors", metadata={"format": "pt"})
    """
    from .safetensors_format import save_safetensors

    save_safetensors(tensors, filename, metadata)


def load_file(filename: str | os.PathLike[str]) -> dict[str, Tensor]:
    """The tensors of a safetensors file, as a dict name -> Tensor (as
    ``safetensors.torch.load_file``); bfloat16 tensors come back as float32.

    Needs the ``safetensors`` package (``pip install nnlite[safetensors]``).

    Args:
        filename (str or os.PathLike): the safetensors file.

    Returns:
        dict: ``{name: Tensor}``.

    Examples:
        >>> model = nl.nn.Linear(4, 2)
        >>> nl.save_file(model.state_dict(), "model.safetensors")
        >>> model.load_state_dict(nl.load_file("model.safetensors"))
        <All keys matched successfully>
    """
    name = _display_name(filename)
    with open(os.fspath(filename), "rb") as fh:
        from .safetensors_format import load_safetensors

        return load_safetensors(fh, name)
