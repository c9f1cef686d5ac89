"""``scaled_dot_product_attention``: a composite of matmul, ``ScaledMaskedSoftmax`` and dropout (so
every gradient, second order included, comes from those ops); ``multi_head_attention.py`` builds
multi-head attention on the same softmax."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from .dropout import dropout

if TYPE_CHECKING:
    from collections.abc import Sequence

    from numpy.typing import ArrayLike, DTypeLike

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


class ScaledMaskedSoftmax(Op):
    """``softmax(scores * scale + mask, dim=-1)``: the attention weights from raw scores in one op.

    ``mask`` is a constant additive array (0 / -inf, or any floats) broadcast against ``scores``, or
    None. Backward is softmax's, ``scale * y * (g - sum(g * y))``, summed back to ``scores``' shape.
    """

    node_name = "SoftmaxBackward0"
    saved_inputs = (0,)
    saves_output = True
    scale = 1.0
    mask = None

    def forward(self, scores: Array) -> Array:
        self.shape = scores.shape
        z: Array = scores * np.asarray(self.scale, scores.dtype)
        if self.mask is not None:
            if np.broadcast_shapes(z.shape, self.mask.shape) == z.shape:
                z += self.mask
            else:
                z = z + self.mask
        z -= z.max(axis=-1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=-1, keepdims=True)
        return z

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y = self.output()
        g = y * (grad - vjp.sum(grad * y, -1, keepdims=True)) * self.scale
        gx: Gradient = vjp.sum_to(g, self.shape)
        return gx


def _as_additive(mask: Tensor | ArrayLike, dtype: DTypeLike, allowed_if_true: bool) -> Array:
    """A mask as numbers added to the scores: bool masks become 0 / -inf, float masks stay."""
    data = mask._data if hasattr(mask, "_data") else np.asarray(mask)
    if data.dtype == np.bool_:
        blocked = ~data if allowed_if_true else data
        return np.where(blocked, -np.inf, 0.0).astype(dtype)
    return data.astype(dtype)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Any,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q k^T * scale + mask) v`` over the last two dimensions.

    Args:
        query: (..., L, E); key: (..., S, E); value: (..., S, Ev).
        attn_mask: bool (True: may attend) or float (added), broadcast to (..., L, S).
        dropout_p: dropout on the attention weights.
        is_causal: position i attends to positions <= i (no ``attn_mask`` then).
        scale: default ``1 / sqrt(E)``.

    Returns:
        Tensor: (..., L, Ev).

    Examples:
        >>> q = k = v = nl.randn(2, 4, 8)
        >>> F.scaled_dot_product_attention(q, k, v, is_causal=True).shape
        nnlite.Size([2, 4, 8])
    """
    if is_causal and attn_mask is not None:
        raise RuntimeError(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
        )
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1)
    dtype = scores._data.dtype
    mask = None
    if is_causal:
        mask = np.where(np.tri(length, source, dtype=bool), 0.0, -np.inf).astype(dtype)
    if attn_mask is not None and getattr(attn_mask, "requires_grad", False):
        # a float mask that needs a gradient is added in the graph, as PyTorch does
        scores, scale = scores * scale + attn_mask, 1.0
    elif attn_mask is not None:
        mask = _as_additive(attn_mask, dtype, allowed_if_true=True)
    weights = ScaledMaskedSoftmax.apply(scores, scale=scale, mask=mask)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out: Tensor = weights @ value
    return out
