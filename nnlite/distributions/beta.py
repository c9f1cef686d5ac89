"""``Beta``: distributions on ``[0, 1]``, a two-category ``Dirichlet``."""

from __future__ import annotations

from numbers import Real
from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .dirichlet import Dirichlet
from .exponential_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """The beta distribution, density ``x^(c1-1) (1-x)^(c0-1) / B(c1, c0)``.

    Args:
        concentration1 (float or Tensor): ``c1``, positive.
        concentration0 (float or Tensor): ``c0``, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Beta(nl.tensor(2.0), nl.tensor(2.0)).log_prob(nl.tensor(0.5))
        tensor(0.4055)
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, concentration1: Any, concentration0: Any, validate_args: bool | None = None
    ) -> None:
        from ..autograd.creation import stack, tensor

        if isinstance(concentration1, Real) and isinstance(concentration0, Real):
            both = tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            both = stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, (), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        new: Any = super().expand(batch_shape, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return new

    @property
    def concentration1(self) -> Tensor:
        """The first concentration (of ``x``)."""
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        """The second concentration (of ``1 - x``)."""
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total**2 * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        from ..autograd.creation import stack

        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.concentration1, self.concentration0)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        log_normalizer: Tensor = x.lgamma() + y.lgamma() - (x + y).lgamma()
        return log_normalizer
