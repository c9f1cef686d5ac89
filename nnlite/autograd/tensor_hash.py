"""``nl.hash_tensor``: a hash of a tensor's elements, as ``torch.hash_tensor`` (mode 0: the
elements widened to 64 bits, read as uint64 and reduced by xor)."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["hash_tensor"]


def _as_uint64(a: np.ndarray) -> np.ndarray:
    """The elements widened to 64 bits (float64, int64 or uint64) and read as uint64."""
    if a.dtype.kind == "f":
        return a.astype(np.float64).view(np.uint64)
    if a.dtype.kind == "i":
        return a.astype(np.int64).view(np.uint64)
    return a.astype(np.uint64)


def hash_tensor(input: Any, dim: Any = None, *, keepdim: bool = False, mode: int = 0) -> Any:
    """The xor of the elements' 64-bit patterns, over all elements or the dimensions ``dim``.

    Floating elements are widened to float64, integers to int64 (unsigned to uint64), and their
    bits read as uint64 before the xor.

    Args:
        input (Tensor): the tensor.
        dim (int or tuple of ints, optional): the dimensions reduced. Default: all.
        keepdim (bool): keep the reduced dimensions with size one. Default: False.
        mode (int): the hash; only 0 (xor reduction). Default: 0.

    Returns:
        Tensor: uint64 hashes.

    Examples:
        >>> nl.hash_tensor(nl.tensor([[1, 2], [3, 4]]), 1)
        tensor([3, 7], dtype=nnlite.uint64)
    """
    from .providers import implementation

    tensor = implementation("creation.tensor")

    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    data = np.asarray(input._data)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        if data.size == 0:
            raise RuntimeError(
                "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        axes = tuple(range(data.ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        axes = tuple(d % max(data.ndim, 1) for d in dims)
        for d in axes:
            if data.ndim and data.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero size.")
    bits = _as_uint64(data)
    out = bits
    if data.ndim:
        out = np.bitwise_xor.reduce(bits, axis=axes)
        if keepdim:
            out = np.expand_dims(out, axes)
    return tensor(np.asarray(out, dtype=np.uint64))
