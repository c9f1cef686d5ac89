"""``multi_head_attention_forward``: PyTorch's functional multi-head attention, the one
implementation behind ``nn.MultiheadAttention``.

A composite of ``linear``, reshapes, matmul, ``ScaledMaskedSoftmax`` and dropout, so every
gradient (second order included) comes from those ops. Masks follow PyTorch: a bool mask marks
with True what may *not* be attended (it becomes ``-inf``), a float mask is added to the scores.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.ops.shape import Cat
from .attention import ScaledMaskedSoftmax
from .dropout import dropout
from .linear import linear
from .padding import pad

if TYPE_CHECKING:
    from ..._typing import Array
    from ...autograd.tensor import Tensor

__all__ = ["multi_head_attention_forward"]

_NEED_MASK = (
    "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
    "`generate_square_subsequent_mask` to create this mask."
)


def _batched(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    key_padding_mask: Tensor | None,
    attn_mask: Tensor | None,
    num_heads: int,
) -> bool:
    """PyTorch's shape checks: whether the call is batched (3-D query) or not (2-D)."""
    kinds = {3: "batched (3-D)", 2: "unbatched (2-D)"}
    if query.dim() not in kinds:
        raise AssertionError(
            "query should be unbatched 2D or batched 3D tensor but received "
            f"{query.dim()}-D query tensor"
        )
    n, kind = query.dim(), kinds[query.dim()]
    if key.dim() != n or value.dim() != n:
        raise AssertionError(
            f"For {kind} `query`, expected `key` and `value` to be {n}-D but found "
            f"{key.dim()}-D and {value.dim()}-D tensors respectively"
        )
    if key_padding_mask is not None and key_padding_mask.dim() != n - 1:
        raise AssertionError(
            f"For {kind} `query`, expected `key_padding_mask` to be `None` or {n - 1}-D but found "
            f"{key_padding_mask.dim()}-D tensor instead"
        )
    if attn_mask is not None and attn_mask.dim() not in (2, 3):
        raise AssertionError(
            f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
            f"{attn_mask.dim()}-D tensor instead"
        )
    if n == 2 and attn_mask is not None and attn_mask.dim() == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(
                f"Expected `attn_mask` shape to be {expected} but got {tuple(attn_mask.shape)}"
            )
    return n == 3


def _additive(mask: Tensor | None, name: str, dtype: np.dtype[Any]) -> Array | Tensor | None:
    """A mask as a constant array added to the scores (bool: True -> -inf), or the float Tensor
    itself when it requires grad (added in the graph, so it gets a gradient as in PyTorch)."""
    if mask is None:
        return None
    data = mask._data if hasattr(mask, "_data") else np.asarray(mask)
    if data.dtype == np.bool_:
        return np.where(data, -np.inf, 0.0).astype(dtype)
    if data.dtype.kind != "f":
        raise AssertionError(f"only bool and floating types of {name} are supported")
    if getattr(mask, "requires_grad", False):
        return mask
    return data.astype(dtype)


def _size(given: Tensor | None, mask: Array | Tensor) -> tuple[int, ...]:
    """The mask's shape as PyTorch prints it (a Size when the mask came as a Tensor)."""
    return given.shape if given is not None and hasattr(given, "shape") else tuple(mask.shape)


def _pad_key(mask: Array | Tensor | None) -> Array | Tensor | None:
    """One more key position, never masked (``bias_k`` or the zero attention)."""
    if mask is None:
        return None
    if isinstance(mask, np.ndarray):
        return np.pad(mask, [(0, 0)] * (mask.ndim - 1) + [(0, 1)])
    return pad(mask, (0, 1))


def multi_head_attention_forward(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    embed_dim_to_check: int,
    num_heads: int,
    in_proj_weight: Tensor | None,
    in_proj_bias: Tensor | None,
    bias_k: Tensor | None,
    bias_v: Tensor | None,
    add_zero_attn: bool,
    dropout_p: float,
    out_proj_weight: Tensor,
    out_proj_bias: Tensor | None,
    training: bool = True,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    attn_mask: Tensor | None = None,
    use_separate_proj_weight: bool = False,
    q_proj_weight: Tensor | None = None,
    k_proj_weight: Tensor | None = None,
    v_proj_weight: Tensor | None = None,
    static_k: Tensor | None = None,
    static_v: Tensor | None = None,
    average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[Tensor, Tensor | None]:
    """Multi-head attention of ``query`` over ``key``/``value``, as ``nn.MultiheadAttention``.

    Args:
        query (Tensor): ``(L, N, E)`` or unbatched ``(L, E)``.
        key (Tensor): ``(S, N, E_k)`` or ``(S, E_k)``.
        value (Tensor): ``(S, N, E_v)`` or ``(S, E_v)``.
        embed_dim_to_check (int): ``E``, checked against ``query``.
        num_heads (int): heads; divides ``E``.
        in_proj_weight (Tensor, optional): ``(3E, E)``, the stacked q, k, v projections.
        in_proj_bias (Tensor, optional): ``(3E,)``.
        bias_k, bias_v (Tensor, optional): ``(1, 1, E)``, a key and a value appended to the
            sequence.
        add_zero_attn (bool): append a zero key and value after the projections.
        dropout_p (float): dropout on the attention weights (when ``training``).
        out_proj_weight (Tensor): ``(E, E)``.
        out_proj_bias (Tensor, optional): ``(E,)``.
        training (bool): apply dropout. Default: True.
        key_padding_mask (Tensor, optional): ``(N, S)``; bool (True: ignore) or float (added).
        need_weights (bool): also return the attention weights. Default: True.
        attn_mask (Tensor, optional): ``(L, S)`` or ``(N * num_heads, L, S)``, bool or float.
        use_separate_proj_weight (bool): use ``q/k/v_proj_weight`` instead of
            ``in_proj_weight``. Default: False.
        q_proj_weight, k_proj_weight, v_proj_weight (Tensor, optional): the separate projections.
        static_k, static_v (Tensor, optional): ``(N * num_heads, S, E / num_heads)`` keys and
            values used as they are, instead of projecting ``key`` and ``value``.
        average_attn_weights (bool): average the returned weights over the heads. Default: True.
        is_causal (bool): a hint that ``attn_mask`` is the causal mask. Default: False.

    Returns:
        tuple: ``(output (L, N, E), weights (N, L, S) or (N, num_heads, L, S), or None)``.

    Examples:
        >>> x = nl.randn(5, 2, 8)
        >>> w, b = nl.randn(24, 8), nl.zeros(24)
        >>> out, weights = F.multi_head_attention_forward(
        ...     x, x, x, 8, 2, w, b, None, None, False, 0.0, nl.randn(8, 8), None)
        >>> out.shape, weights.shape
        (nnlite.Size([5, 2, 8]), nnlite.Size([2, 5, 5]))
    """
    batched = _batched(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(
            f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}"
        )
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if is_causal and attn_mask is None:
        raise RuntimeError(_NEED_MASK)
    dtype = query._data.dtype
    if is_causal and key_padding_mask is None and not need_weights:
        # the hint stands for the mask, as PyTorch's scaled_dot_product_attention takes it
        mask: Any = np.where(np.tri(length, key.shape[0], dtype=bool), 0.0, -np.inf).astype(dtype)
    else:
        mask = _additive(attn_mask, "attn_mask", dtype)
    padding = _additive(key_padding_mask, "key_padding_mask", dtype)

    if use_separate_proj_weight:
        if q_proj_weight is None or k_proj_weight is None or v_proj_weight is None:
            raise AssertionError(
                "use_separate_proj_weight is True but q_proj_weight, k_proj_weight or "
                "v_proj_weight is None"
            )
        weights: Any = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        weights = tuple(in_proj_weight[i * embed_dim : (i + 1) * embed_dim] for i in range(3))
    biases: Any = (
        (None, None, None)
        if in_proj_bias is None
        else tuple(in_proj_bias[i * embed_dim : (i + 1) * embed_dim] for i in range(3))
    )
    q = linear(query, weights[0], biases[0])
    k = linear(key, weights[1], biases[1])
    v = linear(value, weights[2], biases[2])

    source = key.shape[0]
    if mask is not None and mask.ndim == 2:
        if tuple(mask.shape) != (length, source):
            raise RuntimeError(
                f"The shape of the 2D attn_mask is {_size(attn_mask, mask)}, but should be "
                f"{(length, source)}."
            )
    elif mask is not None and tuple(mask.shape) != (batch * num_heads, length, source):
        raise RuntimeError(
            f"The shape of the 3D attn_mask is {_size(attn_mask, mask)}, but should be "
            f"{(batch * num_heads, length, source)}."
        )
    if bias_k is not None and bias_v is not None:
        k = Cat.apply(k, bias_k.expand(1, batch, embed_dim), dim=0)
        v = Cat.apply(v, bias_v.expand(1, batch, embed_dim), dim=0)
        mask, padding = _pad_key(mask), _pad_key(padding)
    elif bias_k is not None or bias_v is not None:
        raise AssertionError("bias_k and bias_v must be given together")

    def heads(x: Tensor) -> Tensor:  # (n, N, E) -> (N * H, n, head_dim)
        return x.reshape(x.shape[0], batch * num_heads, head_dim).transpose(0, 1)

    q, k, v = heads(q), heads(k), heads(v)
    for name, static in (("static_k", static_k), ("static_v", static_v)):
        if static is None:
            continue
        if static.shape[0] != batch * num_heads:
            raise AssertionError(
                f"expecting {name}.size(0) of {batch * num_heads}, but got {static.shape[0]}"
            )
        if static.shape[2] != head_dim:
            raise AssertionError(
                f"expecting {name}.size(2) of {head_dim}, but got {static.shape[2]}"
            )
    k = k if static_k is None else static_k
    v = v if static_v is None else static_v
    if add_zero_attn:
        zero = np.zeros((batch * num_heads, 1, head_dim), k._data.dtype)
        k, v = Cat.apply(k, zero, dim=1), Cat.apply(v, zero, dim=1)
        mask, padding = _pad_key(mask), _pad_key(padding)
    source = k.shape[1]
    if padding is not None:
        if tuple(padding.shape) != (batch, source):
            raise AssertionError(
                f"expecting key_padding_mask shape of {(batch, source)}, but got "
                f"{tuple(padding.shape)}"
            )
        padding = padding.reshape(batch, 1, 1, source)
        padding = (padding + np.zeros((1, num_heads, 1, 1), dtype)).reshape(
            batch * num_heads, 1, source
        )
        mask = padding if mask is None else mask + padding

    scores = q @ k.transpose(-2, -1)  # (N * H, L, S)
    scale = 1.0 / math.sqrt(head_dim)
    if mask is not None and not isinstance(mask, np.ndarray):
        scores, scale, mask = scores * scale + mask, 1.0, None  # a mask that needs a gradient
    attention = ScaledMaskedSoftmax.apply(scores, scale=scale, mask=mask)
    if training and dropout_p > 0.0:
        attention = dropout(attention, dropout_p, True)
    out = (attention @ v).transpose(0, 1).reshape(length, batch, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias)
    returned = None
    if need_weights:
        returned = attention.reshape(batch, num_heads, length, source)
        if average_attn_weights:
            returned = returned.mean(1)
        if not batched:
            returned = returned.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, returned
