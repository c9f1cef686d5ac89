"""``Pareto``: ``scale * exp(e)`` of an exponential ``e`` of rate ``alpha``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """The Pareto (type I) distribution, density ``alpha scale^alpha / x^(alpha + 1)`` on
    ``x >= scale``.

    Args:
        scale (float or Tensor): the minimum, positive.
        alpha (float or Tensor): the tail index, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Pareto(nl.tensor(1.0), nl.tensor(2.0)).log_prob(nl.tensor(2.0))
        tensor(-1.3863)
    """

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        transforms = [ExpTransform(), AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale**2 * a / ((a - 1) ** 2 * (a - 2))

    @property
    def support(self) -> Any:
        return constraints.greater_than_eq(self.scale)

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
