"""``Exponential``: waiting times of a Poisson process of ``rate``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """The exponential distribution, density ``rate * exp(-rate * x)`` on ``x >= 0``.

    Args:
        rate (float or Tensor): positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Exponential(nl.tensor(2.0)).cdf(nl.tensor(1.0))
        tensor(0.8647)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return self.rate * 0

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate**-2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor
        from ..autograd.random import default_generator

        shape = tuple(self._extended_shape(sample_shape))
        draws = default_generator.standard_exponential(shape)
        return tensor(draws, dtype=self.rate.dtype) / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        icdf: Tensor = -(-value).log1p() / self.rate
        return icdf

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return -(-x).log()
