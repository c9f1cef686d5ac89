"""Helpers shared by the distributions: broadcasting parameters, probabilities and logits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

import numpy as np

from ..autograd.tensor import Tensor

_T = TypeVar("_T")


def as_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    """``value`` as a floating Tensor (numbers take ``like``'s dtype, or the default float32)."""
    from ..autograd.creation import tensor

    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like is not None else None
    return tensor(value, dtype=dtype) if dtype is not None else tensor(float(value))


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as Tensors of one broadcast shape (numbers take the tensors' dtype)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = [as_tensor(v, like) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return tuple(t if tuple(t.shape) == shape else t.expand(*shape) for t in tensors)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` kept a machine epsilon away from 0 and 1 (finite logits)."""
    eps = float(np.finfo(probs._data.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (``is_binary``) or log-probabilities of ``probs``."""
    clamped = clamp_probs(probs)
    if is_binary:
        return clamped.log() - (1 - clamped).log()
    return clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (``is_binary``: a sigmoid) or from logits (a softmax)."""
    from ..autograd.ops.activation import softmax

    return logits.sigmoid() if is_binary else softmax(logits, -1)


def sum_rightmost(value: Tensor, dims: int) -> Tensor:
    """``value`` summed over its ``dims`` rightmost dimensions."""
    if dims == 0:
        return value
    return value.reshape(*value.shape[: value.ndim - dims], -1).sum(-1)


def format_value(value: Tensor) -> str:
    """A tensor as PyTorch's ``f"{value}"`` writes it: the number for a 0-d tensor."""
    return str(value.item()) if value.ndim == 0 else repr(value)


class lazy_property(Generic[_T]):
    """A property computed on first access and then stored on the instance (PyTorch's: so
    ``probs`` given to a distribution and ``logits`` derived from it are both attributes)."""

    def __init__(self, compute: Callable[[Any], _T]) -> None:
        self.compute = compute
        self.__doc__ = compute.__doc__
        self.__name__ = compute.__name__

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> lazy_property[_T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> _T: ...
    def __get__(self, instance: object, owner: type | None = None) -> lazy_property[_T] | _T:
        if instance is None:
            return self
        value = self.compute(instance)
        instance.__dict__[self.__name__] = value
        return value


def where(condition: Any, a: Any, b: Any) -> Tensor:
    """``a`` where ``condition`` (a bool array or Tensor, not differentiated) holds, else ``b``."""
    from ..autograd.ops.where import Where

    mask = np.asarray(condition._data if isinstance(condition, Tensor) else condition)
    out: Tensor = Where.apply(mask.astype(bool), a, b)
    return out


def draws(method: str, shape: Any, like: Tensor, *args: Any) -> Tensor:
    """A Tensor of ``like``'s dtype filled by nnlite's generator's ``method`` (``"standard_cauchy"``,
    ``"poisson"``...) at ``shape``."""
    from ..autograd.creation import tensor
    from ..autograd.random import default_generator

    values = getattr(default_generator, method)(*args, size=tuple(shape))
    return tensor(np.asarray(values), dtype=like.dtype)


def probs_or_logits(dist: Any, probs: Any, logits: Any, *others: Any) -> tuple[Tensor, ...]:
    """Store exactly one of ``probs`` / ``logits`` on ``dist`` (broadcast with ``others``);
    returns ``others`` broadcast, then the given parameter. The other one is derived lazily."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    name, param = ("probs", probs) if probs is not None else ("logits", logits)
    values = broadcast_all(*others, param)
    dist.__dict__[name] = values[-1]
    return values
