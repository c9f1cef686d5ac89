"""``Poisson``: counts of events at ``rate``."""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .utils import broadcast_all, draws

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """The Poisson distribution, mass ``rate^k exp(-rate) / k!``.

    Args:
        rate (float or Tensor): non-negative.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Poisson(nl.tensor(2.0)).log_prob(nl.tensor(1.0))
        tensor(-1.3069)
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), validate_args)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        mode: Tensor = self.rate.floor()
        return mode

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return draws("poisson", shape, self.rate, self.rate.expand(*shape)._data)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        log_prob: Tensor = value.xlogy(rate) - rate - (value + 1).lgamma()
        return log_prob

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.rate.log(),)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return x.exp()
