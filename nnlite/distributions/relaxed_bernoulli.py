"""``RelaxedBernoulli``: the continuous relaxation of a coin (the binary Concrete
distribution), ``sigmoid`` of a ``LogitRelaxedBernoulli``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .binary_parameters import BinaryParameters
from .distribution import Distribution
from .elementwise_transforms import SigmoidTransform
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all, clamp_probs, probs_or_logits

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryParameters, Distribution):
    """The logit of a ``RelaxedBernoulli`` sample: ``(logistic noise + logits) / temperature``.

    Args:
        temperature (Tensor): the relaxation temperature, positive.
        probs (float or Tensor, optional): the probability of 1.
        logits (float or Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        self.temperature = temperature
        (param,) = probs_or_logits(self, probs, logits)
        super().__init__(param.shape, (), validate_args)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(*shape))
        u = clamp_probs(rand(*shape, dtype=probs.dtype))
        sample: Tensor = (
            u.log() - (-u).log1p() + probs.log() - (-probs).log1p()
        ) / self.temperature
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        log_prob: Tensor = self.temperature.log() + diff - 2 * diff.exp().log1p()
        return log_prob


class RelaxedBernoulli(TransformedDistribution):
    """The relaxed Bernoulli (binary Concrete) distribution on ``(0, 1)``: reparameterised
    samples that approach a coin's 0/1 as ``temperature`` goes to 0.

    Args:
        temperature (Tensor): the relaxation temperature, positive.
        probs (float or Tensor, optional): the probability of 1.
        logits (float or Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.RelaxedBernoulli(nl.tensor(0.5), probs=nl.tensor(0.3))
        >>> m.log_prob(nl.tensor(0.5))
        tensor(-0.8675)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    base_dist: LogitRelaxedBernoulli

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature."""
        temperature: Tensor = self.base_dist.temperature
        return temperature

    @property
    def logits(self) -> Tensor:
        """The log-odds of 1."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The probability of 1."""
        return self.base_dist.probs
