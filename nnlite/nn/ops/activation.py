"""Activations built from existing ops (composites: no backward of their own, second order for free):
``silu``, ``elu``, ``softplus``, ``hardtanh``, ``relu6``, ``mish``, ``hardswish``, ``prelu``; and the
entry of ``gelu``, an op of its own (``fused_activation.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...autograd.ops.where import Where
from .fused_activation import Gelu

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def _where(condition, a, b):
    return Where.apply(condition, a, b)


def _apply(input, formula, inplace):
    """``formula(input)``; in place, computed from a copy (the formula saves its input for backward,
    which the write would otherwise change) and written back."""
    if not inplace:
        return formula(input)
    return input.copy_(formula(input.clone()))


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (Phi: the standard normal CDF); ``approximate="tanh"`` uses the tanh formula.

    Args:
        input (Tensor): the input.
        approximate (str): ``"none"`` (exact) or ``"tanh"``. Default: ``"none"``.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.gelu(nl.tensor([0., 1.]))
        tensor([0.0000, 0.8413])
    """
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return Gelu.apply(input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)`` (the swish).

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.silu(x)
        tensor([-0.2689,  0.0000,  1.7616])
    """
    return _apply(input, lambda x: x * x.sigmoid(), inplace)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: 1.0.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.elu(x)
        tensor([-0.6321,  0.0000,  2.0000])
    """
    # clamped: exp of large x never overflows
    return _apply(
        input, lambda x: _where(x._data > 0, x, alpha * (x.clamp(max=0.0).exp() - 1.0)), inplace
    )


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``; linear where ``beta * x > threshold``.

    Args:
        input (Tensor): the input.
        beta (float): the sharpness. Default: 1.
        threshold (float): above ``beta * x`` this, the identity. Default: 20.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.softplus(x)
        tensor([0.3133, 0.6931, 2.1269])
    """
    scaled = input * beta
    linear = scaled._data > threshold
    smooth = (scaled.clamp(max=threshold).exp() + 1.0).log() / beta
    return _where(linear, input, smooth)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    """``input`` clipped to ``[min_val, max_val]``; no gradient at or beyond the limits (as PyTorch).

    Args:
        input (Tensor): the input.
        min_val (float): the lower limit. Default: -1.
        max_val (float): the upper limit. Default: 1.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.hardtanh(x)
        tensor([-1.,  0.,  1.])
    """
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _apply(
        input,
        lambda x: _where(x._data >= max_val, max_val, _where(x._data <= min_val, min_val, x)),
        inplace,
    )


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """``hardtanh(input, 0, 6)``.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.relu6(nl.tensor([-1., 3., 8.]))
        tensor([0., 3., 6.])
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * tanh(softplus(x))``.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.mish(x)
        tensor([-0.3034,  0.0000,  1.9440])
    """
    return _apply(input, lambda x: x * softplus(x).tanh(), inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * relu6(x + 3) / 6``.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.hardswish(x)
        tensor([-0.3333,  0.0000,  1.6667])
    """
    return _apply(input, lambda x: x * relu6(x + 3.0) / 6.0, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """``relu6(x + 3) / 6``.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.hardsigmoid(x)
        tensor([0.3333, 0.5000, 0.8333])
    """
    return _apply(input, lambda x: relu6(x + 3.0) / 6.0, inplace)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has 1 or ``input.shape[1]`` entries.

    Args:
        input (Tensor): the input.
        weight (Tensor): the learned negative slopes, 1 or one per channel.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.prelu(x, nl.tensor([0.25]))
        tensor([-0.2500,  0.0000,  2.0000])
    """
    channels = weight.numel()
    if channels != 1:
        if input.ndim < 2 or input.shape[1] != channels:
            raise RuntimeError(
                f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                f"{channels} and channel size = {input.shape[1] if input.ndim >= 2 else 1}."
            )
        weight = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return _where(input._data > 0, input, weight * input)
