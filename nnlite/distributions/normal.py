"""``Normal``: the Gaussian distribution, with reparameterised samples."""

from __future__ import annotations

import math
from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Normal"]


class Normal(Distribution):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``.

    Args:
        loc (float or Tensor): the mean.
        scale (float or Tensor): the standard deviation, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.Normal(nl.tensor([0.0]), nl.tensor([1.0]))
        >>> m.log_prob(nl.tensor([0.0]))
        tensor([-0.9189])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale**2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import randn

        shape = self._extended_shape(sample_shape)
        noise = randn(*shape, dtype=self.loc.dtype)
        return self.loc + noise * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        variance = self.scale**2
        return (
            -((value - self.loc) ** 2) / (2 * variance)
            - self.scale.log()
            - math.log(math.sqrt(2 * math.pi))
        )

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ((value - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Tensor) -> Tensor:
        icdf: Tensor = self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)
        return icdf

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
