"""``embedding``: rows of a weight matrix picked by index (gradients accumulate on repeated rows)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...autograd.grad_mode import no_grad
from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.ops.shape import IndexAddZeros
from ...autograd.ops.where import Where

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


def _sum_rows_by_index(grad: Array, indices: Array, rows: int) -> Array:
    """``out[indices[k]] += grad[k]`` into zeros of ``rows`` rows: the gradient rows sorted by index
    and summed in runs, several times faster than ``np.add.at``."""
    order = np.argsort(indices, kind="stable")
    used, starts = np.unique(indices[order], return_index=True)
    out = np.zeros((rows,) + grad.shape[1:], grad.dtype)
    if len(order):
        out[used] = np.add.reduceat(grad[order], starts, axis=0)
    return out


class Embedding(Op):
    """The rows ``weight[indices]`` (``indices`` a parameter, already checked and made non-negative)."""

    node_name = "EmbeddingBackward0"

    def forward(self, weight: Array) -> Array:
        self.rows = weight.shape[0]
        out: Array = weight[self.indices]
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        # the adjoint of indexing, itself differentiable
        flat = self.indices.reshape(-1)
        tail = tuple(grad.shape[self.indices.ndim :])
        gx: Gradient = vjp.call(
            IndexAddZeros,
            grad.reshape((flat.size,) + tail),
            shape=(self.rows,) + tail,
            index=flat,
        )
        return gx

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> Array:
        flat = self.indices.reshape(-1)
        return _sum_rows_by_index(
            grad.reshape((flat.size,) + grad.shape[self.indices.ndim :]), flat, self.rows
        )


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """The rows ``weight[input]``; the ``padding_idx`` row gets no gradient, and with ``max_norm``
    the looked-up rows are first renormalised in place to norm at most ``max_norm`` (as PyTorch).

    Args:
        input (Tensor): int64 indices, any shape.
        weight (Tensor): the ``(num_embeddings, embedding_dim)`` table.
        padding_idx (int, optional): a row that gets no gradient.
        max_norm (float, optional): renormalise looked-up rows to at most this norm.
        norm_type (float): the norm for ``max_norm``. Default: 2.
        scale_grad_by_freq (bool): accepted for compatibility.
        sparse (bool): accepted for compatibility (gradients are dense).

    Returns:
        Tensor: ``input.shape + (embedding_dim,)``.

    Examples:
        >>> weight = nl.eye(3)
        >>> F.embedding(nl.tensor([2, 0]), weight)
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    indices = input._data
    if indices.dtype.kind not in "iu":
        raise RuntimeError(
            f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
            f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding)"
        )
    rows = weight.shape[0]
    if indices.size and (indices.min() < -rows or indices.max() >= rows):
        raise IndexError("index out of range in self")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError(
            "embedding: scale_grad_by_freq and sparse gradients are not supported by nnlite"
        )
    if max_norm is not None:
        with no_grad():
            used = np.unique(indices % rows)
            norms = np.linalg.norm(weight._data[used], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight._data[used] *= scale[:, None].astype(weight._data.dtype)
            weight._bump_version()
    out: Tensor = Embedding.apply(
        weight, indices=indices % rows if indices.size and indices.min() < 0 else indices
    )
    if padding_idx is not None:
        padding = padding_idx % rows
        keep_gradient = (indices % rows != padding)[..., None]
        if not keep_gradient.all():
            out = Where.apply(keep_gradient, out, out.detach())
    return out
