"""``OneHotCategorical`` (samples are one-hot vectors) and
``OneHotCategoricalStraightThrough`` (with straight-through gradients)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


def one_hot_of(indices: Tensor, count: int, like: Tensor) -> Tensor:
    """``indices`` as one-hot vectors of ``count`` entries, in ``like``'s dtype."""
    from ..autograd.creation import tensor

    eye = np.eye(count, dtype=like._data.dtype)
    return tensor(eye[np.asarray(indices._data, dtype=np.int64)])


class OneHotCategorical(Distribution):
    """A categorical distribution whose samples are one-hot vectors of ``K`` entries.

    Args:
        probs (Tensor, optional): ``(*batch, K)`` non-negative weights.
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log-probabilities.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.OneHotCategorical(probs=nl.tensor([0.25, 0.75]))
        >>> m.log_prob(nl.tensor([0.0, 1.0]))
        tensor(-0.2877)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits)
        param_shape = tuple(self._categorical.param_shape)
        super().__init__(self._categorical.batch_shape, param_shape[-1:], validate_args)

    @property
    def probs(self) -> Tensor:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return self._categorical.logits

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter."""
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        # (dim, keepdim): Tensor.argmax is typed positional-only
        return one_hot_of(probs.argmax(-1, False), probs.shape[-1], probs)

    @property
    def variance(self) -> Tensor:
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot_of(indices, self._categorical._num_events, probs)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        from ..autograd.creation import eye

        n = self._event_shape[0]
        values = eye(n, dtype=self._categorical.probs.dtype)
        values = values.reshape((n,) + (1,) * len(self._batch_shape) + (n,))
        return values.expand(n, *self._batch_shape, n) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` whose ``rsample`` passes gradients straight through: the value is
    the one-hot sample, the gradient that of ``probs``.

    Examples:
        >>> logits = nl.tensor([0.0, 1.0], requires_grad=True)
        >>> m = nl.distributions.OneHotCategoricalStraightThrough(logits=logits)
        >>> m.rsample().requires_grad
        True
    """

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
