"""Batch normalisation over dimension 1 (channels) as one op, and ``batch_norm``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from ._messages import LayerInputError

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


def channel_shape(ndim: int, channels: int) -> tuple[int, ...]:
    """Shape that broadcasts a per-channel vector against an (N, C, ...) array."""
    return (1, channels) + (1,) * (ndim - 2)


def reduce_axes(ndim: int) -> tuple[int, ...]:
    """The axes batch statistics are taken over: all but the channel axis."""
    return (0,) + tuple(range(2, ndim))


class BatchNorm(Op):
    """``(x - mean) * invstd * w + b`` with per-channel ``mean`` and ``invstd`` arrays.

    With ``batch_stats=True`` the statistics are those of ``x`` itself (training), so the
    gradient also flows through them; otherwise they are constants (running statistics).
    ``w`` and ``b`` may be None.
    """

    node_name = "NativeBatchNormBackward0"
    saved_inputs = (0, 1)

    def forward(self, x: Array, w: Array | None, b: Array | None) -> Array:
        scale = self.invstd if w is None else self.invstd * w
        shift = -self.mean * scale if b is None else b - self.mean * scale
        if _fused(x):
            out: Array = _kernels().normalize(x, scale, shift)
            return out
        shape = channel_shape(x.ndim, x.shape[1])
        y: Array = x * scale.reshape(shape)
        y += shift.reshape(shape)
        return y

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, w = self.inputs()
        axes = reduce_axes(x.ndim)
        shape = channel_shape(x.ndim, x.shape[1])
        if self.batch_stats:
            # the statistics are functions of x: recomputed as such when the formula is recorded
            invstd = vjp.value(
                self.invstd.reshape(shape), lambda: _batch_invstd(x, axes, self.eps), x
            )
            mean = vjp.value(self.mean.reshape(shape), lambda: vjp.mean(x, axes, keepdims=True), x)
            xhat = (x - mean) * invstd
        else:
            invstd = vjp.const(self.invstd.reshape(shape), x)
            xhat = (x - vjp.const(self.mean.reshape(shape), x)) * invstd  # fixed statistics
        gw = vjp.sum(grad * xhat, axes) if needs[1] else None
        gb = vjp.sum(grad, axes) if needs[2] else None
        gx = None
        if needs[0]:
            g = grad if w is None else grad * w.reshape(shape)
            if self.batch_stats:
                g = (
                    g
                    - vjp.mean(g, axes, keepdims=True)
                    - xhat * vjp.mean(g * xhat, axes, keepdims=True)
                )
            gx = g * invstd
        return gx, gw, gb

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        # the three gradients in two fused passes where the kernels take the array
        x, w = self.inputs()
        if not _fused(x):
            return self.backward(grad, needs)
        gx, gw, gb = _kernels().backward(
            grad, x, self.mean, self.invstd, w, self.batch_stats, needs[0]
        )
        return gx, gw if needs[1] else None, gb if needs[2] else None


def _fused(x: Array) -> bool | int:
    """Whether the numba kernels take this array (float32/64 with at least one value per channel)."""
    return x.ndim >= 2 and x.size and (x.dtype == np.float32 or x.dtype == np.float64)


def _kernels() -> ModuleType:
    from ..kernels import batch_norm as kernels  # numba loads on the first batch norm

    return kernels


def _batch_invstd(x: Tensor, axes: tuple[int, ...], eps: float) -> Tensor:
    centered = x - x.mean(axes, keepdim=True)
    return ((centered * centered).mean(axes, keepdim=True) + eps) ** -0.5


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Batch normalisation over dimension 1.

    In training the batch statistics normalise the input and, when running buffers are given,
    update them in place: ``running = (1 - momentum) * running + momentum * batch`` (the variance
    unbiased). Otherwise the running statistics are used.

    Args:
        input (Tensor): ``(N, C, *)``.
        running_mean (Tensor or None): ``(C,)`` running means.
        running_var (Tensor or None): ``(C,)`` running variances.
        weight (Tensor, optional): a ``(C,)`` scale.
        bias (Tensor, optional): a ``(C,)`` shift.
        training (bool): use (and update) batch statistics. Default: False.
        momentum (float): the running statistics' update rate. Default: 0.1.
        eps (float): added to the variance. Default: 1e-5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.batch_norm(nl.tensor([[1.], [3.]]), None, None, training=True)
        tensor([[-1.0000],
                [ 1.0000]])
    """
    x = input._data
    if x.ndim < 2:
        raise ValueError(f"expected 2D or more input (got {x.ndim}D input)")
    c = x.shape[1]
    for name, t in (
        ("running_mean", running_mean),
        ("running_var", running_var),
        ("weight", weight),
        ("bias", bias),
    ):
        if t is not None and t._data.size != c:
            raise LayerInputError(f"{name} should contain {c} elements not {t._data.size}")
    if training:
        count = x.size // c if c else 0
        if count == 0:  # an empty batch: nothing to normalise, the statistics stay (as PyTorch)
            from .group_norms import _channel_affine

            out = _channel_affine(input, weight, bias)
            return out if out is not input else input.clone()
        if count == 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        if _fused(x):
            mean, var = _kernels().channel_stats(x)
            mean = mean.astype(x.dtype)
        else:
            axes = reduce_axes(x.ndim)
            mean = x.mean(axis=axes)
            centered = x - mean.reshape(channel_shape(x.ndim, c))
            var = (centered * centered).mean(axis=axes)
        if running_mean is not None:
            m = float(momentum)
            rm = running_mean._data
            rm *= 1 - m
            rm += m * mean.astype(rm.dtype, copy=False)
            running_mean._bump_version()
        if running_var is not None:
            m = float(momentum)
            rv = running_var._data
            rv *= 1 - m
            rv += (m * count / (count - 1)) * var.astype(rv.dtype, copy=False)
            running_var._bump_version()
        batch_stats = True
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(
                ("running_mean" if running_mean is None else "running_var")
                + " must be defined in evaluation mode"
            )
        mean = running_mean._data.astype(x.dtype, copy=False)
        var = running_var._data.astype(x.dtype, copy=False)
        batch_stats = False
    invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    result: Tensor = BatchNorm.apply(
        input, weight, bias, mean=mean, invstd=invstd, batch_stats=batch_stats, eps=eps
    )
    return result
