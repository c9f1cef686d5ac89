"""``GeneralizedPareto``: the peaks-over-threshold distribution (exponential, Pareto or bounded
tails as ``concentration`` is 0, positive or negative)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, where

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalised Pareto distribution, survival ``(1 + c z)^(-1/c)`` with
    ``z = (x - loc) / scale`` (``exp(-z)`` at ``c = 0``).

    Args:
        loc (float or Tensor): the lower end of the support.
        scale (float or Tensor): positive.
        concentration (float or Tensor): the tail shape ``c``.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.GeneralizedPareto(0.0, 1.0, 0.0).log_prob(nl.tensor(1.0))
        tensor(-1.)
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(
        self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None
    ) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def _zero(self) -> np.ndarray:
        zero: np.ndarray = np.isclose(self.concentration._data, 0.0)
        return zero

    def _safe_concentration(self) -> Tensor:
        return where(self._zero(), 1.0, self.concentration)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        return self.icdf(rand(*shape, dtype=self.loc.dtype))

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        c = self._safe_concentration()
        y = 1 / c + 1
        nonzero = where(y._data == 0, y, y * (c * z).log1p())
        return -self.scale.log() - where(self._zero(), z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        """``log P(X > value)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        c = self._safe_concentration()
        return where(self._zero(), -z, -(c * z).log1p() / c)

    def log_cdf(self, value: Tensor) -> Tensor:
        """``log P(X <= value)``."""
        log_cdf: Tensor = (-self.log_survival_function(value).exp()).log1p()
        return log_cdf

    def cdf(self, value: Tensor) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        c = self._safe_concentration()
        log_u = (-value).log1p()
        nonzero = self.loc + self.scale / c * (-c * log_u).expm1()
        return where(self._zero(), self.loc - self.scale * log_u, nonzero)

    @property
    def mean(self) -> Tensor:
        valid = self.concentration._data < 1
        c = where(valid, self.concentration, 0.5)
        return where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self) -> Tensor:
        valid = self.concentration._data < 0.5
        c = where(valid, self.concentration, 0.25)
        return where(valid, self.scale**2 / ((1 - c) ** 2 * (1 - 2 * c)), math.nan)

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).expand(*self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def support(self) -> Any:
        negative = self.concentration._data < 0
        upper = where(negative, self.loc - self.scale / self.concentration, math.inf)
        return constraints.interval(self.loc, upper)
