"""``Uniform``: the continuous uniform distribution on ``[low, high)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, format_value

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``.

    Args:
        low (float or Tensor): the lower end (inclusive).
        high (float or Tensor): the upper end (exclusive), above ``low``.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Uniform(0.0, 2.0).entropy()
        tensor(0.6931)
    """

    arg_constraints = {
        "low": constraints.dependent,
        "high": constraints.dependent,
    }
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, (), validate_args)
        if self._validate_args and not bool((self.low._data < self.high._data).all()):
            raise ValueError(
                f"Expected parameter low ({type(self.low).__name__} of shape "
                f"{tuple(self.low.shape)}) of distribution {self!r} to satisfy the constraint "
                f"LessThan(upper_bound={format_value(self.high)}), but found invalid values:\n"
                f"{format_value(self.low)}"
            )

    @property
    def support(self) -> Any:
        return constraints.half_open_interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.low * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        return self.low + rand(*shape, dtype=self.low.dtype) * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = (self.low._data <= value._data) & (value._data < self.high._data)
        from ..autograd.creation import tensor

        outside = tensor(np.where(inside, 0.0, -np.inf).astype(self.low._data.dtype))
        return outside - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
