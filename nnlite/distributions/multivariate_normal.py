"""``MultivariateNormal``: the Gaussian over vectors, with reparameterised samples."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .distribution import Distribution
from .triangular import cholesky, diagonal, inverse_spd, solve_lower
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def batch_mahalanobis(lower: Tensor, difference: Tensor) -> Tensor:
    """``x^T (L L^T)^-1 x`` for each vector ``x`` of ``difference`` (…, d) and factor ``L``."""
    shape = np.broadcast_shapes(tuple(lower.shape[:-2]), tuple(difference.shape[:-1]))
    d = lower.shape[-1]
    lower = lower.expand(*shape, d, d)
    difference = difference.expand(*shape, d)
    solved = solve_lower(lower, difference.unsqueeze(-1)).squeeze(-1)
    return (solved * solved).sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal of mean ``loc`` and covariance given by exactly one of
    ``covariance_matrix`` or ``scale_tril`` (its lower Cholesky factor).

    The factorisation and the solves are
    tensor ops (differentiable to any order) looping over the event's dimensions: meant for
    small event sizes.

    Args:
        loc (Tensor): ``(*batch, d)`` means.
        covariance_matrix (Tensor, optional): ``(*batch, d, d)`` positive-definite.
        precision_matrix (Tensor, optional): ``(*batch, d, d)`` positive-definite, the inverse
            covariance.
        scale_tril (Tensor, optional): ``(*batch, d, d)`` lower-triangular, positive diagonal.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> m = nl.distributions.MultivariateNormal(nl.zeros(2), nl.eye(2))
        >>> m.log_prob(nl.zeros(2))
        tensor(-1.8379)
    """

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        names = ("covariance_matrix", "precision_matrix", "scale_tril")
        name, matrix = next(
            (n, m)
            for n, m in zip(names, (covariance_matrix, precision_matrix, scale_tril))
            if m is not None
        )
        if matrix.ndim < 2:
            raise ValueError(
                f"{name} must be at least two-dimensional, with optional leading batch dimensions"
            )
        batch_shape = np.broadcast_shapes(tuple(matrix.shape[:-2]), tuple(loc.shape[:-1]))
        d = loc.shape[-1]
        setattr(self, name, matrix.expand(*batch_shape, d, d))
        self.loc = loc.expand(*batch_shape, d)
        super().__init__(batch_shape, (d,), validate_args)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        # factor the symmetric part: the gradient then treats the matrix as symmetric, as
        # PyTorch's Cholesky gradient does
        if "precision_matrix" in self.__dict__:
            precision = self.precision_matrix
            return cholesky(inverse_spd((precision + precision.transpose(-2, -1)) * 0.5))
        covariance = self.covariance_matrix
        return cholesky((covariance + covariance.transpose(-2, -1)) * 0.5)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The covariance, ``scale_tril @ scale_tril^T``."""
        return self.scale_tril @ self.scale_tril.transpose(-2, -1)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance, ``L^-T L^-1``."""
        return inverse_spd(self.covariance_matrix)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return (self.scale_tril**2).sum(-1)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import randn

        shape = self._extended_shape(sample_shape)
        noise = randn(*shape, dtype=self.loc.dtype)
        return self.loc + (self.scale_tril @ noise.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self) -> Tensor:
        return diagonal(self.scale_tril).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        d = self._event_shape[0]
        distance = batch_mahalanobis(self.scale_tril, value - self.loc)
        return -0.5 * (d * math.log(2 * math.pi) + distance) - self._half_log_det()

    def entropy(self) -> Tensor:
        d = self._event_shape[0]
        return 0.5 * d * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
