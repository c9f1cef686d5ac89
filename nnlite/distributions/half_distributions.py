"""``HalfNormal`` and ``HalfCauchy``: the absolute value of a centred ``Normal`` or ``Cauchy``
(a ``TransformedDistribution`` through ``AbsTransform``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .cauchy import Cauchy
from .elementwise_transforms import AbsTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .utils import where

__all__ = ["HalfCauchy", "HalfNormal"]


class _Folded(TransformedDistribution):
    """``|x|`` for a base symmetric about 0: twice the base density on ``x >= 0``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    base_dist: Any

    def __init__(self, base: Any, validate_args: bool | None) -> None:
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        """The base distribution's scale."""
        scale: Tensor = self.base_dist.scale
        return scale

    @property
    def mode(self) -> Tensor:
        return self.scale * 0

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return where(np.asarray(value._data) >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cdf: Tensor = 2 * self.base_dist.cdf(value) - 1
        return cdf

    def icdf(self, value: Tensor) -> Tensor:
        icdf: Tensor = self.base_dist.icdf((value + 1) / 2)
        return icdf

    def entropy(self) -> Tensor:
        entropy: Tensor = self.base_dist.entropy() - math.log(2)
        return entropy


class HalfNormal(_Folded):
    """The half-normal distribution: ``|x|`` for ``x ~ Normal(0, scale)``.

    Args:
        scale (float or Tensor): the scale of the normal, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.HalfNormal(nl.tensor(1.0)).log_prob(nl.tensor(0.0))
        tensor(-0.2258)
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale**2 * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """The half-Cauchy distribution: ``|x|`` for ``x ~ Cauchy(0, scale)``.

    Args:
        scale (float or Tensor): the scale of the Cauchy distribution, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.HalfCauchy(nl.tensor(1.0)).cdf(nl.tensor(1.0))
        tensor(0.5000)
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * 0 + math.inf

    @property
    def variance(self) -> Tensor:
        variance: Tensor = self.base_dist.variance
        return variance
