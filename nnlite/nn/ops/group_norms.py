"""Normalisations over groups of elements within each sample: ``layer_norm`` (the entry of the
``LayerNorm`` op), ``group_norm``, ``instance_norm``, ``rms_norm`` and ``local_response_norm``
(composites of existing ops, so first and second order gradients exist)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.grad_mode import no_grad
from .layer_norm import LayerNorm

if TYPE_CHECKING:
    from ..._typing import _size_any
    from ...autograd.tensor import Tensor


def _normalized(x: Tensor, axes: tuple[int, ...], eps: float) -> Tensor:
    mean = x.mean(axes, keepdim=True)
    centered = x - mean
    variance = (centered * centered).mean(axes, keepdim=True)
    return centered / (variance + eps).sqrt()


def layer_norm(
    input: Tensor,
    normalized_shape: _size_any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions, then scale and shift.

    Args:
        input (Tensor): the input.
        normalized_shape (int or tuple of ints): the trailing shape to normalise over.
        weight (Tensor, optional): a scale of that shape.
        bias (Tensor, optional): a shift of that shape.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.layer_norm(nl.tensor([[1., 3.]]), (2,))
        tensor([[-1.0000,  1.0000]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape or input.ndim < len(shape):
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(map(str, shape))}], but got input of size{input.shape}"
        )
    out: Tensor = LayerNorm.apply(input, weight, bias, dims=len(shape), eps=eps)
    return out


def _channel_affine(out: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    shape = (1, -1) + (1,) * (out.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each of ``num_groups`` channel groups of every sample, then a per-channel affine.

    Args:
        input (Tensor): ``(N, C, *)``.
        num_groups (int): the number of groups; divides C.
        weight (Tensor, optional): a ``(C,)`` scale.
        bias (Tensor, optional): a ``(C,)`` shift.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> y = F.group_norm(nl.randn(2, 4, 3), 2)
        >>> y.shape, bool(y[0, :2].mean().abs() < 1e-5)  # group 0 of sample 0: mean 0
        (nnlite.Size([2, 4, 3]), True)
    """
    if input.ndim < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.ndim}"
        )
    n, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(
            f"Expected number of channels in input to be divisible by num_groups, but got input of "
            f"shape {input.shape} and num_groups={num_groups}"
        )
    per_group = channels // num_groups * int(np.prod(input.shape[2:], dtype=np.int64))
    grouped = input.reshape(n, num_groups, per_group)  # explicit: a batch of 0 is allowed
    out = _normalized(grouped, (2,), eps).reshape(input.shape)
    return _channel_affine(out, weight, bias)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample over its spatial positions; with running statistics
    and ``use_input_stats=False`` (eval mode with ``track_running_stats``) use those instead.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor, optional): ``(C,)`` running means, updated in training.
        running_var (Tensor, optional): ``(C,)`` running variances.
        weight (Tensor, optional): a ``(C,)`` scale.
        bias (Tensor, optional): a ``(C,)`` shift.
        use_input_stats (bool): normalise with the sample's statistics. Default: True.
        momentum (float): the running statistics' update rate. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.instance_norm(nl.randn(2, 3, 5)).shape
        nnlite.Size([2, 3, 5])
    """
    spatial = tuple(range(2, input.ndim))
    if not spatial:
        raise ValueError(
            f"instance_norm expects spatial dimensions, got input of shape {tuple(input.shape)}"
        )
    if use_input_stats:
        out = _normalized(input, spatial, eps)
        if running_mean is not None and running_var is not None:
            with no_grad():  # the running statistics average the per-instance ones over the batch
                x = input._data
                count = int(np.prod([input.shape[d] for d in spatial]))
                mean = x.mean(axis=spatial).mean(0)
                var = x.var(axis=spatial, ddof=1 if count > 1 else 0).mean(0)
                running_mean._data *= 1 - momentum
                running_mean._data += momentum * mean.astype(running_mean._data.dtype)
                running_var._data *= 1 - momentum
                running_var._data += momentum * var.astype(running_var._data.dtype)
                running_mean._bump_version()
                running_var._bump_version()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(
                "Expected running_mean and running_var to be defined when use_input_stats is false"
            )
        shape = (1, -1) + (1,) * len(spatial)
        out = (input - running_mean.reshape(shape)) / (running_var.reshape(shape) + eps).sqrt()
    return _channel_affine(out, weight, bias)


def rms_norm(
    input: Tensor,
    normalized_shape: int | tuple[int, ...] | list[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalisation over the last dimensions: ``x / sqrt(mean(x^2) + eps) * weight``.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (int or sequence): the trailing dimensions to normalise over.
        weight (Tensor, optional): the elementwise scale, of ``normalized_shape``.
        eps (float, optional): added to the mean square. Default: the dtype's machine epsilon.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.rms_norm(nl.tensor([[3., 4.]]), (2,))
        tensor([[0.8485, 1.1314]])
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape) :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in shape)}], but got input of size{input.shape}"
        )
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * ((input * input).mean(axes, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Normalise each element by the squares of its neighbours across channels:
    ``x / (k + alpha * mean of x^2 over `size` channels) ^ beta``.

    Args:
        input (Tensor): ``(N, C, *)``, at least 3-D.
        size (int): the number of neighbouring channels.
        alpha (float): the multiplicative factor. Default: 1e-4.
        beta (float): the exponent. Default: 0.75.
        k (float): the additive factor. Default: 1.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.local_response_norm(nl.ones(1, 3, 1), 2, alpha=1.0, k=0.0)
        tensor([[[1.6818],
                 [1.0000],
                 [1.0000]]])
    """
    from .padding import pad
    from .pooling import avg_pool2d

    if input.ndim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    squares = (input * input).reshape(n, 1, c, -1)
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    div = avg_pool2d(squares, (size, 1), stride=1).reshape(input.shape)
    return input / (div * alpha + k) ** beta
