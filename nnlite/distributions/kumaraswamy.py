"""``Kumaraswamy``: a beta-like distribution on ``[0, 1]`` with a closed-form cdf."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import AffineTransform, PowerTransform
from .gumbel import EULER_CONSTANT
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all, where

__all__ = ["Kumaraswamy"]


def _moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[X^n] = b B(1 + n / a, b)``."""
    arg1 = 1 + n / a
    log_value = arg1.lgamma() + b.lgamma() - (arg1 + b).lgamma()
    moment: Tensor = b * log_value.exp()
    return moment


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution, density ``a b x^(a-1) (1 - x^a)^(b-1)``: the transform
    ``(1 - u^(1/b))^(1/a)`` of a uniform ``u``.

    Args:
        concentration1 (float or Tensor): ``a``, positive.
        concentration0 (float or Tensor): ``b``, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Kumaraswamy(nl.tensor(1.0), nl.tensor(1.0)).mean
        tensor(0.5000)
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
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        zero = self.concentration0 * 0
        base = Uniform(zero, zero + 1, validate_args=validate_args)
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        undefined = (b._data < 1) | (a._data < 1)
        return where(undefined, float("nan"), log_mode).exp()

    @property
    def variance(self) -> Tensor:
        return _moment(self.concentration1, self.concentration0, 2) - self.mean**2

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        t1, t0 = 1 - a.reciprocal(), 1 - b.reciprocal()
        harmonic = (b + 1).digamma() + EULER_CONSTANT
        entropy: Tensor = t0 + t1 * harmonic - a.log() - b.log()
        return entropy
