"""``Gumbel``: the extreme-value distribution, ``loc - scale * log(-log(u))`` of a uniform ``u``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import AffineTransform, ExpTransform
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

EULER_CONSTANT = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """The Gumbel distribution, density ``exp(-(z + exp(-z))) / scale`` with
    ``z = (x - loc) / scale``.

    Args:
        loc (float or Tensor): the location (the mode).
        scale (float or Tensor): positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Gumbel(0.0, 1.0).log_prob(nl.tensor(0.0))
        tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        from ..autograd.creation import full_like

        self.loc, self.scale = broadcast_all(loc, scale)
        info = np.finfo(self.loc._data.dtype)
        base = Uniform(
            full_like(self.loc, float(info.tiny)),
            full_like(self.loc, 1 - float(info.eps)),
            validate_args=validate_args,
        )
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0, scale=-(self.scale * 0 + 1)),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * EULER_CONSTANT

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev**2

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + EULER_CONSTANT)
