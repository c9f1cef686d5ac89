"""Type aliases shared by nnlite's annotations (as ``torch.types``): sizes, devices, dtypes, files.

Only for annotations: nothing here is used at run time beyond the alias objects themselves.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, Any, TypeAlias, TypeVar, Union

import numpy as np

if TYPE_CHECKING:
    from PIL.Image import Image as PILImage

    from .autograd.dtypes import dtype
    from .autograd.tensor import Tensor
    from .device import device

__all__ = [
    "_int",
    "_float",
    "_bool",
    "_size",
    "_size_any",
    "_dims",
    "Number",
    "Device",
    "DTypeLike",
    "FileLike",
    "StrPath",
    "TensorOrScalar",
    "StateDict",
    "Array",
    "Gradient",
    "ImageT",
]

# The builtins under names that stay valid inside classes which define methods called
# ``int``/``float``/``bool`` (``Tensor.float()``) and in modules rebinding them to dtypes.
_int: TypeAlias = int
_float: TypeAlias = float
_bool: TypeAlias = bool

#: a shape: ``(2, 3)``, ``[2, 3]`` or ``nl.Size([2, 3])``
_size: TypeAlias = Sequence[int]
#: an int for every dimension or one int for all of them (``kernel_size=3`` or ``(3, 5)``)
_size_any: TypeAlias = int | Sequence[int]
#: a ``dim`` argument: one dimension, several, or ``None`` for all of them
_dims: TypeAlias = int | Sequence[int] | None
#: a Python number
Number: TypeAlias = int | float | bool
#: a device: ``"cpu"``, ``"cpu:0"``, ``nl.device("cpu")`` or ``None`` (the CPU)
Device: TypeAlias = Union[str, "device", int, None]
#: a dtype: ``nl.float32``, a numpy dtype, ``float``/``int``/``bool`` or a dtype name
DTypeLike: TypeAlias = Union["dtype", np.dtype[Any], type, str]
#: a file system path: ``"data/mnist"`` or a ``pathlib.Path``
StrPath: TypeAlias = Union[str, "os.PathLike[str]"]
#: where ``nl.save`` writes and ``nl.load`` reads: a path or a binary file object
FileLike: TypeAlias = Union[str, "os.PathLike[str]", IO[bytes]]
#: the other operand of an arithmetic operator
TensorOrScalar: TypeAlias = Union["Tensor", int, float, bool]
#: a module's or optimizer's state (``state_dict()``)
StateDict: TypeAlias = "dict[str, Any]"
#: a numpy array of any shape and dtype (an op's forward works on them)
Array: TypeAlias = "np.ndarray[Any, Any]"
#: a gradient in an op's backward: an array in a first-order backward, a Tensor under
#: ``create_graph=True``
Gradient: TypeAlias = Union["np.ndarray[Any, Any]", "Tensor"]
#: an image a transform takes and gives back in the same kind: a Tensor (``CHW``), a numpy array
#: (``HWC``) or a PIL image
ImageT = TypeVar("ImageT", "Tensor", "np.ndarray[Any, Any]", "PILImage")
