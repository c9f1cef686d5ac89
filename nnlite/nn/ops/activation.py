"""Activations built from existing ops (composites: no backward of their own, second order for free):
``silu``, ``elu``, ``softplus``, ``hardtanh``, ``relu6``, ``mish``, ``hardswish``, ``prelu``, ``celu``,
``selu``, ``glu``, the shrinks, ``logsigmoid``, ``softsign``, ``threshold``, ``rrelu``; and the
entry of ``gelu``, an op of its own (``fused_activation.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.ops.where import Where
from .fused_activation import Gelu

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..._typing import Array
    from ...autograd.tensor import Tensor


def _where(condition: Array, a: Tensor | float, b: Tensor | float) -> Tensor:
    out: Tensor = Where.apply(condition, a, b)
    return out


def _apply(input: Tensor, formula: Callable[[Tensor], Tensor], inplace: bool) -> Tensor:
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
    out: Tensor = Gelu.apply(input, approximate=approximate)
    return out


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


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha * (exp(x / alpha) - 1)`` elsewhere.

    Args:
        input (Tensor): the input.
        alpha (float): the scale of the negative part. Default: 1.0.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.celu(nl.tensor([-1., 2.]), alpha=2.0)
        tensor([-0.7869,  2.0000])
    """
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _apply(
        input,
        lambda x: _where(x._data > 0, x, alpha * ((x.clamp(max=0.0) / alpha).exp() - 1.0)),
        inplace,
    )


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``scale * elu(x, alpha)`` with the self-normalising constants of Klambauer et al.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.selu(nl.tensor([-1., 2.]))
        tensor([-1.1113,  2.1014])
    """
    return _apply(input, lambda x: elu(x, _SELU_ALPHA) * _SELU_SCALE, inplace)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: ``a * sigmoid(b)`` with ``a, b`` the two halves of ``input`` along ``dim``.

    Args:
        input (Tensor): the input; its size along ``dim`` must be even.
        dim (int): the dimension to halve. Default: -1.

    Returns:
        Tensor: ``input``'s shape with ``dim`` halved.

    Examples:
        >>> F.glu(nl.tensor([1., 2., 0., 0.]))
        tensor([0.5000, 1.0000])
    """
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    dim = dim % input.ndim if -input.ndim <= dim < input.ndim else dim
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim} is size {size}")
    a, b = input.split(size // 2, dim)
    return a * b.sigmoid()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0.

    Args:
        input (Tensor): the input.
        lambd (float): the threshold. Default: 0.5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.hardshrink(nl.tensor([-1., 0.2, 0.7]))
        tensor([-1.0000,  0.0000,  0.7000])
    """
    return _where(np.abs(input._data) > lambd, input, 0.0)


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    Args:
        input (Tensor): the input.
        lambd (float): the threshold, at least 0. Default: 0.5.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.softshrink(nl.tensor([-1., 0.2, 0.7]))
        tensor([-0.5000,  0.0000,  0.2000])
    """
    if lambd < 0:
        limit = np.finfo(input._data.dtype).max
        kind = "Double" if input._data.dtype == np.float64 else "Float"
        raise RuntimeError(
            f"lambda must be in range [0, {limit:g}] for input dtype {kind}, but found {lambd:g}"
        )
    x = input._data
    return _where(x > lambd, input - lambd, _where(x < -lambd, input + lambd, 0.0))


def logsigmoid(input: Tensor) -> Tensor:
    """``log(sigmoid(x))``, computed stably as ``min(x, 0) - log(1 + exp(-|x|))``.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.logsigmoid(nl.tensor([0.]))
        tensor([-0.6931])
    """
    return input.clamp(max=0.0) - ((-input.abs()).exp() + 1.0).log()


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.softsign(nl.tensor([-1., 3.]))
        tensor([-0.5000,  0.7500])
    """
    return input / (input.abs() + 1.0)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.tanhshrink(nl.tensor([0., 1.]))
        tensor([0.0000, 0.2384])
    """
    return input - input.tanh()


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): what replaces the elements at or below it.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.threshold(nl.tensor([-1., 0.5, 2.]), 1.0, 0.0)
        tensor([0., 0., 2.])
    """
    return _apply(input, lambda x: _where(x._data > threshold, x, float(value)), inplace)


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    inplace: bool = False,
) -> Tensor:
    """Leaky ReLU whose negative slope is drawn from ``U(lower, upper)`` per element in training,
    and is ``(lower + upper) / 2`` otherwise.

    Args:
        input (Tensor): the input.
        lower (float): the lowest slope. Default: 1/8.
        upper (float): the highest slope. Default: 1/3.
        training (bool): draw random slopes. Default: False.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.rrelu(nl.tensor([-1., 2.]), 0.2, 0.4)
        tensor([-0.3000,  2.0000])
    """
    from ...autograd.random import default_generator

    if not training:
        # a float, or an array of per-element slopes (which Tensor's operators take as they take
        # a number)
        slope: Any = (lower + upper) / 2
    else:
        data = input._data
        slope = (lower + (upper - lower) * default_generator.random(data.shape)).astype(data.dtype)
    return _apply(input, lambda x: _where(x._data >= 0, x, x * slope), inplace)


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: object = None
) -> Tensor:
    """``softmax(-input)`` along ``dim``.

    Args:
        input (Tensor): the input.
        dim (int): the dimension the results sum to 1 along.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.softmin(nl.tensor([0., 0.]), dim=0)
        tensor([0.5000, 0.5000])
    """
    from ...autograd.ops.activation import _softmax_dim, softmax

    if dim is None:
        dim = _softmax_dim("softmin", input.ndim, _stacklevel)
    return softmax(-(input if dtype is None else input.to(dtype)), dim)


def _in_place(fn: Any, name: str, example_args: str = "") -> Any:
    """PyTorch's ``fn_``: ``fn`` with ``inplace=True``."""

    def in_place(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        out: Tensor = fn(input, *args, **kwargs, inplace=True)
        return out

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"""``{fn.__name__}`` in place: writes the result into ``input``.

    Args:
        input (Tensor): the input, overwritten.
        *args, **kwargs: as for ``{fn.__name__}``.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> x = nl.tensor([-1., 2.])
        >>> F.{name}(x{example_args}) is x
        True
    """
    return in_place


elu_ = _in_place(elu, "elu_")
celu_ = _in_place(celu, "celu_")
selu_ = _in_place(selu, "selu_")
hardtanh_ = _in_place(hardtanh, "hardtanh_")
threshold_ = _in_place(threshold, "threshold_", ", 0.5, 0.0")
rrelu_ = _in_place(rrelu, "rrelu_")


def gumbel_softmax(
    logits: Tensor, tau: float = 1.0, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g``; ``hard`` returns one-hot samples whose gradient is the soft sample's
    (the straight-through estimator).

    Args:
        logits (Tensor): unnormalised log-probabilities.
        tau (float): the temperature. Default: 1.
        hard (bool): one-hot output. Default: False.
        eps (float): unused, kept for PyTorch's signature.
        dim (int): the dimension of the categories. Default: -1.

    Returns:
        Tensor: the sample, of ``logits``' shape.

    Examples:
        >>> y = F.gumbel_softmax(nl.zeros(2, 3), hard=True)
        >>> y.sum(dim=-1)
        tensor([1., 1.])
    """
    from ...autograd.ops.activation import softmax
    from ...autograd.random import default_generator

    data = logits._data
    from ...autograd.creation import tensor

    gumbels = tensor(-np.log(default_generator.exponential(size=data.shape)).astype(data.dtype))
    soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    winners = soft._data.argmax(axis=dim)
    one_hot = np.zeros_like(soft._data)
    np.put_along_axis(one_hot, np.expand_dims(winners, dim), 1.0, axis=dim)
    return soft - soft.detach() + tensor(one_hot)
