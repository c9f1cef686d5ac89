"""``ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))``; the entropy follows from the log normaliser ``F``."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """The base of exponential-family distributions: a subclass gives its natural parameters
    (``_natural_params``), its log normaliser ``F`` (``_log_normalizer``) and the expected
    carrier measure (``_mean_carrier_measure``); ``entropy`` is then
    ``F(theta) - <theta, grad F(theta)> - E[k(x)]`` (a Bregman divergence), by autograd.

    Examples:
        >>> nl.distributions.Exponential(nl.tensor(2.0)).entropy()
        tensor(0.3069)
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        from ..autograd import grad

        carrier = self._mean_carrier_measure  # first: families without one raise here
        params = [p.detach().requires_grad_() for p in self._natural_params]
        normalizer = self._log_normalizer(*params)
        gradients = grad(normalizer.sum(), params, create_graph=True)
        result = normalizer - carrier
        for param, gradient in zip(params, gradients):
            result = result - (param * gradient).reshape(*self._batch_shape, -1).sum(-1)
        entropy: Tensor = result
        return entropy
