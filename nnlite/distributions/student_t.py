"""``StudentT``: the t distribution, a normal divided by the root of a scaled chi-squared."""

from __future__ import annotations

import math
from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all, where

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution of ``df`` degrees of freedom, location ``loc`` and ``scale``.

    Args:
        df (float or Tensor): the degrees of freedom, positive.
        loc (float or Tensor): the centre. Default: 0.
        scale (float or Tensor): positive. Default: 1.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.StudentT(nl.tensor(1.0)).log_prob(nl.tensor(0.0))
        tensor(-1.1447)
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(
        self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return where(self.df._data <= 1, float("nan"), self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df._data
        safe = where(df > 2, self.df, 3.0)
        finite = self.scale**2 * safe / (safe - 2)
        return where(df <= 1, float("nan"), where(df <= 2, float("inf"), finite))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import randn

        shape = self._extended_shape(sample_shape)
        normal = randn(*shape, dtype=self.df.dtype)
        chi2 = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * normal * (chi2 / self.df).rsqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        df = self.df
        normaliser = (
            self.scale.log()
            + 0.5 * df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * df).lgamma()
            - (0.5 * (df + 1.0)).lgamma()
        )
        log_prob: Tensor = -0.5 * (df + 1.0) * (y**2 / df).log1p() - normaliser
        return log_prob

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        entropy: Tensor = (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )
        return entropy
