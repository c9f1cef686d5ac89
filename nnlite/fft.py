"""``nnlite.fft``: the real-valued helpers of ``torch.fft``.

The transforms themselves return or take complex tensors, which nnlite does not have; the sample
frequencies and the shifts that arrange a spectrum are here.

Examples:
    >>> nl.fft.fftfreq(4)
    tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .autograd.creation import tensor
from .autograd.creation_keywords import creation_keywords
from .autograd.dtypes import float32
from .autograd.tensor import Tensor

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


@creation_keywords("out", "layout", "pin_memory")
def fftfreq(
    n: int,
    d: float = 1.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The sample frequencies of a length-``n`` transform with sample spacing ``d``.

    Args:
        n (int): the signal length.
        d (float): the sample spacing. Default: 1.
        dtype (nl.dtype, optional): Default: float32.
        requires_grad (bool): Default: False.

    Returns:
        Tensor: ``[0, 1, ..., n//2 - 1, -n//2, ..., -1] / (d * n)`` (as many as ``n``).

    Examples:
        >>> nl.fft.fftfreq(4)
        tensor([ 0.0000,  0.2500, -0.5000, -0.2500])
    """
    return tensor(np.fft.fftfreq(n, d), dtype=dtype or float32, requires_grad=requires_grad)


@creation_keywords("out", "layout", "pin_memory")
def rfftfreq(
    n: int,
    d: float = 1.0,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The non-negative sample frequencies of a length-``n`` real transform.

    Args:
        n (int): the signal length.
        d (float): the sample spacing. Default: 1.
        dtype (nl.dtype, optional): Default: float32.
        requires_grad (bool): Default: False.

    Returns:
        Tensor: ``[0, 1, ..., n//2] / (d * n)``.

    Examples:
        >>> nl.fft.rfftfreq(4)
        tensor([0.0000, 0.2500, 0.5000])
    """
    return tensor(np.fft.rfftfreq(n, d), dtype=dtype or float32, requires_grad=requires_grad)


def _shift(input: Tensor, dim: Any, sign: int) -> Tensor:
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, int) else dim
    shifts = tuple(sign * (input.shape[d] // 2) for d in dims)
    return input.roll(shifts, dims)


def fftshift(input: Tensor, dim: Any = None) -> Tensor:
    """The zero frequency moved to the centre of ``dim`` (all dimensions by default).

    Args:
        input (Tensor): a spectrum in transform order.
        dim (int or tuple of ints, optional): the dimensions. Default: all.

    Returns:
        Tensor: the rolled tensor.

    Examples:
        >>> nl.fft.fftshift(nl.fft.fftfreq(4))
        tensor([-0.5000, -0.2500,  0.0000,  0.2500])
    """
    return _shift(input, dim, 1)


def ifftshift(input: Tensor, dim: Any = None) -> Tensor:
    """The inverse of ``fftshift``.

    Args:
        input (Tensor): a centred spectrum.
        dim (int or tuple of ints, optional): the dimensions. Default: all.

    Returns:
        Tensor: the rolled tensor.

    Examples:
        >>> nl.fft.ifftshift(nl.fft.fftshift(nl.arange(5)))
        tensor([0, 1, 2, 3, 4])
    """
    return _shift(input, dim, -1)
