"""Dropout: multiplication by a fixed random mask (zeros, and 1/(1-p) elsewhere), and ``dropout``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.random import default_generator

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


class Dropout(Op):
    node_name = "NativeDropoutBackward0"

    def forward(self, x):
        return x * self.mask

    def backward(self, grad, needs):
        return grad * vjp.const(self.mask, grad)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only).

    Args:
        input (Tensor): the input.
        p (float): the probability of zeroing an element. Default: 0.5.
        training (bool): apply dropout; False returns ``input``. Default: True.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.dropout(nl.ones(4), p=0.0)
        tensor([1., 1., 1., 1.])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    x = input._data
    if p == 1:
        mask = np.zeros(x.shape, dtype=x.dtype)
    else:
        mask = default_generator.random(
            x.shape, dtype=np.float64 if x.dtype == np.float64 else np.float32
        )
        mask = (mask >= p).astype(x.dtype) * np.asarray(1.0 / (1.0 - p), dtype=x.dtype)
    if inplace:
        return input._inplace(Dropout, mask=mask)
    return Dropout.apply(input, mask=mask)


def _channel_dropout(input, p, training, inplace, spatial, name):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D input, but received a "
            f"{input.ndim}D input."
        )
    if not training or p == 0:
        return input
    x = input._data
    mask_shape = x.shape[: x.ndim - spatial] + (1,) * spatial  # one draw per channel
    if p == 1:
        mask = np.zeros(mask_shape, dtype=x.dtype)
    else:
        mask = (default_generator.random(mask_shape) >= p).astype(x.dtype) * np.asarray(
            1.0 / (1.0 - p), x.dtype
        )
    if inplace:
        return input._inplace(Dropout, mask=mask)
    return Dropout.apply(input, mask=mask)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability ``p``; scale the rest.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout; False returns ``input``. Default: True.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> y = F.dropout1d(nl.ones(2, 3, 4), p=0.5)
        >>> sorted(set(y.flatten().tolist())) in ([0.0], [2.0], [0.0, 2.0])  # zeroed or scaled by 2
        True
    """
    return _channel_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) input with probability ``p``; scale the rest.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout; False returns ``input``. Default: True.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> y = F.dropout2d(nl.ones(2, 3, 4, 4), p=0.5)
        >>> planes = y.flatten(2)
        >>> bool((planes.amax(dim=2) == planes.amin(dim=2)).all())  # whole channels
        True
    """
    return _channel_dropout(input, p, training, inplace, 2, "dropout2d")
