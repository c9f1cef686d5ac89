"""``MultiheadAttention``, ``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``,
``TransformerDecoder`` and ``Transformer``, with PyTorch's parameter names (``in_proj_weight``, ``out_proj``, ``self_attn``, ``linear1``, ...)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import functional as F
from .. import init
from ..ops.multi_head_attention import multi_head_attention_forward
from ..parameter import Parameter
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear, NonDynamicallyQuantizableLinear, factory_dtype
from .module import Module
from .normalization import LayerNorm

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = [
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
]


class MultiheadAttention(Module):
    """Attention of ``num_heads`` heads over ``embed_dim``-wide sequences.

    Args:
        embed_dim (int): model width; must divide by ``num_heads``.
        num_heads (int): heads.
        dropout (float): dropout on the attention weights (training only).
        bias (bool): biases of the input and output projections.
        add_bias_kv (bool): learn a key and a value (``bias_k``, ``bias_v``) appended to the
            sequence. Default: False.
        add_zero_attn (bool): append a zero key and value after the projections. Default: False.
        kdim, vdim (int): widths of keys and values (default ``embed_dim``).
        batch_first (bool): (N, L, E) instead of (L, N, E).

    Examples:
        >>> attn = nl.nn.MultiheadAttention(16, 4, batch_first=True)
        >>> x = nl.randn(2, 5, 16)
        >>> out, weights = attn(x, x, x)
        >>> out.shape, weights.shape
        (nnlite.Size([2, 5, 16]), nnlite.Size([2, 5, 5]))
    """

    in_proj_bias: Parameter | None  # registered by __init__ (None without bias)
    bias_k: Parameter | None  # parameters with add_bias_kv=True, else None
    bias_v: Parameter | None

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                f"num_heads={num_heads} instead"
            )
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.embed_dim, self.num_heads, self.dropout, self.batch_first = (
            embed_dim,
            num_heads,
            dropout,
            batch_first,
        )
        self.kdim = embed_dim if kdim is None else kdim
        self.vdim = embed_dim if vdim is None else vdim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        dt = factory_dtype(dtype)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dt))
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(name, None)
        else:
            self.q_proj_weight = Parameter(np.empty((embed_dim, embed_dim), dt))
            self.k_proj_weight = Parameter(np.empty((embed_dim, self.kdim), dt))
            self.v_proj_weight = Parameter(np.empty((embed_dim, self.vdim), dt))
            self.register_parameter("in_proj_weight", None)
        self.register_parameter(
            "in_proj_bias", Parameter(np.empty((3 * embed_dim,), dt)) if bias else None
        )
        self.out_proj = NonDynamicallyQuantizableLinear(
            embed_dim, embed_dim, bias=bias, dtype=dtype
        )
        if add_bias_kv:
            self.bias_k = Parameter(np.empty((1, 1, embed_dim), dt))
            self.bias_v = Parameter(np.empty((1, 1, embed_dim), dt))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            for w in (self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
                init.xavier_uniform_(w)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (x.transpose(0, 1) for x in (query, key, value))
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query,
            key,
            value,
            self.embed_dim,
            self.num_heads,
            self.in_proj_weight,
            self.in_proj_bias,
            self.bias_k,
            self.bias_v,
            self.add_zero_attn,
            self.dropout,
            self.out_proj.weight,
            self.out_proj.bias,
            training=self.training,
            key_padding_mask=key_padding_mask,
            need_weights=need_weights,
            attn_mask=attn_mask,
            use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight if separate else None,
            k_proj_weight=self.k_proj_weight if separate else None,
            v_proj_weight=self.v_proj_weight if separate else None,
            average_attn_weights=average_attn_weights,
            is_causal=is_causal,
        )
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        return out, weights


def _activation(activation: Any) -> Any:
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block, each with a residual and ``LayerNorm`` (after by
    default, before with ``norm_first=True``).

    Args:
        d_model (int): the features of each position.
        nhead (int): attention heads; divides ``d_model``.
        dim_feedforward (int): the feed-forward block's width. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``"relu"``, ``"gelu"`` or a function. Default: ``"relu"``.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): inputs are ``(N, L, E)`` instead of ``(L, N, E)``. Default: False.
        norm_first (bool): LayerNorm before each block instead of after. Default: False.
        bias (bool): learn biases in the linear layers and LayerNorms. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> layer = nl.nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> layer(nl.randn(2, 5, 16)).shape
        nnlite.Size([2, 5, 16])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def _self_attention(
        self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None, is_causal: bool
    ) -> Any:
        out = self.self_attn(
            x,
            x,
            x,
            attn_mask=attn_mask,
            key_padding_mask=key_padding_mask,
            need_weights=False,
            is_causal=is_causal,
        )[0]
        return self.dropout1(out)

    def _feed_forward(self, x: Tensor) -> Any:
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(
        self,
        src: Tensor,
        src_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool = False,
    ) -> Tensor:
        x = src
        if self.norm_first:
            x = x + self._self_attention(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            result: Tensor = x + self._feed_forward(self.norm2(x))
            return result
        x = self.norm1(x + self._self_attention(x, src_mask, src_key_padding_mask, is_causal))
        result = self.norm2(x + self._feed_forward(x))
        return result


class TransformerDecoderLayer(Module):
    """Self-attention, attention over ``memory``, and a feed-forward block, each with a residual and
    ``LayerNorm``.

    Args:
        d_model (int): the features of each position.
        nhead (int): attention heads; divides ``d_model``.
        dim_feedforward (int): the feed-forward block's width. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``"relu"``, ``"gelu"`` or a function. Default: ``"relu"``.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): inputs are ``(N, L, E)`` instead of ``(L, N, E)``. Default: False.
        norm_first (bool): LayerNorm before each block instead of after. Default: False.
        bias (bool): learn biases in the linear layers and LayerNorms. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> layer(nl.randn(2, 3, 16), nl.randn(2, 5, 16)).shape
        nnlite.Size([2, 3, 16])
    """

    def __init__(
        self,
        d_model: int,
        nhead: int,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.multihead_attn = MultiheadAttention(
            d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, dtype=dtype
        )
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _self_attention(
        self, x: Tensor, mask: Tensor | None, padding: Tensor | None, is_causal: bool
    ) -> Any:
        return self.dropout1(
            self.self_attn(
                x,
                x,
                x,
                attn_mask=mask,
                key_padding_mask=padding,
                need_weights=False,
                is_causal=is_causal,
            )[0]
        )

    def _memory_attention(
        self,
        x: Tensor,
        memory: Tensor,
        mask: Tensor | None,
        padding: Tensor | None,
        is_causal: bool,
    ) -> Any:
        return self.dropout2(
            self.multihead_attn(
                x,
                memory,
                memory,
                attn_mask=mask,
                key_padding_mask=padding,
                need_weights=False,
                is_causal=is_causal,
            )[0]
        )

    def _feed_forward(self, x: Tensor) -> Any:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool = False,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        if self.norm_first:
            x = x + self._self_attention(
                self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal
            )
            x = x + self._memory_attention(
                self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
            result: Tensor = x + self._feed_forward(self.norm3(x))
            return result
        x = self.norm1(x + self._self_attention(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
        x = self.norm2(
            x
            + self._memory_attention(
                x, memory, memory_mask, memory_key_padding_mask, memory_is_causal
            )
        )
        result = self.norm3(x + self._feed_forward(x))
        return result


class TransformerEncoder(Module):
    """``num_layers`` copies of ``encoder_layer`` (each with its own weights), then optional ``norm``.

    Args:
        encoder_layer (TransformerEncoderLayer): the layer to copy.
        num_layers (int): how many copies.
        norm (Module, optional): applied to the output.
        enable_nested_tensor (bool): accepted for compatibility.
        mask_check (bool): accepted for compatibility.

    Examples:
        >>> layer = nn.TransformerEncoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> encoder = nn.TransformerEncoder(layer, num_layers=2)
        >>> encoder(nl.randn(2, 5, 16)).shape
        nnlite.Size([2, 5, 16])
    """

    def __init__(
        self,
        encoder_layer: Module,
        num_layers: int,
        norm: Any = None,
        enable_nested_tensor: bool = True,
        mask_check: bool = True,
    ) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        src: Tensor,
        mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        is_causal: bool | None = None,
    ) -> Tensor:
        x = src
        for layer in self.layers:
            x = layer(
                x,
                src_mask=mask,
                src_key_padding_mask=src_key_padding_mask,
                is_causal=bool(is_causal),
            )
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Module):
    """``num_layers`` copies of ``decoder_layer``, then optional ``norm``.

    Args:
        decoder_layer (TransformerDecoderLayer): the layer to copy.
        num_layers (int): how many copies.
        norm (Module, optional): applied to the output.

    Examples:
        >>> layer = nn.TransformerDecoderLayer(d_model=16, nhead=4, batch_first=True)
        >>> decoder = nn.TransformerDecoder(layer, num_layers=2)
        >>> decoder(nl.randn(2, 3, 16), nl.randn(2, 5, 16)).shape
        nnlite.Size([2, 3, 16])
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Any = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(
        self,
        tgt: Tensor,
        memory: Tensor,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        x = tgt
        for layer in self.layers:
            x = layer(
                x,
                memory,
                tgt_mask,
                memory_mask,
                tgt_key_padding_mask,
                memory_key_padding_mask,
                bool(tgt_is_causal),
                memory_is_causal,
            )
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    """An encoder-decoder transformer: ``TransformerEncoder`` and ``TransformerDecoder`` of the
    given sizes, each ending in a ``LayerNorm``; matrices initialised with ``xavier_uniform_``.

    Args:
        d_model (int): the features of each position. Default: 512.
        nhead (int): attention heads. Default: 8.
        num_encoder_layers (int): Default: 6.
        num_decoder_layers (int): Default: 6.
        dim_feedforward (int): the feed-forward blocks' width. Default: 2048.
        dropout (float): dropout probability. Default: 0.1.
        activation (str or callable): ``"relu"``, ``"gelu"`` or a function. Default: ``"relu"``.
        custom_encoder (Module, optional): used instead of the built encoder.
        custom_decoder (Module, optional): used instead of the built decoder.
        layer_norm_eps (float): the LayerNorms' eps. Default: 1e-5.
        batch_first (bool): inputs are ``(N, L, E)``. Default: False.
        norm_first (bool): LayerNorm before each block. Default: False.
        bias (bool): learn biases. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> model = nl.nn.Transformer(d_model=16, nhead=4, num_encoder_layers=1, num_decoder_layers=1)
        >>> model(nl.randn(5, 2, 16), nl.randn(3, 2, 16)).shape
        nnlite.Size([3, 2, 16])
    """

    def __init__(
        self,
        d_model: int = 512,
        nhead: int = 8,
        num_encoder_layers: int = 6,
        num_decoder_layers: int = 6,
        dim_feedforward: int = 2048,
        dropout: float = 0.1,
        activation: Any = "relu",
        custom_encoder: Any = None,
        custom_decoder: Any = None,
        layer_norm_eps: float = 1e-5,
        batch_first: bool = False,
        norm_first: bool = False,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        shared = {
            "dim_feedforward": dim_feedforward,
            "dropout": dropout,
            "activation": activation,
            "layer_norm_eps": layer_norm_eps,
            "batch_first": batch_first,
            "norm_first": norm_first,
            "bias": bias,
            "dtype": dtype,
        }
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(
                TransformerEncoderLayer(d_model, nhead, **shared),
                num_encoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype),
            )
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(
                TransformerDecoderLayer(d_model, nhead, **shared),
                num_decoder_layers,
                LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype),
            )
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def _reset_parameters(self) -> None:
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(
        self,
        src: Tensor,
        tgt: Tensor,
        src_mask: Tensor | None = None,
        tgt_mask: Tensor | None = None,
        memory_mask: Tensor | None = None,
        src_key_padding_mask: Tensor | None = None,
        tgt_key_padding_mask: Tensor | None = None,
        memory_key_padding_mask: Tensor | None = None,
        src_is_causal: bool | None = None,
        tgt_is_causal: bool | None = None,
        memory_is_causal: bool = False,
    ) -> Tensor:
        batch_dim = 0 if self.batch_first else 1
        if src.dim() == 3 and src.shape[batch_dim] != tgt.shape[batch_dim]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(
            src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal
        )
        result: Tensor = self.decoder(
            tgt,
            memory,
            tgt_mask=tgt_mask,
            memory_mask=memory_mask,
            tgt_key_padding_mask=tgt_key_padding_mask,
            memory_key_padding_mask=memory_key_padding_mask,
            tgt_is_causal=tgt_is_causal,
            memory_is_causal=memory_is_causal,
        )
        return result

    @staticmethod
    def generate_square_subsequent_mask(
        sz: int, device: Device | None = None, dtype: DTypeLike | None = None
    ) -> Any:
        """A (sz, sz) float mask: ``-inf`` above the diagonal (future positions), 0 elsewhere.

        Args:
            sz (int): the sequence length.
            device (str or nl.device, optional): only ``"cpu"``.
            dtype (nl.dtype, optional): Default: float32.

        Returns:
            Tensor: the ``(sz, sz)`` mask.

        Examples:
            >>> nn.Transformer.generate_square_subsequent_mask(3)
            tensor([[0., -inf, -inf],
                    [0., 0., -inf],
                    [0., 0., 0.]])
        """
        from ...autograd.creation import tensor

        mask = np.triu(np.full((sz, sz), -np.inf, dtype=np.float32), 1)
        return tensor(mask, dtype=dtype) if dtype is not None else tensor(mask)
