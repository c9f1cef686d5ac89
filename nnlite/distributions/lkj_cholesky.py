"""``LKJCholesky``: the LKJ distribution over Cholesky factors of correlation matrices."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.tensor import Tensor
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of lower Cholesky factors ``L`` of ``dim x dim`` correlation
    matrices: the density of ``L L^T`` is proportional to ``det(L L^T)^(concentration - 1)``.
    Samples come from the onion method.

    Args:
        dim (int): the size of the matrices, at least 2.
        concentration (float or Tensor): positive; 1 is uniform over correlation matrices.
        validate_args (bool, optional): check the arguments and the values given to ``log_prob``.

    Examples:
        >>> nl.distributions.LKJCholesky(2, nl.tensor(1.0)).log_prob(nl.eye(2))
        tensor(-0.6931)
    """

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(
        self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        from ..autograd.creation import arange, cat, zeros

        if dim < 2:
            raise ValueError(
                f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}."
            )
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the Beta draws of the onion method, one per row
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = arange(dim - 1, dtype=self.concentration.dtype)
        offset = cat([zeros(1, dtype=offset.dtype), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, (dim, dim), validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        new: Any = super().expand(batch_shape, _instance)
        new._beta = self._beta.expand((*tuple(batch_shape), self.dim))
        expanded: Distribution = new
        return expanded

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from ..autograd.creation import tensor
        from ..autograd.random import default_generator

        with no_grad():
            y = self._beta.sample(sample_shape)._data[..., None]
            shape = tuple(self._extended_shape(sample_shape))
            normal = np.tril(default_generator.standard_normal(shape), -1)
            norms = np.linalg.norm(normal, axis=-1, keepdims=True)
            # the first row has no off-diagonal entries: no direction to normalise
            sphere = np.divide(normal, norms, out=np.zeros_like(normal), where=norms > 0)
            w = np.sqrt(y) * sphere
            tiny = np.finfo(self.concentration._data.dtype).tiny
            diagonal = np.sqrt(np.maximum(1 - (w**2).sum(-1), tiny))
            w = w + diagonal[..., None] * np.eye(self.dim)
            return tensor(w.astype(self.concentration._data.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        from ..autograd.creation import arange

        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalised = (order * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        numerator = (alpha - 0.5).mvlgamma(dm1)
        normaliser = 0.5 * dm1 * math.log(math.pi) + numerator - denominator
        log_prob: Tensor = unnormalised - normaliser
        return log_prob
