"""``RelaxedOneHotCategorical``: the continuous relaxation of a one-hot categorical (the
Gumbel-softmax or Concrete distribution), ``exp`` of an ``ExpRelaxedCategorical``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .elementwise_transforms import ExpTransform
from .transformed_distribution import TransformedDistribution
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The logarithm of a ``RelaxedOneHotCategorical`` sample: a log-softmax of
    ``(logits + Gumbel noise) / temperature``.

    Args:
        temperature (Tensor): the relaxation temperature, positive.
        probs (Tensor, optional): ``(*batch, K)`` non-negative weights.
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log-probabilities.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        param_shape = tuple(self._categorical.param_shape)
        super().__init__(self._categorical.batch_shape, param_shape[-1:], validate_args)

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter."""
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        u = clamp_probs(rand(*shape, dtype=self.logits.dtype))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        sample: Tensor = scores - scores.logsumexp(-1, keepdim=True)
        return sample

    def log_prob(self, value: Tensor) -> Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        temperature = self.temperature
        log_scale = (temperature * 0 + float(k)).lgamma() - temperature.log() * -(k - 1)
        score = logits - value * temperature
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        log_prob: Tensor = score + log_scale
        return log_prob


class RelaxedOneHotCategorical(TransformedDistribution):
    """The relaxed one-hot categorical (Gumbel-softmax, Concrete) distribution on the simplex:
    reparameterised samples that approach one-hot vectors as ``temperature`` goes to 0.

    Args:
        temperature (Tensor): the relaxation temperature, positive.
        probs (Tensor, optional): ``(*batch, K)`` non-negative weights.
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log-probabilities.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.RelaxedOneHotCategorical(nl.tensor(1.0), probs=nl.tensor([0.5, 0.5]))
        >>> m.rsample().shape
        nnlite.Size([2])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    base_dist: ExpRelaxedCategorical

    def __init__(
        self,
        temperature: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> Tensor:
        """The relaxation temperature."""
        temperature: Tensor = self.base_dist.temperature
        return temperature

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self.base_dist.probs
