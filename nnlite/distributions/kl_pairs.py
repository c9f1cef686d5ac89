"""Closed-form KL divergences of the distribution families beyond ``kl.py``'s first ones,
registered with ``register_kl`` under the same pairs as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from .beta import Beta
from .binomial import Binomial
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exponential import Exponential
from .exponential_family import ExponentialFamily
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import EULER_CONSTANT, Gumbel
from .half_distributions import HalfNormal
from .kl import (
    _kl_categorical_categorical,
    _kl_multivariatenormal_multivariatenormal,
    _kl_normal_normal,
    kl_divergence,
    register_kl,
)
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .utils import sum_rightmost, where


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    kl: Tensor = t1 - t2 + t3 + t4 + t5
    return kl


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if (p.total_count._data < q.total_count._data).any():
        raise NotImplementedError(
            "KL between Binomials where q.total_count > p.total_count is not implemented"
        )
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return where(p.total_count._data > q.total_count._data, math.inf, kl)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    t1 = ((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2).log()
    return t1 - (4 * p.scale * q.scale).log()


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli(p: ContinuousBernoulli, q: ContinuousBernoulli) -> Tensor:
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + (-p.probs).log1p()
    t3 = -q._cont_bern_log_norm() - (-q.probs).log1p()
    kl: Tensor = t1 + t2 + t3
    return kl


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p, sum_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    kl: Tensor = t1 - t2 + (t3 * t4).sum(-1)
    return kl


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """The Bregman divergence of the log normaliser, for two members of one family."""
    from ..autograd import grad

    if type(p) is not type(q):
        raise NotImplementedError(
            "The cross KL-divergence between different exponential families cannot be "
            "computed using Bregman divergences"
        )
    p_params = [param.detach().requires_grad_() for param in p._natural_params]
    q_params = q._natural_params
    normaliser = p._log_normalizer(*p_params)
    gradients = grad(normaliser.sum(), p_params, create_graph=True)
    result = q._log_normalizer(*q_params) - normaliser
    for p_param, q_param, gradient in zip(p_params, q_params, gradients):
        result = result - sum_rightmost((q_param - p_param) * gradient, len(q.event_shape))
    return result


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    kl: Tensor = t1 + t2 + t3 + t4
    return kl


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p: Exponential, q: Gamma) -> Tensor:
    ratio = q.rate / p.rate
    kl: Tensor = (
        -q.concentration * ratio.log()
        + ratio
        + q.concentration.lgamma()
        + q.concentration * EULER_CONSTANT
        - (1 + EULER_CONSTANT)
    )
    return kl


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p: Gamma, q: Exponential) -> Tensor:
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    kl: Tensor = -p.entropy() - (-q.probs).log1p() / p.probs - q.logits
    return kl


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ct1, ct2, ct3 = p.scale / q.scale, q.loc / q.scale, p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t3 = (ct2 + (1 + ct1).lgamma() - ct3).exp()
    kl: Tensor = t1 + ct1 * EULER_CONSTANT + t3 - (1 + EULER_CONSTANT)
    return kl


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    kl: Tensor = _kl_normal_normal(p.base_dist, q.base_dist)
    return kl


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -ratio.log() + distance / q.scale + ratio * (-distance / p.scale).exp() - 1


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    difference = p.loc - q.loc
    standardised = difference / p.scale
    t1 = (p.scale / q.scale).log()
    t2 = math.sqrt(2 / math.pi) * p.scale * (-0.5 * standardised**2).exp()
    t3 = difference * (math.sqrt(0.5) * standardised).erf()
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    kl: Tensor = _kl_categorical_categorical(p._categorical, q._categorical)
    return kl


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p: Pareto, q: Pareto) -> Tensor:
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - alpha_ratio.log() + alpha_ratio - 1
    # p reaches below q's support: infinite
    outside = np.broadcast_to(p.scale._data < q.scale._data, result.shape)
    return where(outside, math.inf, result)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Any:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


def _as_full(dist: Any) -> MultivariateNormal:
    return dist._full if isinstance(dist, LowRankMultivariateNormal) else dist


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank(p: Any, q: Any) -> Tensor:
    """Through the full covariances (the event sizes of distributions are small)."""
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two (Low Rank) Multivariate Normals with different event "
            "shapes cannot be computed"
        )
    kl: Tensor = _kl_multivariatenormal_multivariatenormal(_as_full(p), _as_full(q))
    return kl
