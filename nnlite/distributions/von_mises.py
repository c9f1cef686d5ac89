"""``VonMises``: the circular normal distribution on angles."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def log_bessel_i(x: Tensor, order: int) -> Tensor:
    """``log I_order(x)`` for ``x > 0``, from the exponentially scaled Bessel function."""
    from .. import special

    scaled = special.i0e(x) if order == 0 else special.i1e(x)
    log_bessel_i: Tensor = scaled.log() + x
    return log_bessel_i


class VonMises(Distribution):
    """The von Mises distribution, density ``exp(k cos(x - loc)) / (2 pi I0(k))`` for
    ``k = concentration``. Samples lie in ``[-pi, pi]``; ``mean`` and
    ``variance`` are the circular ones.

    Args:
        loc (Tensor): the mean angle, in radians.
        concentration (Tensor): positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.VonMises(nl.tensor(0.0), nl.tensor(1.0)).log_prob(nl.tensor(0.0))
        tensor(-1.0738)
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        k = self.concentration
        return k * (value - self.loc).cos() - math.log(2 * math.pi) - log_bessel_i(k, 0)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor
        from ..autograd.random import default_generator

        shape = tuple(self._extended_shape(sample_shape))
        with no_grad():
            loc = np.broadcast_to(self.loc._data, shape).astype(np.float64)
            kappa = np.broadcast_to(self.concentration._data, shape).astype(np.float64)
            angles = default_generator.vonmises(loc, kappa)  # in [-pi, pi], as PyTorch's
            return tensor(angles, dtype=self.loc.dtype)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (log_bessel_i(k, 1) - log_bessel_i(k, 0)).exp()
