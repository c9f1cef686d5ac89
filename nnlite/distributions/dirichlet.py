"""``Dirichlet``: distributions over the simplex, with reparameterised samples (normalised
gamma draws)."""

from __future__ import annotations

from typing import Any

from ..autograd.tensor import Tensor
from . import constraints
from .exponential_family import ExponentialFamily
from .gamma_sampler import standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution of ``concentration`` (its last dimension: the categories).

    ``rsample`` normalises independent reparameterised gamma draws, so its gradient is the
    implicit reparameterisation gradient of each gamma (an unbiased estimator; PyTorch computes a
    different, also unbiased, per-sample derivative).

    Args:
        concentration (Tensor): ``(*batch, K)`` positive.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.Dirichlet(nl.tensor([1.0, 1.0, 1.0]))
        >>> m.log_prob(nl.tensor([0.2, 0.3, 0.5]))
        tensor(0.6931)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        shape = tuple(concentration.shape)
        super().__init__(shape[:-1], shape[-1:], validate_args)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        gammas = standard_gamma(self.concentration.expand(*shape))
        return gammas / gammas.sum(-1, True)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        log_prob: Tensor = (c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)
        return log_prob

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        import numpy as np

        from ..autograd.creation import tensor

        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        # every concentration below 1: the mass piles on one corner of the simplex
        data = self.concentration._data
        corner = np.eye(data.shape[-1], dtype=data.dtype)[np.argmax(mode._data, -1)]
        low = (data < 1).all(-1, keepdims=True)
        return tensor(np.where(low, corner, mode._data))

    @property
    def variance(self) -> Tensor:
        total = self.concentration.sum(-1, True)
        c = self.concentration
        return c * (total - c) / (total**2 * (total + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.shape[-1]
        total = c.sum(-1)
        entropy: Tensor = (
            c.lgamma().sum(-1)
            - total.lgamma()
            - (k - total) * total.digamma()
            - ((c - 1.0) * c.digamma()).sum(-1)
        )
        return entropy

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        log_normalizer: Tensor = x.lgamma().sum(-1) - x.sum(-1).lgamma()
        return log_normalizer
