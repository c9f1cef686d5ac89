"""``Binomial``: successes in ``total_count`` independent trials."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .binary_parameters import BinaryParameters
from .distribution import Distribution
from .utils import draws, probs_or_logits

__all__ = ["Binomial"]


def homogeneous_count(total_count: Tensor, what: str) -> int:
    """The one total count of a batch (``what`` needs it to be the same everywhere)."""
    data = np.asarray(total_count._data)
    count = int(data.max())
    if data.min() != count:
        raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
    return count


class Binomial(BinaryParameters, Distribution):
    """The binomial distribution of ``total_count`` trials of success probability ``probs``.

    Args:
        total_count (int or Tensor): the number of trials, non-negative. Default: 1.
        probs (Tensor, optional): the success probability.
        logits (Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Binomial(4, probs=nl.tensor(0.5)).log_prob(nl.tensor(2.0))
        tensor(-0.9808)
    """

    arg_constraints = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self,
        total_count: Any = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        count, param = probs_or_logits(self, probs, logits, total_count)
        self.total_count = count.to(param.dtype)
        super().__init__(param.shape, (), validate_args)

    @property
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        mode: Tensor = ((self.total_count + 1) * self.probs).floor().minimum(self.total_count)
        return mode

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            counts = self.total_count.expand(*shape)._data.astype(np.int64)
            return draws("binomial", shape, self.probs, counts, self.probs.expand(*shape)._data)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        log_choose = (n + 1).lgamma() - (value + 1).lgamma() - (n - value + 1).lgamma()
        # n log(1 + e^logit) = n max(logit, 0) + n log1p(e^-|logit|), finite for large |logit|;
        # max(logit, 0) as the mean of its two one-sided forms, so its gradient at 0 is 1/2
        positive_part = (logits.clamp(min=0) + logits - logits.clamp(max=0)) / 2
        normaliser = n * positive_part + n * (-logits.abs()).exp().log1p()
        log_prob: Tensor = value * logits + log_choose - normaliser
        return log_prob

    def entropy(self) -> Tensor:
        homogeneous_count(self.total_count, "entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from ..autograd.creation import arange

        count = homogeneous_count(self.total_count, "enumerate_support")
        values = arange(1 + count, dtype=self._param.dtype)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand(-1, *self._batch_shape) if expand else values
