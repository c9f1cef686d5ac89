"""``NegativeBinomial``: successes before ``total_count`` failures."""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .binary_parameters import BinaryParameters
from .distribution import Distribution
from .gamma import Gamma
from .utils import draws, probs_or_logits, where

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryParameters, Distribution):
    """The negative binomial distribution: the number of successes (probability ``probs``
    each) before ``total_count`` failures.

    Args:
        total_count (float or Tensor): non-negative (need not be an integer).
        probs (Tensor, optional): the success probability, in ``[0, 1)``.
        logits (Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.NegativeBinomial(2.0, probs=nl.tensor(0.5)).mean
        tensor(2.)
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        total_count: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        count, param = probs_or_logits(self, probs, logits, total_count)
        self.total_count = count.to(param.dtype)
        super().__init__(param.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        mode: Tensor = ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)
        return mode

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        # a Poisson of a gamma-distributed rate
        with no_grad():
            rate = Gamma(self.total_count, (-self.logits).exp(), validate_args=False).sample(
                sample_shape
            )
            return draws("poisson", rate.shape, rate, rate._data)

    def log_prob(self, value: Tensor) -> Tensor:
        from ..nn.functional import logsigmoid

        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        unnormalised = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        normaliser = -(n + value).lgamma() + (1.0 + value).lgamma() + n.lgamma()
        # no failures needed and none seen: probability 1 (lgamma(0) is infinite)
        normaliser = where((n + value)._data == 0.0, 0.0, normaliser)
        return unnormalised - normaliser
