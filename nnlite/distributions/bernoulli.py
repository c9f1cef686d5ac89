"""``Bernoulli``: a coin that shows 1 with probability ``probs``."""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


def _one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class Bernoulli(Distribution):
    """The Bernoulli distribution, parameterised by ``probs`` or by ``logits`` (log-odds).

    Args:
        probs (float or Tensor, optional): the probability of 1.
        logits (float or Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Bernoulli(probs=nl.tensor(0.25)).log_prob(nl.tensor(1.0))
        tensor(-1.3863)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, (), validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds of 1."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of 1."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Any:
        return self._param.shape

    @property
    def _param(self) -> Tensor:
        param: Tensor = (
            self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]
        )
        return param

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        out = (self.probs >= 0.5).to(self.probs.dtype)
        out[(self.probs == 0.5)] = float("nan")
        return out

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        with no_grad():
            probs = self.probs.expand(*shape)
            return (rand(*shape, dtype=probs.dtype) < probs).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        from ..nn.functional import binary_cross_entropy_with_logits

        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The values 0 and 1, shaped ``(2,) + batch_shape`` (or ``(2, 1, ...)``)."""
        from ..autograd.creation import tensor

        values = tensor([0.0, 1.0], dtype=self._param.dtype).reshape(
            (2,) + (1,) * len(self._batch_shape)
        )
        return values.expand(2, *self._batch_shape) if expand else values
