"""``kl_divergence(p, q)`` and ``register_kl``: the KL divergence from a registry of closed forms
keyed by the two distributions' types, as PyTorch's ``torch.distributions.kl``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd.ops.where import Where
from ..autograd.tensor import Tensor
from .bernoulli import Bernoulli
from .categorical import Categorical
from .distribution import Distribution
from .independent import Independent
from .multivariate_normal import MultivariateNormal, batch_mahalanobis
from .normal import Normal
from .triangular import diagonal, solve_lower
from .uniform import Uniform
from .utils import sum_rightmost

__all__ = ["kl_divergence", "register_kl"]

_KL_REGISTRY: dict[tuple[type, type], Callable[[Any, Any], Tensor]] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[Any], Any]:
    """A decorator registering ``fn(p, q)`` as the KL divergence of ``type_p`` from ``type_q``.

    Args:
        type_p (type): a subclass of ``Distribution``.
        type_q (type): a subclass of ``Distribution``.

    Returns:
        callable: the decorator.

    Examples:
        >>> class Point(nl.distributions.Normal):
        ...     pass
        >>> @nl.distributions.register_kl(Point, Point)
        ... def _kl_point(p, q):
        ...     return (p.loc - q.loc).abs()
    """
    for kind in (type_p, type_q):
        if not (isinstance(kind, type) and issubclass(kind, Distribution)):
            raise TypeError(
                f"Expected type_p and type_q to be Distribution subclasses but got {kind}"
            )

    def decorator(fn: Callable[[Any, Any], Tensor]) -> Callable[[Any, Any], Tensor]:
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _dispatch(type_p: type, type_q: type) -> Callable[[Any, Any], Tensor] | None:
    """The registered function of the most specific pair of base classes."""
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return None
    best = min(
        matches, key=lambda pair: (type_p.__mro__.index(pair[0]), type_q.__mro__.index(pair[1]))
    )
    return _KL_REGISTRY[best]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, the Kullback-Leibler divergence of ``p`` from ``q``, per batch member.

    Args:
        p (Distribution): the first distribution.
        q (Distribution): the second, of a compatible batch shape.

    Returns:
        Tensor: ``batch_shape``.

    Raises:
        NotImplementedError: no closed form is registered for the pair of types.

    Examples:
        >>> p = nl.distributions.Normal(0.0, 1.0)
        >>> q = nl.distributions.Normal(1.0, 2.0)
        >>> nl.distributions.kl_divergence(p, q)
        tensor(0.4431)
    """
    fn = _dispatch(type(p), type(q))
    if fn is None:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
            f"{type(q).__name__}"
        )
    return fn(p, q)


def _infinite_where(condition: np.ndarray, value: Tensor) -> Tensor:
    infinite_where: Tensor = Where.apply(condition, np.inf, value)
    return infinite_where


def _zero_where(condition: np.ndarray, value: Tensor) -> Tensor:
    zero_where: Tensor = Where.apply(condition, 0.0, value)
    return zero_where


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    variance_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (variance_ratio + t1 - 1 - variance_ratio.log())


def _softplus(x: Tensor) -> Tensor:
    from ..nn.functional import softplus

    return softplus(x)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    p_probs, q_probs = p.probs._data, q.probs._data
    t1 = p.probs * (_softplus(-q.logits) - _softplus(-p.logits))
    t1 = _zero_where(p_probs == 0, _infinite_where(q_probs == 0, t1))
    t2 = (1 - p.probs) * (_softplus(q.logits) - _softplus(p.logits))
    t2 = _zero_where(p_probs == 1, _infinite_where(q_probs == 1, t2))
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    shape = np.broadcast_shapes(p.probs.shape, q.probs.shape)
    t = _infinite_where(np.broadcast_to(q.probs._data == 0, shape), t)
    t = _zero_where(np.broadcast_to(p.probs._data == 0, shape), t)
    return t.sum(-1)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low._data > p.low._data) | (q.high._data < p.high._data)
    return _infinite_where(outside, result)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p: Uniform, q: Normal) -> Tensor:
    common_term = p.high - p.low
    t1 = (np.sqrt(np.pi * 2) * q.scale / common_term).log()
    t2 = common_term**2 / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2) ** 2
    kl: Tensor = t1 + 0.5 * (t2 + t3) / q.scale**2
    return kl


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(
    p: MultivariateNormal, q: MultivariateNormal
) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot "
            "be computed"
        )
    d = p.event_shape[0]
    half_term1 = diagonal(q.scale_tril).log().sum(-1) - diagonal(p.scale_tril).log().sum(-1)
    shape = np.broadcast_shapes(tuple(q.scale_tril.shape[:-2]), tuple(p.scale_tril.shape[:-2]))
    solved = solve_lower(q.scale_tril.expand(*shape, d, d), p.scale_tril.expand(*shape, d, d))
    term2 = (solved * solved).sum((-2, -1))
    term3 = batch_mahalanobis(q.scale_tril, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - d)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return sum_rightmost(result, p.reinterpreted_batch_ndims)
