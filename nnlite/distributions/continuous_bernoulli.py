"""``ContinuousBernoulli``: a density on ``[0, 1]`` proportional to ``p^x (1 - p)^(1 - x)``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .binary_parameters import BinaryParameters
from .exponential_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, where

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryParameters, ExponentialFamily):
    """The continuous Bernoulli distribution, parameterised by ``probs`` or ``logits``.

    Near ``probs = 0.5`` (inside ``lims``) the normaliser and moments use Taylor expansions,
    as PyTorch's do, to stay accurate.

    Args:
        probs (float or Tensor, optional): in ``[0, 1]``.
        logits (float or Tensor, optional): its log-odds.
        lims (tuple of float): the interval around 0.5 using Taylor expansions.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.ContinuousBernoulli(probs=nl.tensor(0.2)).mean
        tensor(0.3880)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple[float, float] = (0.499, 0.501),
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (given,) = broadcast_all(probs)
            # checked before clamping, which would hide invalid values
            if validate_args is not None and not np.all(constraints.unit_interval.check(given)):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(given)
        else:
            (self.logits,) = broadcast_all(logits)
        self._lims = lims
        super().__init__(self._param.shape, (), validate_args)

    @lazy_property
    def probs(self) -> Tensor:
        """The parameter, kept a machine epsilon inside ``(0, 1)``."""
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self) -> np.ndarray:
        p = self.probs._data
        return (p <= self._lims[0]) | (p > self._lims[1])

    def _cut_probs(self) -> Tensor:
        return where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> Tensor:
        """The log normaliser as a function of ``probs``."""
        cut = self._cut_probs()
        below = where(cut._data <= 0.5, cut, 0.0)
        above = where(cut._data >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - where(
            cut._data <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log()
        )
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x**2) * x
        return where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut * (cut - 1.0) / (1.0 - 2.0 * cut) ** 2 + 1.0 / ((-cut).log1p() - cut.log()) ** 2
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return where(self._outside_unstable_region(), exact, taylor)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import rand

        shape = self._extended_shape(sample_shape)
        return self.icdf(rand(*shape, dtype=self.probs.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        from ..nn.functional import binary_cross_entropy_with_logits

        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bce = binary_cross_entropy_with_logits(logits, value, reduction="none")
        return -bce + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut**value * (1.0 - cut) ** (1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = where(self._outside_unstable_region(), cdfs, value)
        v = np.asarray(value._data)
        return where(v <= 0.0, 0.0, where(v >= 1.0, 1.0, unbounded))

    def icdf(self, value: Tensor) -> Tensor:
        cut = self._cut_probs()
        exact = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p()
        )
        return where(self._outside_unstable_region(), exact, value)

    def entropy(self) -> Tensor:
        log_probs0 = (-self.probs).log1p()
        log_probs1 = self.probs.log()
        entropy: Tensor = (
            self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0
        )
        return entropy

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        """The log normaliser as a function of the natural parameter."""
        data = x._data
        outside = (data <= self._lims[0] - 0.5) | (data > self._lims[1] - 0.5)
        cut = where(outside, x, self._lims[0] - 0.5)
        log_norm = cut.expm1().abs().log() - cut.abs().log()
        taylor = 0.5 * x + x**2 / 24.0 - x**4 / 2880.0
        return where(outside, log_norm, taylor)
