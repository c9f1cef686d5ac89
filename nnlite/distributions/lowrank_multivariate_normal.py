"""``LowRankMultivariateNormal``: a Gaussian whose covariance is low rank plus diagonal."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .multivariate_normal import MultivariateNormal
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


class LowRankMultivariateNormal(Distribution):
    """The multivariate normal of mean ``loc`` and covariance
    ``cov_factor @ cov_factor^T + diag(cov_diag)``.

    Samples use the factored form (``W eps_W + sqrt(D) eps_D``); ``log_prob`` and ``entropy``
    factor the full ``d x d`` covariance (as ``MultivariateNormal``, for small event sizes).

    Args:
        loc (Tensor): ``(*batch, d)`` means.
        cov_factor (Tensor): ``(*batch, d, r)`` the low-rank factor ``W``.
        cov_diag (Tensor): ``(*batch, d)`` positive, the diagonal ``D``.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.LowRankMultivariateNormal(nl.zeros(2), nl.zeros(2, 1), nl.ones(2))
        >>> m.log_prob(nl.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        cov_factor: Tensor,
        cov_diag: Tensor,
        validate_args: bool | None = None,
    ) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.ndim < 2:
            raise ValueError(
                "cov_factor must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(
                f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m"
            )
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(
                f"cov_diag must be a batch of vectors with shape {type(loc.shape)(event_shape)}"
            )
        try:
            shape = np.broadcast_shapes(
                tuple(loc.shape) + (1,), tuple(cov_factor.shape), tuple(cov_diag.shape) + (1,)
            )
        except ValueError:
            raise ValueError(
                f"Incompatible batch shapes: loc {loc.shape}, cov_factor {cov_factor.shape}, "
                f"cov_diag {cov_diag.shape}"
            ) from None
        self.cov_factor = cov_factor.expand(*shape)
        self.loc = loc.expand(*shape[:-1])
        self.cov_diag = cov_diag.expand(*shape[:-1])
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        super().__init__(shape[:-2], event_shape, validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:
        """The diagonal of the covariance."""
        return (self.cov_factor**2).sum(-1) + self.cov_diag

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """``W W^T + diag(D)``."""
        w = self.cov_factor
        covariance_matrix: Tensor = w @ w.transpose(-2, -1) + self.cov_diag.diag_embed()
        return covariance_matrix

    @lazy_property
    def _full(self) -> MultivariateNormal:
        return MultivariateNormal(
            self.loc, covariance_matrix=self.covariance_matrix, validate_args=False
        )

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        return self._full.scale_tril

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance."""
        return self._full.precision_matrix

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import randn

        shape = tuple(self._extended_shape(sample_shape))
        rank = self.cov_factor.shape[-1]
        eps_w = randn(*shape[:-1], rank, dtype=self.loc.dtype)
        eps_d = randn(*shape, dtype=self.loc.dtype)
        low_rank = (self._unbroadcasted_cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + low_rank + self._unbroadcasted_cov_diag.sqrt() * eps_d

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._full.log_prob(value)

    def entropy(self) -> Tensor:
        return self._full.entropy()
