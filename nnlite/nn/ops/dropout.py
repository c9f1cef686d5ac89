"""Dropout: multiplication by a fixed random mask (zeros, and 1/(1-p) elsewhere): ``dropout``, the
channel-wise forms (``dropout1d/2d/3d``) and alpha dropout."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.random import default_generator

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


class Dropout(Op):
    node_name = "NativeDropoutBackward0"

    def forward(self, x: Array) -> Array:
        out: Array = x * self.mask
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = grad * vjp.const(self.mask, grad)
        return gx


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
    out: Tensor = Dropout.apply(input, mask=mask)
    return out


def _channel_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, spatial: int, name: str
) -> Tensor:
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
    out: Tensor = Dropout.apply(input, mask=mask)
    return out


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


def _deprecated_rank(name: str, ndim: int, spatial: int) -> None:
    warnings.warn(
        f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will result in an "
        "error in a future release. To retain the behavior and silence this warning, please use "
        f"dropout instead. Note that {name} exists to provide channel-wise dropout on inputs with "
        f"{spatial} spatial dimensions, a channel dimension, and an optional batch dimension "
        f"(i.e. {spatial + 1}D or {spatial + 2}D inputs).",
        stacklevel=3,
    )


def _feature_shape(x: Array) -> tuple[int, ...]:
    """The shape of PyTorch's feature-dropout noise: one draw per (sample, channel) of ``x``
    (element-wise for 2-D input)."""
    if x.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape: tuple[int, ...] = x.shape[:2] + (1,) * (x.ndim - 2)
    return shape


def _masked(input: Tensor, p: float, shape: tuple[int, ...], inplace: bool, alpha: bool) -> Tensor:
    """``input * mask`` (+ alpha dropout's shift) with a Bernoulli(1 - p) mask of ``shape``."""
    x = input._data
    keep = (default_generator.random(shape) >= p).astype(x.dtype)
    if not alpha:
        mask = keep * np.asarray(1.0 / (1.0 - p), x.dtype) if p < 1 else keep * 0
        if inplace:
            return input._inplace(Dropout, mask=mask)
        result: Tensor = Dropout.apply(input, mask=mask)
        return result
    # alpha dropout (Klambauer et al.): dropped units take SELU's saturation value, then an affine
    # map restores zero mean and unit variance
    saturation = 1.7580993408473766
    a = 1.0 / np.sqrt((saturation * saturation * p + 1) * (1 - p))
    shift = ((keep - 1) * saturation * a + saturation * a * p).astype(x.dtype)
    out = Dropout.apply(input, mask=(keep * a).astype(x.dtype)) + shift
    return input.copy_(out) if inplace else out


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability ``p``; scale the rest.

    As PyTorch's: a 3-D input is read as (N, C, L) (with a warning), and other ranks are
    deprecated (a warning; 2-D input drops single elements).

    Args:
        input (Tensor): ``(N, C, H, W)``.
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
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        _deprecated_rank("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    shape = _feature_shape(input._data)
    if not training or p == 0:
        return input
    return _masked(input, p, shape, inplace, alpha=False)


def dropout3d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        p (float): the probability of zeroing a channel. Default: 0.5.
        training (bool): apply dropout; False returns ``input``. Default: True.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.dropout3d(nl.ones(2, 3, 2, 2, 2), p=0.5).shape
        nnlite.Size([2, 3, 2, 2, 2])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        _deprecated_rank("dropout3d", input.ndim, 3)
    data = input._data
    shape = _feature_shape(data[None] if input.ndim != 5 else data)
    if not training or p == 0:
        return input
    if input.ndim != 5:
        shape = shape[1:]
    return _masked(input, p, shape, inplace, alpha=False)


def alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """Dropout that keeps SELU networks' zero mean and unit variance: dropped elements take SELU's
    negative saturation value, then an affine map restores the statistics.

    Args:
        input (Tensor): the input.
        p (float): the probability of dropping an element. Default: 0.5.
        training (bool): apply it; False returns ``input``. Default: False.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.alpha_dropout(nl.ones(3), 0.5, training=False)
        tensor([1., 1., 1.])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    return _masked(input, p, input.shape, inplace, alpha=True)


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """``alpha_dropout`` of whole channels (one draw per sample and channel).

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of dropping a channel. Default: 0.5.
        training (bool): apply it; False returns ``input``. Default: False.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.feature_alpha_dropout(nl.ones(2, 3), 0.5).shape
        nnlite.Size([2, 3])
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    shape = _feature_shape(input._data)
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    return _masked(input, p, shape, inplace, alpha=True)
