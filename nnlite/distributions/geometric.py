"""``Geometric``: the number of failures before the first success."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .binary_parameters import BinaryParameters
from .distribution import Distribution
from .utils import broadcast_all, probs_or_logits, where

__all__ = ["Geometric"]


class Geometric(BinaryParameters, Distribution):
    """The geometric distribution, mass ``(1 - p)^k p`` for ``k = 0, 1, ...``.

    Args:
        probs (float or Tensor, optional): the success probability ``p``, in ``(0, 1]``.
        logits (float or Tensor, optional): its log-odds.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Geometric(probs=nl.tensor(0.5)).log_prob(nl.tensor(1.0))
        tensor(-1.3863)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        (param,) = probs_or_logits(self, probs, logits)
        super().__init__(param.shape, (), validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value._data > 0
            if not valid.all():
                raise ValueError(
                    f"Expected parameter probs ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to be positive but found "
                    f"invalid values:\n{value[~valid]!r}"
                )

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return self.probs * 0

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        tiny = float(np.finfo(self.probs._data.dtype).tiny)
        with no_grad():
            u = rand(*shape, dtype=self.probs.dtype).clamp(min=tiny)
            sample: Tensor = (u.log() / (-self.probs).log1p()).floor()
            return sample

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # a sure success (p = 1) at k = 0: probability 1, not 0 * log(0)
        probs = where((probs._data == 1) & (value._data == 0), 0.0, probs)
        log_prob: Tensor = value * (-probs).log1p() + self.probs.log()
        return log_prob

    def entropy(self) -> Tensor:
        from ..nn.functional import binary_cross_entropy_with_logits

        bce = binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
        return bce / self.probs
