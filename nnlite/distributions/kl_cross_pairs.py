"""Closed-form KL divergences between different families, registered under PyTorch's pairs:
formulas where the support of ``q`` covers that of ``p``, infinity where it cannot."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import EULER_CONSTANT, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from .utils import where


def _infinite_like(value: Tensor) -> Tensor:
    from ..autograd.creation import full_like

    return full_like(value.detach(), math.inf)


def _register_infinite(p_type: type, q_types: tuple[type, ...], attribute: str) -> None:
    """``q`` cannot cover ``p``'s support: the divergence is infinite (shaped as ``p``'s
    ``attribute``)."""
    for q_type in q_types:
        register_kl(p_type, q_type)(lambda p, q: _infinite_like(getattr(p, attribute)))


_register_infinite(Beta, (Pareto,), "concentration1")
_register_infinite(ContinuousBernoulli, (Pareto,), "probs")
_register_infinite(Exponential, (Beta, ContinuousBernoulli, Pareto, Uniform), "rate")
_register_infinite(Gamma, (Beta, ContinuousBernoulli, Pareto, Uniform), "concentration")
_register_infinite(Gumbel, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Laplace, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Normal, (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform), "loc")
_register_infinite(Pareto, (Beta, ContinuousBernoulli, Uniform), "scale")
_register_infinite(Poisson, (Bernoulli, Binomial), "rate")


def _x_log_x(value: Tensor) -> Tensor:
    return value * value.log()


def _data(value: Any) -> np.ndarray:
    return np.asarray(getattr(value, "_data", value))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
@register_kl(Uniform, ContinuousBernoulli)
def _kl_to_continuous_bernoulli(p: Any, q: ContinuousBernoulli) -> Tensor:
    result = -p.entropy() - p.mean * q.logits - (-q.probs).log1p() - q._cont_bern_log_norm()
    if isinstance(p, Uniform):
        outside = (_data(p.high) >= 1) | (_data(p.low) <= 0)
        result = where(np.broadcast_to(outside, result.shape), math.inf, result)
    return result


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p: Beta, q: Exponential) -> Tensor:
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() - q.rate.log() + q.rate * mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p: Beta, q: Gamma) -> Tensor:
    total = p.concentration1 + p.concentration0
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - total.digamma())
    t4 = q.rate * p.concentration1 / total
    kl: Tensor = -p.entropy() + t2 - t3 + t4
    return kl


@register_kl(Beta, Normal)
def _kl_beta_normal(p: Beta, q: Normal) -> Tensor:
    total = p.concentration1 + p.concentration0
    mean = p.concentration1 / total
    variance = q.scale**2
    t2 = 0.5 * (variance * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (total + 1) + mean**2) * 0.5
    return -p.entropy() + t2 + (t3 - q.loc * mean + q.loc**2 * 0.5) / variance


@register_kl(Beta, Uniform)
@register_kl(ContinuousBernoulli, Uniform)
def _kl_unit_interval_uniform(p: Any, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    if isinstance(p, Beta):
        outside = (_data(q.low) > 0) | (_data(q.high) < 1)
    else:
        outside = (_data(q.low) >= 0) | (_data(q.high) <= 1)
    return where(np.broadcast_to(outside, result.shape), math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p: ContinuousBernoulli, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p: ContinuousBernoulli, q: Normal) -> Tensor:
    t2 = 0.5 * (math.log(2.0 * math.pi) + (q.loc / q.scale) ** 2) + q.scale.log()
    t3 = (p.variance + p.mean**2 - 2.0 * q.loc * p.mean) / (2.0 * q.scale**2)
    return -p.entropy() + t2 + t3


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p: Exponential, q: Gumbel) -> Tensor:
    product = p.rate * q.scale
    ratio = q.loc / q.scale
    return product.log() - 1 - ratio + ratio.exp() * product / (product + 1) + product.reciprocal()


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p: Exponential, q: Normal) -> Tensor:
    variance = q.scale**2
    rate_sq = p.rate**2
    t1 = 0.5 * (rate_sq * variance * 2 * math.pi).log()
    return t1 - 1 + (rate_sq.reciprocal() - q.loc / p.rate + q.loc**2 * 0.5) / variance


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p: Gamma, q: Gumbel) -> Tensor:
    product = p.rate * q.scale
    ratio = q.loc / q.scale
    a = p.concentration
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = product.log() + a / product
    t3 = ratio.exp() * (1 + product.reciprocal()) ** -a - ratio
    kl: Tensor = t1 + t2 + t3
    return kl


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p: Gamma, q: Normal) -> Tensor:
    variance = q.scale**2
    rate_sq = p.rate**2
    a = p.concentration
    t1 = 0.5 * (rate_sq * variance * 2 * math.pi).log() - a - a.lgamma()
    t2 = 0.5 * (a**2 + a) / rate_sq
    t3 = q.loc * a / p.rate
    kl: Tensor = t1 + (a - 1) * a.digamma() + (t2 - t3 + 0.5 * q.loc**2) / variance
    return kl


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p: Gumbel, q: Normal) -> Tensor:
    ratio = p.scale / q.scale
    t1 = (ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * ratio * 0.5) ** 2 / 3
    t3 = ((p.loc + p.scale * EULER_CONSTANT - q.loc) / q.scale) ** 2 * 0.5
    return -t1 + t2 + t3 - (EULER_CONSTANT + 1)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p: Laplace, q: Normal) -> Tensor:
    variance = q.scale**2
    ratio = p.scale**2 / variance
    t1 = 0.5 * (2 * ratio / math.pi).log()
    t2 = 0.5 * p.loc**2 - p.loc * q.loc + 0.5 * q.loc**2
    return -t1 + ratio + t2 / variance - 1


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p: Normal, q: Gumbel) -> Tensor:
    mean_ratio = p.loc / q.scale
    variance_ratio = (p.scale / q.scale) ** 2
    loc_ratio = q.loc / q.scale
    t1 = variance_ratio.log() * 0.5
    t3 = (-mean_ratio + 0.5 * variance_ratio + loc_ratio).exp()
    return -t1 + mean_ratio - loc_ratio + t3 - (0.5 * (1 + math.log(2 * math.pi)))


def _infinite_where(condition: np.ndarray, result: Tensor) -> Tensor:
    return where(np.broadcast_to(condition, result.shape), math.inf, result)


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p: Pareto, q: Exponential) -> Tensor:
    product = p.scale * q.rate
    result = (
        (p.alpha / product).log() - p.alpha.reciprocal() + p.alpha * product / (p.alpha - 1) - 1
    )
    return _infinite_where(_data(p.alpha) <= 1, result)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p: Pareto, q: Gamma) -> Tensor:
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _infinite_where(_data(p.alpha) <= 1, t1 + t2 + t3 + t4 - 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p: Pareto, q: Normal) -> Tensor:
    variance = 2 * q.scale**2
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common**2 / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc) ** 2
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / variance - 1
    return _infinite_where(_data(p.alpha) <= 2, result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    width = p.high - p.low
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = (
        q.concentration1.lgamma()
        + q.concentration0.lgamma()
        - (q.concentration1 + q.concentration0).lgamma()
    )
    result = t3 + t4 - width.log() - t2
    return _infinite_where((_data(p.high) > 1) | (_data(p.low) < 0), result)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p: Uniform, q: Exponential) -> Tensor:
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _infinite_where(_data(p.low) < 0, result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p: Uniform, q: Gamma) -> Tensor:
    width = p.high - p.low
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    return _infinite_where(_data(p.low) < 0, -width.log() + t2 + t3 + t4)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p: Uniform, q: Gumbel) -> Tensor:
    common = q.scale / (p.high - p.low)
    high = (p.high - q.loc) / q.scale
    low = (p.low - q.loc) / q.scale
    return common.log() + 0.5 * (high + low) - common * ((-high).exp() - (-low).exp())


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p: Uniform, q: Pareto) -> Tensor:
    width = p.high - p.low
    t1 = (q.alpha * q.scale**q.alpha * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _infinite_where(_data(p.low) < _data(q.scale), t2 * (q.alpha + 1) - t1)
