"""``Categorical``: one of ``K`` categories, with probabilities ``probs`` (or ``logits``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .bernoulli import _one_of
from .distribution import Distribution
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A categorical distribution over ``0 .. K-1`` along the last dimension of ``probs`` (which
    need not sum to 1: it is normalised) or ``logits`` (normalised with ``logsumexp``).

    Args:
        probs (Tensor, optional): ``(*batch, K)`` non-negative weights.
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log-probabilities.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.Categorical(probs=nl.tensor([0.25, 0.25, 0.5]))
        >>> m.log_prob(nl.tensor(2))
        tensor(-0.6931)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _one_of(probs, logits)
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            param = self.logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], (), validate_args)

    @lazy_property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Any:
        param = self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]
        return param.shape

    @property
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def mean(self) -> Tensor:
        return self.probs.sum(-1) * float("nan")

    @property
    def mode(self) -> Tensor:
        # (dim, keepdim): Tensor.argmax is typed positional-only
        return self.probs.argmax(-1, False)

    @property
    def variance(self) -> Tensor:
        return self.probs.sum(-1) * float("nan")

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor
        from ..autograd.random import default_generator

        sample_shape = tuple(sample_shape)
        with no_grad():
            probs = self.probs._data.reshape(-1, self._num_events).astype(np.float64)
            count = int(np.prod(sample_shape)) if sample_shape else 1
            cumulative = probs.cumsum(-1)
            cumulative /= cumulative[:, -1:]
            draws = default_generator.random((count, probs.shape[0], 1))
            picks = (draws > cumulative[None]).sum(-1).clip(0, self._num_events - 1)
            return tensor(picks.reshape(sample_shape + tuple(self._batch_shape)).astype(np.int64))

    def log_prob(self, value: Tensor) -> Tensor:
        from ..autograd.creation import tensor

        if self._validate_args:
            self._validate_sample(value)
        indices = np.asarray(value._data).astype(np.int64)
        shape = np.broadcast_shapes(indices.shape, tuple(self._batch_shape))
        logits = self.logits.expand(*shape, self._num_events)
        index = tensor(np.broadcast_to(indices, shape)[..., None].copy())
        return logits.gather(-1, index).squeeze(-1)

    def entropy(self) -> Tensor:
        smallest = float(np.finfo(self.logits._data.dtype).min)
        return -(self.logits.clamp(min=smallest) * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """The categories ``0 .. K-1``, shaped ``(K,) + batch_shape`` (or ``(K, 1, ...)``)."""
        from ..autograd.creation import arange

        values = arange(self._num_events).reshape((-1,) + (1,) * len(self._batch_shape))
        return values.expand(self._num_events, *self._batch_shape) if expand else values
