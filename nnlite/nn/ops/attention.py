"""``scaled_dot_product_attention`` and the multi-head attention forward: composites of matmul,
``ScaledMaskedSoftmax`` and dropout (so every gradient, second order included, comes from those ops)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from .dropout import dropout
from .linear import linear

if TYPE_CHECKING:
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

    def forward(self, scores):
        self.shape = scores.shape
        z = scores * np.asarray(self.scale, scores.dtype)
        if self.mask is not None:
            if np.broadcast_shapes(z.shape, self.mask.shape) == z.shape:
                z += self.mask
            else:
                z = z + self.mask
        z -= z.max(axis=-1, keepdims=True)
        np.exp(z, out=z)
        z /= z.sum(axis=-1, keepdims=True)
        return z

    def backward(self, grad, needs):
        y = self.output()
        g = y * (grad - vjp.sum(grad * y, -1, keepdims=True)) * self.scale
        return vjp.sum_to(g, self.shape)


def _as_additive(mask, dtype, allowed_if_true):
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
    return weights @ value


def multi_head_attention(
    query: Tensor,
    key: Tensor,
    value: Any,
    num_heads: int,
    in_proj: Any,
    out_proj: Any,
    key_padding_mask: Tensor | None = None,
    attn_mask: Tensor | None = None,
    need_weights: bool = True,
    average_attn_weights: bool = True,
    dropout_p: float = 0.0,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """The forward of ``nn.MultiheadAttention`` on (L, N, E) sequences.

    ``in_proj`` is ``(w_q, w_k, w_v, b_q, b_k, b_v)``, ``out_proj`` is ``(weight, bias)``.
    Bool masks follow ``MultiheadAttention``: True marks a position that may *not* be attended.
    Returns ``(output (L, N, E), weights (N, [H,] L, S) or None)``.
    """
    w_q, w_k, w_v, b_q, b_k, b_v = in_proj
    length, batch, embed = query.shape
    source = key.shape[0]
    head_dim = embed // num_heads
    q, k, v = linear(query, w_q, b_q), linear(key, w_k, b_k), linear(value, w_v, b_v)

    def heads(x, n):  # (n, N, E) -> (N * H, n, head_dim)
        return x.reshape(n, batch * num_heads, head_dim).transpose(0, 1)

    q, k, v = heads(q, length), heads(k, source), heads(v, source)
    scores = q @ k.transpose(-2, -1)  # (N * H, L, S)
    dtype = scores._data.dtype
    additive = None
    if is_causal and attn_mask is None:
        attn_mask = ~np.tri(length, source, dtype=bool)
    if attn_mask is not None:
        mask = _as_additive(attn_mask, dtype, allowed_if_true=False)
        if mask.ndim == 2 and mask.shape != (length, source):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {mask.shape}, but should be {(length, source)}."
            )
        if mask.ndim == 3 and mask.shape != (batch * num_heads, length, source):
            raise RuntimeError(
                f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                f"{(batch * num_heads, length, source)}."
            )
        additive = mask
    if key_padding_mask is not None:
        padding = _as_additive(key_padding_mask, dtype, allowed_if_true=False)  # (N, S)
        if padding.shape != (batch, source):
            raise RuntimeError(
                f"expected key_padding_mask of shape {(batch, source)}, got {padding.shape}"
            )
        padding = np.repeat(padding, num_heads, axis=0)[:, None, :]  # (N * H, 1, S)
        additive = padding if additive is None else additive + padding
    weights = ScaledMaskedSoftmax.apply(scores, scale=1.0 / math.sqrt(head_dim), mask=additive)
    attended = dropout(weights, dropout_p, True) if dropout_p > 0.0 else weights
    out = (attended @ v).transpose(0, 1).reshape(length, batch, embed)
    out = linear(out, *out_proj)
    if not need_weights:
        return out, None
    weights = weights.reshape(batch, num_heads, length, source)
    return out, (weights.mean(1) if average_attn_weights else weights)
