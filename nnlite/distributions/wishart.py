"""``Wishart``: distributions over positive-definite matrices (scatter matrices of Gaussian
samples), with reparameterised samples by the Bartlett decomposition."""

from __future__ import annotations

import math
import warnings
from numbers import Real
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .chi2 import Chi2
from .exponential_family import ExponentialFamily
from .triangular import cholesky, diagonal, inverse_spd, solve_lower
from .utils import lazy_property

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: Tensor, p: int) -> Tensor:
    """The multivariate digamma ``sum_i digamma(x - i / 2)``, ``i < p``."""
    total = x.digamma()
    for i in range(1, p):
        total = total + (x - i / 2).digamma()
    mvdigamma: Tensor = total
    return mvdigamma


class Wishart(ExponentialFamily):
    """The Wishart distribution of ``df`` degrees of freedom and scale matrix given by exactly
    one of ``covariance_matrix``, ``precision_matrix`` (its inverse) or ``scale_tril`` (its lower
    Cholesky factor).

    Factorisations and solves are tensor ops looping over the matrix size (for small matrices).

    Args:
        df (float or Tensor): degrees of freedom, above ``p - 1`` for ``p x p`` matrices.
        covariance_matrix (Tensor, optional): ``(*batch, p, p)`` positive-definite.
        precision_matrix (Tensor, optional): ``(*batch, p, p)`` positive-definite.
        scale_tril (Tensor, optional): ``(*batch, p, p)`` lower-triangular, positive diagonal.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.Wishart(nl.tensor(3.0), nl.eye(2)).mean
        tensor([[3., 0.],
                [0., 3.]])
    """

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        return {
            "covariance_matrix": constraints.positive_definite,
            "precision_matrix": constraints.positive_definite,
            "scale_tril": constraints.lower_cholesky,
            "df": constraints.greater_than(self.event_shape[-1] - 1),
        }

    def __init__(
        self,
        df: Any,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        from ..autograd.creation import arange, tensor

        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError(
                "Exactly one of covariance_matrix or precision_matrix or scale_tril may be "
                "specified."
            )
        param = given[0]
        if param.ndim < 2:
            raise ValueError(
                "scale_tril must be at least two-dimensional, with optional leading batch "
                "dimensions"
            )
        if isinstance(df, Real):
            batch_shape = tuple(param.shape[:-2])
            self.df = tensor(float(df), dtype=param.dtype)
        else:
            batch_shape = np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape))
            self.df = df.expand(*batch_shape)
        p = param.shape[-1]
        event_shape = tuple(param.shape[-2:])
        if (self.df._data <= p - 1).any():
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = (*batch_shape, p, p)
        if scale_tril is not None:
            self.scale_tril = param.expand(*full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(*full)
        else:
            self.precision_matrix = param.expand(*full)
        if (self.df._data < p).any():
            warnings.warn(
                "Low df values detected. Singular samples are highly likely to occur for ndim - 1 "
                "< df < ndim.",
                stacklevel=2,
            )
        super().__init__(batch_shape, event_shape, validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = cholesky(inverse_spd(precision_matrix))
        offsets = arange(p, dtype=param.dtype).expand(*batch_shape, p)
        self._dist_chi2 = Chi2(self.df.unsqueeze(-1) - offsets)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        from ..autograd.creation import arange

        new: Any = super().expand(batch_shape, _instance)
        p = self._event_shape[-1]
        offsets = arange(p, dtype=new.df.dtype).expand(*tuple(batch_shape), p)
        new._dist_chi2 = Chi2(new.df.unsqueeze(-1) - offsets)
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The scale matrix."""
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.transpose(-2, -1)).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the scale matrix."""
        return inverse_spd(self.covariance_matrix)

    def _df_matrix(self) -> Tensor:
        return self.df.reshape(*self._batch_shape, 1, 1)

    @property
    def mean(self) -> Tensor:
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        from .utils import where

        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = where(factor._data <= 0, math.nan, factor)
        return factor.reshape(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        v = self.covariance_matrix
        d = diagonal(v)
        return self._df_matrix() * (v**2 + d.unsqueeze(-1) * d.unsqueeze(-2))

    def _bartlett_sample(self, sample_shape: tuple[int, ...]) -> Tensor:
        from ..autograd.creation import randn

        p = self._event_shape[-1]
        tiny = float(np.finfo(self.df._data.dtype).eps)
        root = self._dist_chi2.rsample(sample_shape).sqrt().clamp(min=tiny)
        normals = randn(*sample_shape, *self._batch_shape, p, p, dtype=root.dtype).tril(-1)
        factor = self._unbroadcasted_scale_tril @ (normals + root.diag_embed())
        bartlett_sample: Tensor = factor @ factor.transpose(-2, -1)
        return bartlett_sample

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None) -> Tensor:
        """Reparameterised samples by the Bartlett decomposition; samples that come out singular
        (possible when ``df`` is below the matrix size) are redrawn up to ``max_try_correction``
        times (default 10), with a warning.

        Args:
            sample_shape (Size or tuple): how many samples, as a shape. Default: one.
            max_try_correction (int, optional): how many redraws of singular samples.

        Returns:
            Tensor: ``sample_shape + batch_shape + (p, p)``.
        """
        from .utils import where

        tries = 10 if max_try_correction is None else max_try_correction
        sample_shape = tuple(sample_shape)
        sample = self._bartlett_sample(sample_shape)
        singular = ~np.asarray(self.support.check(sample), dtype=bool)
        if singular.any():
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(tries):
                redrawn = self._bartlett_sample(sample_shape)
                sample = where(singular[..., None, None], redrawn, sample)
                singular = ~np.asarray(self.support.check(sample), dtype=bool)
                if not singular.any():
                    break
        return sample

    def _half_log_det_scale(self) -> Tensor:
        return diagonal(self._unbroadcasted_scale_tril).log().sum(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        lower = self._unbroadcasted_scale_tril
        shape = np.broadcast_shapes(tuple(lower.shape), tuple(value.shape))
        lower = lower.expand(*shape)
        # trace(S^-1 X) as the trace of L^-1 X L^-T
        half_solved = solve_lower(lower, value.expand(*shape))
        solved = solve_lower(lower, half_solved.transpose(-2, -1))
        trace = diagonal(solved).sum(-1)
        log_det_value = 2 * diagonal(cholesky(value)).log().sum(-1)
        log_prob: Tensor = (
            -nu * (p * _LOG_2 / 2 + self._half_log_det_scale())
            - (nu / 2).mvlgamma(p)
            + (nu - p - 1) / 2 * log_det_value
            - trace / 2
        )
        return log_prob

    def entropy(self) -> Tensor:
        nu, p = self.df, self._event_shape[-1]
        entropy: Tensor = (
            (p + 1) * (p * _LOG_2 / 2 + self._half_log_det_scale())
            + (nu / 2).mvlgamma(p)
            - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
            + nu * p / 2
        )
        return entropy

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        p = self._event_shape[-1]
        log_det = 2 * diagonal(cholesky(-2 * x)).log().sum(-1)
        log_normalizer: Tensor = (y + (p + 1) / 2) * (-log_det + _LOG_2 * p) + (
            y + (p + 1) / 2
        ).mvlgamma(p)
        return log_normalizer
