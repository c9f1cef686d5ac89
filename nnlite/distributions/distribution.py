"""``Distribution``: the interface every distribution follows (PyTorch's
``torch.distributions.Distribution``): shapes, sampling, densities, argument validation."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.sizes import Size
from ..autograd.tensor import Tensor
from . import constraints
from .utils import format_value, lazy_property

__all__ = ["Distribution"]


class Distribution:
    """A probability distribution with a batch of independent members (``batch_shape``), each over
    events of ``event_shape``.

    Arguments are checked against ``arg_constraints`` and samples given to ``log_prob`` against
    ``support`` when validation is on (the default, as PyTorch's; ``validate_args=False`` or
    ``Distribution.set_default_validate_args(False)`` turns it off).

    Args:
        batch_shape (Size): the shape of the batch of distributions.
        event_shape (Size): the shape of one sample of one distribution.
        validate_args (bool, optional): check arguments and samples.
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict[str, constraints.Constraint] = {}
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument and sample validation on or off for every distribution.

        Args:
            value (bool): validate by default.

        Examples:
            >>> nl.distributions.Distribution.set_default_validate_args(True)
        """
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: Any = (),
        event_shape: Any = (),
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(
                    getattr(type(self), param, None), lazy_property
                ):
                    continue  # derived from the parameter given instead
                value = getattr(self, param)
                if not np.all(constraint.check(value)):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the constraint "
                        f"{constraint!r}, but found invalid values:\n{format_value(value)}"
                    )

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of distributions."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample of one distribution."""
        return self._event_shape

    @property
    def mean(self) -> Tensor:
        """The mean of each distribution."""
        raise NotImplementedError(f"{type(self).__name__} has no mean")

    @property
    def mode(self) -> Tensor:
        """The most likely value of each distribution."""
        raise NotImplementedError(f"{type(self).__name__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of each distribution."""
        raise NotImplementedError(f"{type(self).__name__} has no variance")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of each distribution."""
        return self.variance.sqrt()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """This distribution with its parameters broadcast to ``batch_shape`` (no copy).

        Args:
            batch_shape (Size or tuple): the new batch shape, broadcastable from the current one.

        Returns:
            Distribution: a new distribution of the same type.

        Examples:
            >>> nl.distributions.Normal(0.0, 1.0).expand((3,)).batch_shape
            nnlite.Size([3])
        """
        batch_shape = Size(batch_shape)
        old = tuple(self._batch_shape)
        try:
            np.broadcast_shapes(old, tuple(batch_shape))
        except ValueError:
            raise RuntimeError(
                f"The expanded size of the batch ({tuple(batch_shape)}) is not compatible with "
                f"the batch shape {old}"
            ) from None
        new = object.__new__(type(self)) if _instance is None else _instance
        new.__dict__.update(self.__dict__)
        for name, value in self.__dict__.items():
            # parameters are laid out batch first: only the batch part grows
            if isinstance(value, Tensor) and value.ndim >= len(old):
                rest = tuple(value.shape[len(old) :])
                if tuple(value.shape[: len(old)]) == old:
                    new.__dict__[name] = value.expand(*batch_shape, *rest)
            elif isinstance(value, Distribution) and tuple(value.batch_shape) == old:
                new.__dict__[name] = value.expand(batch_shape)
        new._batch_shape = batch_shape
        return new

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution's support, along a new leading dimension.

        Args:
            expand (bool): broadcast to ``(n,) + batch_shape`` (else ``(n, 1, ..., 1)``).

        Returns:
            Tensor: the values.
        """
        raise NotImplementedError

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Draw ``sample_shape`` samples of each distribution, without gradients.

        Args:
            sample_shape (Size or tuple): how many samples, as a shape. Default: one.

        Returns:
            Tensor: ``sample_shape + batch_shape + event_shape``.
        """
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """Draw reparameterised samples: differentiable with respect to the parameters.

        Args:
            sample_shape (Size or tuple): how many samples, as a shape. Default: one.

        Returns:
            Tensor: ``sample_shape + batch_shape + event_shape``.
        """
        raise NotImplementedError(f"{type(self).__name__} does not support rsample")

    def sample_n(self, n: int) -> Tensor:
        """Deprecated: ``sample((n,))``."""
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log density (or mass) of ``value`` under each distribution.

        Args:
            value (Tensor): values, broadcastable to ``batch_shape + event_shape``.

        Returns:
            Tensor: the log densities.
        """
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy of each distribution.

        Returns:
            Tensor: ``batch_shape``.
        """
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return self.entropy().exp()

    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dims = len(self._event_shape)
        if tuple(value.shape[value.ndim - event_dims :]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {tuple(value.shape)} vs "
                f"{tuple(self._event_shape)}."
            )
        try:
            np.broadcast_shapes(tuple(value.shape), tuple(self._extended_shape()))
        except ValueError:
            raise ValueError(
                f"Value is not broadcastable with batch_shape+event_shape: {tuple(value.shape)} "
                f"vs {tuple(self._extended_shape())}."
            ) from None
        support = self.support
        if support is None or support is constraints.dependent:
            return
        if not np.all(support.check(value)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, but found "
                f"invalid values:\n{format_value(value)}"
            )

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for name in names:
            value = self.__dict__[name]
            shown = format_value(value) if value.numel() == 1 else value.shape
            parts.append(f"{name}: {shown}")
        return f"{type(self).__name__}({', '.join(parts)})"
