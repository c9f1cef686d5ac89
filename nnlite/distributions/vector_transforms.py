"""Transforms acting on whole vectors or matrices: ``SoftmaxTransform`` and
``StickBreakingTransform`` (onto the simplex), ``LowerCholeskyTransform``,
``PositiveDefiniteTransform`` and ``CorrCholeskyTransform``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..autograd.tensor import Tensor
from . import constraints
from .elementwise_transforms import _softplus, _Stateless, clipped_sigmoid

__all__ = [
    "CorrCholeskyTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "SoftmaxTransform",
    "StickBreakingTransform",
]


def _need_a_dimension(shape: Any) -> None:
    if len(shape) < 1:
        raise ValueError("Too few dimensions on input")


def _ones_cumsum(like: Tensor, n: int) -> Tensor:
    """``[1, 2, ..., n]`` in ``like``'s dtype."""
    from ..autograd.creation import arange

    return arange(1, n + 1, dtype=like.dtype)


def _pad_last(value: Tensor, before: int, after: int, fill: float = 1.0) -> Tensor:
    """``value`` with ``before``/``after`` entries of ``fill`` added along the last dimension."""
    from ..autograd.creation import cat, full

    lead = tuple(value.shape[:-1])
    parts = []
    if before:
        parts.append(full((*lead, before), fill, dtype=value.dtype))
    parts.append(value)
    if after:
        parts.append(full((*lead, after), fill, dtype=value.dtype))
    return cat(parts, -1)


class SoftmaxTransform(_Stateless):
    """Real vectors to the simplex by ``softmax`` (not bijective; the inverse is ``log``).

    Examples:
        >>> nl.distributions.SoftmaxTransform()(nl.zeros(2))
        tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.max(-1, True)[0]).exp()
        y: Tensor = probs / probs.sum(-1, True)
        return y

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        _need_a_dimension(shape)
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(_Stateless):
    """Real vectors of length ``K - 1`` to the ``K``-simplex by stick breaking (bijective).

    Examples:
        >>> nl.distributions.StickBreakingTransform()(nl.zeros(1))
        tensor([0.5000, 0.5000])
    """

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    @staticmethod
    def _log_offset(x: Tensor) -> Tensor:
        n = x.shape[-1]
        return (n + 1 - _ones_cumsum(x, n)).log()

    def _call(self, x: Tensor) -> Tensor:
        z = clipped_sigmoid(x - self._log_offset(x))
        remaining = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1) * _pad_last(remaining, 1, 0)

    def _inverse(self, y: Tensor) -> Tensor:
        crop = y[..., :-1]
        offset = y.shape[-1] - _ones_cumsum(y, crop.shape[-1])
        # the rest of the stick stays positive even when y[-1] rounds to 0
        rest = (1 - crop.cumsum(-1)).clamp(min=float(np.finfo(y._data.dtype).tiny))
        return crop.log() - rest.log() + offset.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ..nn.functional import logsigmoid

        shifted = x - self._log_offset(x)
        return (-shifted + logsigmoid(shifted) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        _need_a_dimension(shape)
        return (*shape[:-1], shape[-1] + 1)

    def inverse_shape(self, shape: Any) -> Any:
        _need_a_dimension(shape)
        return (*shape[:-1], shape[-1] - 1)


class LowerCholeskyTransform(_Stateless):
    """Square matrices to lower-triangular ones with a positive diagonal: the strict lower
    triangle is kept, the diagonal exponentiated.

    Examples:
        >>> nl.distributions.LowerCholeskyTransform()(nl.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Tensor) -> Tensor:
        y: Tensor = x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()
        return y

    def _inverse(self, y: Tensor) -> Tensor:
        x: Tensor = y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()
        return x


class PositiveDefiniteTransform(_Stateless):
    """Square matrices to positive-definite ones: ``L @ L^T`` of the ``LowerCholeskyTransform``.

    Examples:
        >>> nl.distributions.PositiveDefiniteTransform()(nl.zeros(2, 2))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.transpose(-2, -1)

    def _inverse(self, y: Tensor) -> Tensor:
        from ..linalg import cholesky

        return LowerCholeskyTransform().inv(cholesky(y))


def _tril_positions(d: int, diag: int) -> np.ndarray:
    """Flat positions in a ``d x d`` matrix of its lower triangle below ``diag``, row by row."""
    rows, cols = np.tril_indices(d, diag)
    return rows * d + cols


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The ``(..., d, d)`` lower-triangular matrices whose triangle (rows in order, below
    ``diag``) holds ``vec`` (``(..., n)``); zeros elsewhere."""
    from ..autograd.creation import tensor

    n = vec.shape[-1]
    d = next((k for k in range(1, n + 3) if len(_tril_positions(k, diag)) == n), None)
    if d is None:
        raise ValueError(f"{n} is not the size of a lower triangle below diagonal {diag}")
    index = np.zeros(d * d, dtype=np.int64)
    index[_tril_positions(d, diag)] = np.arange(1, n + 1)
    padded = _pad_last(vec, 1, 0, 0.0)
    return padded.index_select(-1, tensor(index)).reshape(*vec.shape[:-1], d, d)


def tril_matrix_to_vec(matrix: Tensor, diag: int = 0) -> Tensor:
    """The lower triangle below ``diag`` of ``(..., d, d)`` matrices, rows in order."""
    from ..autograd.creation import tensor

    d = matrix.shape[-1]
    flat = matrix.reshape(*matrix.shape[:-2], d * d)
    return flat.index_select(-1, tensor(_tril_positions(d, diag)))


class CorrCholeskyTransform(_Stateless):
    """Real vectors of length ``d (d - 1) / 2`` to Cholesky factors of ``d x d`` correlation
    matrices (lower-triangular, positive diagonal, rows of unit length): each row is a signed
    stick breaking of ``tanh`` of its entries.

    Examples:
        >>> nl.distributions.CorrCholeskyTransform()(nl.zeros(1))
        tensor([[1., 0.],
                [0., 1.]])
    """

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        from ..autograd.creation import eye

        eps = float(np.finfo(x._data.dtype).eps)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        remaining = (1 - r**2).sqrt().cumprod(-1)
        r = r + eye(r.shape[-1], dtype=r.dtype)
        return r * _pad_last(remaining[..., :-1], 1, 0)

    def _inverse(self, y: Tensor) -> Tensor:
        rest = _pad_last((1 - (y * y).cumsum(-1))[..., :-1], 1, 0)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(rest, diag=-1).sqrt()
        x: Tensor = (t.log1p() - (-t).log1p()) / 2
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        rest = tril_matrix_to_vec(1 - (y * y).cumsum(-1), diag=-2)
        stick_breaking = 0.5 * rest.log().sum(-1)
        tanh_part = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking + tanh_part

    def forward_shape(self, shape: Any) -> Any:
        _need_a_dimension(shape)
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return (*shape[:-1], d, d)

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return (*shape[:-2], d * (d - 1) // 2)
