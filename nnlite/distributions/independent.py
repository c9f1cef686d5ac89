"""``Independent``: batch dimensions of a distribution reinterpreted as event dimensions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..autograd.tensor import Tensor
from .distribution import Distribution
from .utils import sum_rightmost

if TYPE_CHECKING:
    from .constraints import Constraint

__all__ = ["Independent"]


class Independent(Distribution):
    """Treat the rightmost ``reinterpreted_batch_ndims`` batch dimensions of ``base_distribution``
    as one event: ``log_prob`` and ``entropy`` sum over them (e.g. a diagonal Gaussian from a
    ``Normal`` of vectors).

    Args:
        base_distribution (Distribution): the distribution to reinterpret.
        reinterpreted_batch_ndims (int): how many batch dimensions become event dimensions.
        validate_args (bool, optional): check the values given to ``log_prob``.

    Examples:
        >>> normal = nl.distributions.Normal(nl.zeros(3), nl.ones(3))
        >>> diagonal = nl.distributions.Independent(normal, 1)
        >>> diagonal.batch_shape, diagonal.event_shape
        (nnlite.Size([]), nnlite.Size([3]))
    """

    arg_constraints: dict[str, Constraint] = {}

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: bool | None = None,
    ) -> None:
        batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(batch):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {reinterpreted_batch_ndims} vs {len(batch)}"
            )
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        split = len(batch) - reinterpreted_batch_ndims
        super().__init__(
            batch[:split],
            batch[split:] + tuple(base_distribution.event_shape),
            validate_args,
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        event = tuple(self._event_shape)
        reinterpreted = event[: self.reinterpreted_batch_ndims]
        new.base_dist = self.base_dist.expand(tuple(batch_shape) + reinterpreted)
        new._batch_shape = type(self._batch_shape)(batch_shape)
        return new

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        return False if self.reinterpreted_batch_ndims > 0 else self.base_dist.has_enumerate_support

    @property
    def support(self) -> Any:
        return self.base_dist.support

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def _validate_sample(self, value: Any) -> None:
        self.base_dist._validate_sample(value)

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
