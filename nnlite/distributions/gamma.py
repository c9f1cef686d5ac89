"""``Gamma``: the gamma distribution of ``concentration`` and ``rate``, with reparameterised
samples (the implicit derivative of the gamma sampler)."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .gamma_sampler import standard_gamma
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution, density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` for
    ``a = concentration``.

    ``rsample`` is differentiable in both parameters: in ``rate`` by the scaling, in
    ``concentration`` by the implicit reparameterisation derivative of the sampler (first order).

    Args:
        concentration (float or Tensor): the shape ``a``, positive.
        rate (float or Tensor): the inverse scale, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Gamma(nl.tensor(2.0), nl.tensor(1.0)).log_prob(nl.tensor(1.0))
        tensor(-1.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate**2

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)

    def log_prob(self, value: Tensor) -> Tensor:
        from ..autograd.creation import tensor

        if not isinstance(value, Tensor):
            value = tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        log_prob: Tensor = (
            a.xlogy(self.rate) + (a - 1).xlogy(value) - self.rate * value - a.lgamma()
        )
        return log_prob

    def entropy(self) -> Tensor:
        a = self.concentration
        entropy: Tensor = a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()
        return entropy

    def cdf(self, value: Tensor) -> Tensor:
        from .incomplete_gamma import gammainc

        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        log_normalizer: Tensor = (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()
        return log_normalizer
