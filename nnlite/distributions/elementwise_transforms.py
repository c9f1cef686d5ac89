"""Transforms acting on each element alone: ``ExpTransform``, ``PowerTransform``,
``SigmoidTransform``, ``TanhTransform``, ``SoftplusTransform``, ``AbsTransform``,
``AffineTransform`` and ``CumulativeDistributionTransform``."""

from __future__ import annotations

import math
from numbers import Number
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .transform import Transform
from .utils import broadcast_all

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "PowerTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
]


def _softplus(x: Tensor) -> Tensor:
    from ..nn.functional import softplus

    return softplus(x)


def _shape_of(value: Any) -> tuple[int, ...]:
    return tuple(getattr(value, "shape", ()))


class _Stateless(Transform):
    """A transform without parameters: all instances are equal."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self))

    __hash__ = Transform.__hash__


class ExpTransform(_Stateless):
    """``y = exp(x)``.

    Examples:
        >>> nl.distributions.ExpTransform()(nl.tensor(0.0))
        tensor(1.)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive numbers.

    Args:
        exponent (float or Tensor): the power.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> nl.distributions.PowerTransform(nl.tensor(2.0))(nl.tensor(3.0))
        tensor(9.)
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return bool((self.exponent == other.exponent).all().item())

    __hash__ = Transform.__hash__

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return np.broadcast_shapes(tuple(shape), _shape_of(self.exponent))

    inverse_shape = forward_shape


def clipped_sigmoid(x: Tensor) -> Tensor:
    """``sigmoid(x)`` kept inside ``(0, 1)``: at least the smallest normal number, at most
    ``1 - eps``, so its logarithm and ``log1p(-y)`` stay finite."""
    info = np.finfo(x._data.dtype)
    return x.sigmoid().clamp(min=float(info.tiny), max=1.0 - float(info.eps))


class SigmoidTransform(_Stateless):
    """``y = 1 / (1 + exp(-x))``.

    Examples:
        >>> nl.distributions.SigmoidTransform()(nl.tensor(0.0))
        tensor(0.5000)
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        info = np.finfo(y._data.dtype)
        y = y.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
        x: Tensor = y.log() - (-y).log1p()
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -_softplus(-x) - _softplus(x)


class TanhTransform(_Stateless):
    """``y = tanh(x)``; the inverse is ``atanh``.

    Examples:
        >>> nl.distributions.TanhTransform()(nl.tensor(0.0))
        tensor(0.)
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        x: Tensor = y.atanh()
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        # log(1 - tanh(x)^2), written to stay finite for large |x|
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class SoftplusTransform(_Stateless):
    """``y = log(1 + exp(x))``.

    Examples:
        >>> nl.distributions.SoftplusTransform()(nl.tensor(0.0))
        tensor(0.6931)
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x: Tensor) -> Tensor:
        return _softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        x: Tensor = (-(-y).expm1()).log() + y
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return -_softplus(-x)


class AbsTransform(_Stateless):
    """``y = |x|`` (not injective: the inverse returns the non-negative root).

    Examples:
        >>> nl.distributions.AbsTransform()(nl.tensor(-2.0))
        tensor(2.)
    """

    domain = constraints.real
    codomain = constraints.positive

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``.

    Args:
        loc (float or Tensor): the shift.
        scale (float or Tensor): the factor.
        event_dim (int): how many rightmost dimensions form one event (the log-Jacobian sums
            over them).
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> nl.distributions.AffineTransform(1.0, 2.0)(nl.tensor(3.0))
        tensor(7.)
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale = loc, scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @property
    def domain(self) -> Any:
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    codomain = domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        return all(
            (a == b)
            if isinstance(a, Number) and isinstance(b, Number)
            else bool(
                np.all(np.asarray(getattr(a, "_data", a)) == np.asarray(getattr(b, "_data", b)))
            )
            for a, b in ((self.loc, other.loc), (self.scale, other.scale))
        )

    __hash__ = Transform.__hash__

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, Number):
            value = float(self.scale)  # type: ignore[arg-type]
            return 1 if value > 0 else -1 if value < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        y: Tensor = self.loc + self.scale * x
        return y

    def _inverse(self, y: Tensor) -> Tensor:
        x: Tensor = (y - self.loc) / self.scale
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ..autograd.creation import full_like

        shape = tuple(x.shape)
        if isinstance(self.scale, Number):
            result = full_like(x, math.log(abs(float(self.scale))))  # type: ignore[arg-type]
        else:
            result = self.scale.abs().log()
        if self.event_dim:
            result = result.reshape(*result.shape[: result.ndim - self.event_dim], -1).sum(-1)
            shape = shape[: len(shape) - self.event_dim]
        return result.expand(*shape)

    def forward_shape(self, shape: Any) -> Any:
        return np.broadcast_shapes(tuple(shape), _shape_of(self.loc), _shape_of(self.scale))

    inverse_shape = forward_shape


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: values to probabilities (the inverse uses ``icdf``).

    Args:
        distribution (Distribution): a distribution with ``cdf``, ``icdf`` and ``log_prob``.
        cache_size (int): ``0`` or ``1``.

    Examples:
        >>> D = nl.distributions
        >>> D.CumulativeDistributionTransform(D.Normal(0.0, 1.0))(nl.tensor(0.0))
        tensor(0.5000)
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        y: Tensor = self.distribution.cdf(x)
        return y

    def _inverse(self, y: Tensor) -> Tensor:
        x: Tensor = self.distribution.icdf(y)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        log_det: Tensor = self.distribution.log_prob(x)
        return log_det

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
