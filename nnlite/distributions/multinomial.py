"""``Multinomial``: counts of ``total_count`` draws over ``K`` categories."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all, where

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The multinomial distribution: how many of ``total_count`` categorical draws land in each
    of the ``K`` categories.

    Args:
        total_count (int): the number of draws. Default: 1.
        probs (Tensor, optional): ``(*batch, K)`` non-negative weights.
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log-probabilities.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.Multinomial(2, probs=nl.tensor([0.5, 0.5]))
        >>> m.log_prob(nl.tensor([1.0, 1.0]))
        tensor(-0.6931)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        param_shape = tuple(self._categorical.param_shape)
        super().__init__(self._categorical.batch_shape, param_shape[-1:], validate_args)

    @property
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter."""
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor

        with no_grad():
            draws = self._categorical.sample((self.total_count, *tuple(sample_shape)))
            k = self._categorical._num_events
            counts = (np.eye(k, dtype=self.probs._data.dtype)[draws._data]).sum(0)
            return tensor(counts.reshape(tuple(self._extended_shape(sample_shape))))

    def entropy(self) -> Tensor:
        from ..autograd.creation import tensor

        n = tensor(float(self.total_count), dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        entropy: Tensor = term1 + (binomial_probs * weights).sum((0, -1))
        return entropy

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # a category of probability 0 seen 0 times contributes nothing
        logits = where((value._data == 0) & (logits._data == -np.inf), 0.0, logits)
        log_prob: Tensor = log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
        return log_prob
