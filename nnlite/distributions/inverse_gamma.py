"""``InverseGamma``: ``1 / x`` of a ``Gamma`` variable."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import PowerTransform
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .utils import where

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """The inverse gamma distribution: ``1 / x`` for ``x ~ Gamma(concentration, rate)``.

    Args:
        concentration (float or Tensor): positive.
        rate (float or Tensor): positive (the scale of ``1 / x``).
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.InverseGamma(nl.tensor(2.0), nl.tensor(1.0)).log_prob(nl.tensor(1.0))
        tensor(-1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Gamma

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        from ..autograd.creation import tensor

        base = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = tensor(-1.0, dtype=base.rate.dtype)
        super().__init__(base, PowerTransform(minus_one), validate_args=validate_args)

    @property
    def concentration(self) -> Tensor:
        """The gamma's concentration."""
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        """The gamma's rate."""
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        return where(a._data > 1, self.rate / (a - 1), float("inf"))

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        result = self.rate**2 / ((a - 1) ** 2 * (a - 2))
        return where(a._data > 2, result, float("inf"))

    def entropy(self) -> Tensor:
        a = self.concentration
        entropy: Tensor = a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
        return entropy
