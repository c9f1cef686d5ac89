"""``FisherSnedecor``: the F distribution, a ratio of scaled chi-squared variables."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, where

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F distribution of ``df1`` and ``df2`` degrees of freedom.

    Args:
        df1 (float or Tensor): positive.
        df2 (float or Tensor): positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.FisherSnedecor(nl.tensor(2.0), nl.tensor(2.0)).log_prob(nl.tensor(1.0))
        tensor(-1.3863)
    """

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        df2 = where(self.df2._data <= 2, float("nan"), self.df2)
        return df2 / (df2 - 2)

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return where(self.df1._data <= 2, float("nan"), mode)

    @property
    def variance(self) -> Tensor:
        df2 = where(self.df2._data <= 4, float("nan"), self.df2)
        return 2 * df2**2 * (self.df1 + df2 - 2) / (self.df1 * (df2 - 2) ** 2 * (df2 - 4))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        tiny = float(np.finfo(self.df1._data.dtype).tiny)
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape).clamp(min=tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        log_prob: Tensor = t1 + t2 - t3
        return log_prob
