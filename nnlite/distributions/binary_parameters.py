"""``BinaryParameters``: the ``probs``/``logits`` pair of distributions built on one success
probability (Geometric, Binomial, NegativeBinomial): either is given, the other derived."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from .utils import lazy_property, logits_to_probs, probs_to_logits

__all__ = ["BinaryParameters"]


class BinaryParameters:
    """Mixin: ``probs`` and ``logits`` (log-odds) derived from whichever was given."""

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of success."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def _param(self) -> Tensor:
        param: Tensor = (
            self.__dict__["probs"] if "probs" in self.__dict__ else self.__dict__["logits"]
        )
        return param

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter."""
        return self._param.shape
