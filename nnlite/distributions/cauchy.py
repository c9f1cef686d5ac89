"""``Cauchy``: the Lorentz distribution (no mean, no variance)."""

from __future__ import annotations

import math
from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, draws

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy distribution, density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``.

    Args:
        loc (float or Tensor): the median.
        scale (float or Tensor): the half width at half maximum, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Cauchy(0.0, 1.0).cdf(nl.tensor(1.0))
        tensor(0.7500)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc * 0 + float("nan")

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.loc * 0 + float("inf")

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        noise = draws("standard_cauchy", self._extended_shape(sample_shape), self.loc)
        return self.loc + noise * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob: Tensor = (
            -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()
        )
        return log_prob

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cdf: Tensor = ((value - self.loc) / self.scale).atan() / math.pi + 0.5
        return cdf

    def icdf(self, value: Tensor) -> Tensor:
        icdf: Tensor = (math.pi * (value - 0.5)).tan() * self.scale + self.loc
        return icdf

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
