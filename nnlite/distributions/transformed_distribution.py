"""``TransformedDistribution``: a base distribution pushed through a chain of transforms; its
density follows from the change of variables."""

from __future__ import annotations

from typing import Any

from ..autograd.grad_mode import no_grad
from ..autograd.sizes import Size
from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transform import ComposeTransform, Transform
from .utils import sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](...transforms[0](x))`` for ``x ~ base_distribution``:
    ``log_prob`` subtracts each transform's log-Jacobian; ``cdf`` and ``icdf`` work through
    monotone univariate transforms.

    Args:
        base_distribution (Distribution): the distribution of ``x``.
        transforms (Transform or list of Transform): applied in order.
        validate_args (bool, optional): check the values given to ``log_prob``.

    Examples:
        >>> D = nl.distributions
        >>> log_normal = D.TransformedDistribution(D.Normal(0.0, 1.0), [D.ExpTransform()])
        >>> log_normal.log_prob(nl.tensor(1.0))
        tensor(-0.9189)
    """

    arg_constraints: dict[str, constraints.Constraint] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        transforms: Transform | list[Transform],
        validate_args: bool | None = None,
    ) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(
                "base_distribution needs to have shape with size at least "
                f"{transform.domain.event_dim}, but got {Size(base_shape)}."
            )
        forward_shape = tuple(transform.forward_shape(base_shape))
        expanded_base_shape = tuple(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        # parameters kept on the instance (a Gumbel's loc) grow as any distribution's
        new: Any = Distribution.expand(self, batch_shape, _instance)
        shape = tuple(batch_shape) + tuple(self._event_shape)
        base_shape = tuple(ComposeTransform(self.transforms).inverse_shape(shape))
        base_batch = base_shape[: len(base_shape) - len(self.base_dist.event_shape)]
        new.base_dist = self.base_dist.expand(base_batch)
        expanded: Distribution = new
        return expanded

    @property
    def support(self) -> Any:
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self._event_shape) > support.event_dim:
            support = constraints.independent(support, len(self._event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self._event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            jacobian = transform.log_abs_det_jacobian(x, y)
            log_prob = log_prob - sum_rightmost(jacobian, event_dim - transform.domain.event_dim)
            y = x
        base = self.base_dist.log_prob(y)
        result: Tensor = log_prob + sum_rightmost(base, event_dim - len(self.base_dist.event_shape))
        return result

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        """The cdf of the base turned into this distribution's (flipped by decreasing maps)."""
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        monotone: Tensor = sign * (value - 0.5) + 0.5
        return monotone

    def cdf(self, value: Tensor) -> Tensor:
        for transform in reversed(self.transforms):
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
