"""``LogisticNormal``: a ``Normal`` vector pushed onto the simplex by stick breaking."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .vector_transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """The logistic-normal distribution: ``StickBreakingTransform()(x)`` for
    ``x ~ Normal(loc, scale)`` (vectors of ``K - 1`` entries give points of the ``K``-simplex).

    Args:
        loc (float or Tensor): the normal's mean.
        scale (float or Tensor): the normal's standard deviation, positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.LogisticNormal(nl.zeros(2), nl.ones(2)).event_shape
        nnlite.Size([3])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True
    base_dist: Any

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base: Any = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    @property
    def loc(self) -> Tensor:
        """The normal's mean."""
        loc: Tensor = self.base_dist.base_dist.loc
        return loc

    @property
    def scale(self) -> Tensor:
        """The normal's standard deviation."""
        scale: Tensor = self.base_dist.base_dist.scale
        return scale
