"""``Weibull``: ``scale * e^(1 / concentration)`` of a standard exponential ``e``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import AffineTransform, PowerTransform
from .exponential import Exponential
from .gumbel import EULER_CONSTANT
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """The two-parameter Weibull distribution, ``P(X > x) = exp(-(x / scale)^concentration)``.

    Args:
        scale (float or Tensor): positive.
        concentration (float or Tensor): the shape, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Weibull(nl.tensor(1.0), nl.tensor(1.0)).log_prob(nl.tensor(1.0))
        tensor(-1.)
    """

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(self.scale * 0 + 1, validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        mean: Tensor = self.scale * (1 + self.concentration_reciprocal).lgamma().exp()
        return mean

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        variance: Tensor = self.scale**2 * (
            (1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp()
        )
        return variance

    def entropy(self) -> Tensor:
        r = self.concentration_reciprocal
        return EULER_CONSTANT * (1 - r) + (self.scale * r).log() + 1
