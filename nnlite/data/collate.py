"""Turning a list of samples into a batch: ``default_collate`` and ``default_convert``."""

from __future__ import annotations

import collections.abc
import numbers
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import _core

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor

__all__ = ["default_collate", "default_convert"]

_ERR = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
)


def _is_namedtuple(x: object) -> bool:
    return isinstance(x, tuple) and hasattr(x, "_fields")


def _stack_tensors(batch: Sequence[Tensor]) -> Tensor:
    if any(t.requires_grad for t in batch):
        from ._core import stack_with_grad

        return stack_with_grad(batch)
    arrays = [_core.array_of(t) for t in batch]
    _check_same_shape(arrays, "tensors")
    return _core.from_numpy(np.stack(arrays))


def _check_same_shape(arrays: Sequence[Array], what: str) -> None:
    shape = arrays[0].shape
    for i, a in enumerate(arrays):
        if a.shape != shape:
            raise RuntimeError(
                f"default_collate: cannot stack {what} of different shapes into a batch: "
                f"{list(shape)} (sample 0) and {list(a.shape)} (sample {i})"
            )


def default_collate(batch: Sequence[Any]) -> Any:  # samples of any structure, batched alike
    """Stack a list of samples into a batch, as ``torch.utils.data.default_collate``.

    Tensors and numpy arrays are stacked along a new first dimension (arrays become tensors);
    Python ints give an int64 tensor, floats a float64 tensor, bools a bool tensor, numpy scalars
    a tensor of their dtype; strings stay a list; dicts are collated key by key; tuples and lists
    are transposed and collated position by position (returned as lists; namedtuples keep their
    type).

    Args:
        batch (list): the samples.

    Returns:
        The batch, of the samples' structure.

    Examples:
        >>> from nnlite.data import default_collate
        >>> default_collate([(nl.tensor([1., 2.]), 0), (nl.tensor([3., 4.]), 1)])
        [tensor([[1., 2.],
                [3., 4.]]), tensor([0, 1])]
    """
    if not isinstance(batch, (list, tuple)):
        batch = list(batch)
    if len(batch) == 0:
        raise ValueError("default_collate: cannot collate an empty batch")
    elem = batch[0]
    if _core.is_tensor(elem):
        return _stack_tensors(batch)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_ERR.format(f"numpy array of dtype {elem.dtype}"))
        _check_same_shape(batch, "arrays")
        return _core.from_numpy(np.stack(batch))
    if isinstance(elem, np.generic):
        if elem.dtype.kind in "OSUV":
            raise TypeError(_ERR.format(f"numpy scalar of dtype {elem.dtype}"))
        return _core.from_numpy(np.array(batch, dtype=elem.dtype))
    if isinstance(elem, bool):
        return _core.from_numpy(np.array(batch, dtype=np.bool_))
    if isinstance(elem, numbers.Integral):
        return _core.from_numpy(np.array(batch, dtype=np.int64))
    if isinstance(elem, numbers.Real):
        return _core.from_numpy(np.array(batch, dtype=np.float64))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, collections.abc.Mapping):
        mapping_type: Any = type(elem)  # a dict, OrderedDict or the user's mapping class
        try:
            return mapping_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except KeyError as e:
            raise KeyError(
                f"default_collate: sample dicts have different keys (missing {e.args[0]!r})"
            ) from None
        except TypeError:  # a mapping type that can't be built from a dict
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(samples)) for samples in zip(*batch)]
    if elem is None:
        raise TypeError(_ERR.format("None"))
    raise TypeError(_ERR.format(type(elem)))


def default_convert(data: Any) -> Any:  # any structure, numpy arrays in it made Tensors
    """Turn numpy arrays (recursively in lists, tuples and dicts) into tensors; leave the rest.

    Args:
        data: a sample or batch.

    Returns:
        ``data`` with its numpy arrays turned into tensors.

    Examples:
        >>> from nnlite.data import default_convert
        >>> default_convert({"x": np.zeros(2)})
        {'x': tensor([0., 0.], dtype=nnlite.float64)}
    """
    if _core.is_tensor(data):
        return data
    if isinstance(data, np.ndarray):
        if data.dtype.kind in "OSUV":
            return data
        return _core.from_numpy(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "OSUV":
        return _core.from_numpy(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        mapping_type: Any = type(data)  # a dict, OrderedDict or the user's mapping class
        try:
            return mapping_type({k: default_convert(v) for k, v in data.items()})
        except TypeError:
            return {k: default_convert(v) for k, v in data.items()}
    if _is_namedtuple(data):
        return type(data)(*(default_convert(v) for v in data))
    if isinstance(data, tuple):
        return tuple(default_convert(v) for v in data)
    if isinstance(data, list):
        return [default_convert(v) for v in data]
    return data
