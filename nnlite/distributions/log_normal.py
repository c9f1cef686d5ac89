"""``LogNormal``: ``exp`` of a ``Normal``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import ExpTransform
from .normal import Normal
from .transformed_distribution import TransformedDistribution

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The log-normal distribution: ``exp(x)`` for ``x ~ Normal(loc, scale)``.

    Args:
        loc (float or Tensor): the mean of ``log(x)``.
        scale (float or Tensor): the standard deviation of ``log(x)``, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.LogNormal(0.0, 1.0).log_prob(nl.tensor(1.0))
        tensor(-0.9189)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The mean of the logarithm."""
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        """The standard deviation of the logarithm."""
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale**2 / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale**2).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale**2
        variance: Tensor = scale_sq.expm1() * (2 * self.loc + scale_sq).exp()
        return variance

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
