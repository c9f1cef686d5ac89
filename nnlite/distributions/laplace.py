"""``Laplace``: the double-exponential distribution."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc (float or Tensor): the centre.
        scale (float or Tensor): positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Laplace(0.0, 1.0).log_prob(nl.tensor(1.0))
        tensor(-1.6931)
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
    def variance(self) -> Tensor:
        return 2 * self.scale**2

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        eps = float(np.finfo(self.loc._data.dtype).eps)
        u = rand(*shape, dtype=self.loc.dtype) * (2 - eps) + (eps - 1)  # in (eps - 1, 1)
        sample: Tensor = self.loc - self.scale * u.sign() * (-u.abs()).log1p()
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        d = value - self.loc
        cdf: Tensor = 0.5 - 0.5 * d.sign() * (-d.abs() / self.scale).expm1()
        return cdf

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        icdf: Tensor = self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()
        return icdf

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
