"""ONNX conversions of attention and the transformer layers: ``nn.MultiheadAttention``,
``F.multi_head_attention_forward``, ``nn.TransformerEncoderLayer``, ``nn.TransformerDecoderLayer``,
``nn.LayerNorm`` and ``F.layer_norm``.

Attention is written out in plain ONNX ops: the projections as ``MatMul``/``Add`` with the weights
as initializers, the heads as ``Reshape``/``Transpose`` to ``(N, H, L, head_dim)``, the scores as
``MatMul``, scaled, plus the masks as one additive tensor (0 / -inf for a bool mask, as nnlite's
forward adds them), ``Softmax``, ``MatMul`` with the values, and the output projection. A mask that
is a constant (a causal mask built in ``forward``) is written as an initializer; a mask given as a
graph input is converted in the graph. The transformer layers are converted whole, so that their
activation function, stored on the layer, is known. Shapes are the example input's.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, overload

import numpy as np

from ..nn import functional as F
from ..nn.modules.activation import GELU, ReLU
from ..nn.modules.normalization import LayerNorm
from ..nn.modules.transformer import (
    MultiheadAttention,
    TransformerDecoderLayer,
    TransformerEncoderLayer,
)
from .nodes import ExportError, axes_node

if TYPE_CHECKING:
    import numpy.typing as npt

    from .._typing import Array
    from ..autograd.tensor import Tensor
    from .export import _Graph
    from .tracer import Call

#: a value of the graph by name, with the shape of the tensor it holds
_Named: TypeAlias = "tuple[str, tuple[int, ...]]"
#: the query, key and value projections: ``(w_q, w_k, w_v, b_q, b_k, b_v)``
_Projections: TypeAlias = "tuple[Array, Array, Array, Array | None, Array | None, Array | None]"
#: where a node's result goes: a result tensor, an explicit name, or None for a fresh name
_Target: TypeAlias = "Tensor | str | None"


@overload
def _array(tensor: Tensor) -> Array: ...
@overload
def _array(tensor: Tensor | None) -> Array | None: ...
def _array(tensor: Tensor | None) -> Array | None:
    return None if tensor is None else tensor.detach().numpy()


def _bound(function: Callable[..., Any], call: Call, skip_self: bool = False) -> dict[str, Any]:
    """The recorded module call's arguments by name (defaults filled in)."""
    given = call.args["input"]
    positional = given if isinstance(given, tuple) else (given,)
    keywords = {k: v for k, v in call.args.items() if k != "input"}
    signature = inspect.signature(function)
    params = list(signature.parameters.values())[1:] if skip_self else None
    if params is not None:
        signature = signature.replace(parameters=params)
    bound = signature.bind(*positional, **keywords)
    bound.apply_defaults()
    return dict(bound.arguments)


class _Emitter:
    """Nodes on value names, for one conversion; ``dtype`` is the float type of the values."""

    def __init__(self, g: _Graph, dtype: np.dtype[Any], hint: str) -> None:
        self.g, self.dtype, self.hint = g, dtype, hint

    def const(self, array: npt.ArrayLike, name: str) -> str:
        return self.g.const(np.asarray(array, dtype=self.dtype), f"{self.hint}.{name}")

    def shape(self, dims: Sequence[int]) -> str:
        return self.g.const(np.array(dims, dtype=np.int64), "shape")

    def node(
        self, op_type: str, inputs: Iterable[str], target: _Target = None, **attributes: Any
    ) -> str:
        return self.g.node(op_type, inputs, target, **attributes)

    def linear(
        self, x: str, weight: Array, bias: Array | None, name: str, target: _Target = None
    ) -> str:
        y = self.node("MatMul", [x, self.const(weight.T, name + ".weight_t")])
        if bias is None:
            return self.node("Identity", [y], target) if target is not None else y
        return self.node("Add", [y, self.const(bias, name + ".bias")], target)

    def layer_norm(
        self,
        x: str,
        weight: Array | None,
        bias: Array | None,
        eps: float,
        normalized_shape: tuple[int, ...],
        target: _Target = None,
    ) -> str:
        if self.g.opset < 17:
            raise ExportError("layer_norm needs opset_version 17 or later (LayerNormalization)")
        scale = weight if weight is not None else np.ones(normalized_shape, self.dtype)
        inputs = [x, self.const(scale, "norm.weight")]
        if bias is not None:
            inputs.append(self.const(bias, "norm.bias"))
        return self.node(
            "LayerNormalization",
            inputs,
            target,
            axis=-len(normalized_shape),
            epsilon=float(eps),
        )

    def activation(self, function: object, x: str) -> str:
        if function is F.relu or isinstance(function, ReLU):
            return self.node("Relu", [x])
        if function is F.gelu or (isinstance(function, GELU) and function.approximate == "none"):
            # 0.5 * x * (1 + erf(x / sqrt(2))), exact GELU in every opset
            scaled = self.node("Div", [x, self.const(math.sqrt(2.0), "sqrt2")])
            one = self.node("Add", [self.node("Erf", [scaled]), self.const(1.0, "one")])
            return self.node("Mul", [self.node("Mul", [x, one]), self.const(0.5, "half")])
        raise ExportError(
            f"the transformer layer's activation {function!r} cannot be exported "
            "(relu and gelu can)"
        )


def _mask_name(
    em: _Emitter, mask: Tensor | None, shape4d: tuple[int, ...], is_padding: bool
) -> str | None:
    """An additive mask broadcastable to ``(N, H, L, S)``; bool True -> -inf, as the forward."""
    g = em.g
    if mask is None:
        return None
    data = mask.detach().numpy()
    if not (mask.grad_fn is not None or g._from_inputs(mask)):  # a constant
        if data.dtype == np.bool_:
            data = np.where(data, -np.inf, 0.0)
        return em.const(data.reshape(shape4d), "padding_mask" if is_padding else "attn_mask")
    name = g.value(mask)
    if data.dtype == np.bool_:
        name = em.node("Where", [name, em.const(-np.inf, "minus_inf"), em.const(0.0, "zero")])
    elif data.dtype != em.dtype:
        raise ExportError("a float mask must have the attention's dtype to be exported")
    return em.node("Reshape", [name, em.shape(shape4d)])


def attention(
    em: _Emitter,
    inputs: Sequence[_Named],
    num_heads: int,
    projections: _Projections,
    out_proj: tuple[Array, Array | None],
    attn_mask: Tensor | None = None,
    key_padding_mask: Tensor | None = None,
    need_weights: bool = True,
    average_attn_weights: bool = True,
    is_causal: bool = False,
    batch_first: bool = False,
    targets: tuple[_Target, _Target] = (None, None),
) -> tuple[str, str | None]:
    """Emit multi-head attention. ``inputs`` is ``((name, shape) of query, of key, of value)``,
    values already in the graph; ``projections`` is ``(w_q, w_k, w_v, b_q, b_k, b_v)`` as arrays,
    ``out_proj`` ``(weight, bias)``. Returns the names of the output and of the weights (or None).
    """
    g = em.g
    names = [name for name, _ in inputs]
    query_shape, key_shape = tuple(inputs[0][1]), tuple(inputs[1][1])
    batched = len(query_shape) == 3
    if not batched:
        names = [em.node("Unsqueeze", [n, em.shape([1])]) for n in names]
        query_shape, key_shape = (query_shape[0], 1, query_shape[1]), (key_shape[0], 1)
    elif batch_first:
        names = [em.node("Transpose", [n], perm=[1, 0, 2]) for n in names]
        query_shape, key_shape = (query_shape[1], query_shape[0], query_shape[2]), key_shape[1:]
    length, batch, embed = query_shape
    source = key_shape[0]
    head = embed // num_heads
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint.")

    w_q, w_k, w_v, b_q, b_k, b_v = projections
    q, k, v = (
        em.linear(x, w, b, name)
        for x, w, b, name in zip(names, (w_q, w_k, w_v), (b_q, b_k, b_v), ("q", "k", "v"))
    )
    q = em.node(
        "Transpose",
        [em.node("Reshape", [q, em.shape([length, batch, num_heads, head])])],
        perm=[1, 2, 0, 3],
    )
    k = em.node(
        "Transpose",
        [em.node("Reshape", [k, em.shape([source, batch, num_heads, head])])],
        perm=[1, 2, 3, 0],
    )
    v = em.node(
        "Transpose",
        [em.node("Reshape", [v, em.shape([source, batch, num_heads, head])])],
        perm=[1, 2, 0, 3],
    )
    scores = em.node("Mul", [em.node("MatMul", [q, k]), em.const(1.0 / math.sqrt(head), "scale")])

    if is_causal and key_padding_mask is None and not need_weights:
        causal = np.where(np.tri(length, source, dtype=bool), 0.0, -np.inf)
        mask = em.const(causal.reshape(1, 1, length, source), "causal_mask")
    else:
        mask_shape = (
            (1, 1, length, source)
            if attn_mask is None or attn_mask.ndim == 2
            else (batch, num_heads, length, source)
        )
        mask = _mask_name(em, attn_mask, mask_shape, False)
    padding = _mask_name(em, key_padding_mask, (batch, 1, 1, source), True)
    for extra in (mask, padding):
        if extra is not None:
            scores = em.node("Add", [scores, extra])
    weights = em.node("Softmax", [scores], axis=-1)  # (N, H, L, S)
    attended = em.node("MatMul", [weights, v])  # (N, H, L, head)
    merged = em.node(
        "Reshape",
        [em.node("Transpose", [attended], perm=[2, 0, 1, 3]), em.shape([length, batch, embed])],
    )
    out_target, weights_target = targets
    last = batch_first or not batched
    out = em.linear(merged, *out_proj, "out_proj", None if last else out_target)
    if not batched:
        out = em.node("Squeeze", [out, em.shape([1])], out_target)
    elif batch_first:
        out = em.node("Transpose", [out], out_target, perm=[1, 0, 2])
    if not need_weights:
        return out, None
    if average_attn_weights:
        averaged = g.fresh("mean")
        axes_node(g, "ReduceMean", weights, [1], averaged, keepdims=0)
        weights = averaged
    if not batched:
        return out, em.node("Squeeze", [weights, em.shape([0])], weights_target)
    return out, em.node("Identity", [weights], weights_target)


def _module_projections(m: MultiheadAttention) -> _Projections:
    e = m.embed_dim
    if m.in_proj_weight is not None:
        w = _array(m.in_proj_weight)
        weights = (w[:e], w[e : 2 * e], w[2 * e :])
    else:
        weights = (_array(m.q_proj_weight), _array(m.k_proj_weight), _array(m.v_proj_weight))
    b = _array(m.in_proj_bias)
    biases: tuple[Array | None, Array | None, Array | None] = (
        (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
    )
    return weights + biases


def _check_module(m: MultiheadAttention) -> None:
    if m.bias_k is not None or m.add_zero_attn:
        raise ExportError("MultiheadAttention with add_bias_kv or add_zero_attn cannot be exported")


def _module_attention(
    em: _Emitter,
    m: MultiheadAttention,
    inputs: Sequence[_Named],
    attn_mask: Tensor | None,
    key_padding_mask: Tensor | None,
    need_weights: bool,
    average_attn_weights: bool,
    is_causal: bool,
    targets: tuple[_Target, _Target] = (None, None),
) -> tuple[str, str | None]:
    _check_module(m)
    return attention(
        em,
        inputs,
        m.num_heads,
        _module_projections(m),
        (_array(m.out_proj.weight), _array(m.out_proj.bias)),
        attn_mask,
        key_padding_mask,
        need_weights,
        average_attn_weights,
        is_causal,
        m.batch_first,
        targets,
    )


def _given(g: _Graph, *tensors: Tensor) -> list[_Named]:
    """(name, shape) of each tensor, as ``attention`` takes its inputs."""
    return [(g.value(t), tuple(t.shape)) for t in tensors]


def _dtype(tensor: Tensor) -> np.dtype[Any]:
    return tensor.detach().numpy().dtype


def multihead_attention_module(g: _Graph, call: Call) -> None:
    m = call.module(MultiheadAttention)
    args = _bound(type(m).forward, call, skip_self=True)
    em = _Emitter(g, _dtype(args["query"]), call.module_name or "attention")
    out, weights = call.result
    _module_attention(
        em,
        m,
        _given(g, args["query"], args["key"], args["value"]),
        args["attn_mask"],
        args["key_padding_mask"],
        args["need_weights"],
        args["average_attn_weights"],
        args["is_causal"],
        (out, weights),
    )


def multi_head_attention_function(g: _Graph, call: Call) -> None:
    a = call.args
    if (
        a["bias_k"] is not None
        or a["add_zero_attn"]
        or a["static_k"] is not None
        or a["static_v"] is not None
    ):
        raise ExportError(
            "multi_head_attention_forward with bias_k/bias_v, add_zero_attn or static_k/static_v "
            "cannot be exported"
        )
    if a["training"] and a["dropout_p"] > 0:
        raise ExportError(
            "multi_head_attention_forward with dropout in training cannot be exported"
        )
    e = a["embed_dim_to_check"]
    if a["use_separate_proj_weight"]:
        weights = tuple(_array(a[n]) for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight"))
    else:
        w = _array(a["in_proj_weight"])
        weights = (w[:e], w[e : 2 * e], w[2 * e :])
    b = _array(a["in_proj_bias"])
    biases = (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
    em = _Emitter(g, _dtype(a["query"]), "attention")
    out, returned = call.result
    attention(
        em,
        _given(g, a["query"], a["key"], a["value"]),
        a["num_heads"],
        weights + biases,
        (_array(a["out_proj_weight"]), _array(a["out_proj_bias"])),
        a["attn_mask"],
        a["key_padding_mask"],
        a["need_weights"],
        a["average_attn_weights"],
        a["is_causal"],
        False,
        (out, returned),
    )


def _norm(em: _Emitter, module: LayerNorm, x: str, target: _Target = None) -> str:
    return em.layer_norm(
        x,
        _array(module.weight),
        _array(module.bias),
        module.eps,
        module.normalized_shape,
        target,
    )


def _feed_forward(
    em: _Emitter, layer: TransformerEncoderLayer | TransformerDecoderLayer, x: str
) -> str:
    hidden = em.activation(
        layer.activation,
        em.linear(x, _array(layer.linear1.weight), _array(layer.linear1.bias), "linear1"),
    )
    return em.linear(hidden, _array(layer.linear2.weight), _array(layer.linear2.bias), "linear2")


def _attention_block(
    em: _Emitter,
    attn: MultiheadAttention,
    x_name: str,
    like: Tensor,
    source: Tensor | None,
    mask: Tensor | None,
    padding: Tensor | None,
    is_causal: bool,
) -> str:
    """Attention of the value named ``x_name`` (shaped as the tensor ``like``) over ``source``:
    itself when None (self-attention), else the tensor ``source`` (the decoder's memory)."""
    query = (x_name, tuple(like.shape))
    other = query if source is None else _given(em.g, source)[0]
    out, _ = _module_attention(
        em, attn, [query, other, other], mask, padding, False, True, is_causal
    )
    return out


def encoder_layer(g: _Graph, call: Call) -> None:
    m = call.module(TransformerEncoderLayer)
    args = _bound(type(m).forward, call, skip_self=True)
    src = args["src"]
    em = _Emitter(g, _dtype(src), call.module_name or "encoder_layer")
    x = g.value(src)
    mask, padding, causal = args["src_mask"], args["src_key_padding_mask"], args["is_causal"]
    if m.norm_first:
        sa = _attention_block(
            em, m.self_attn, _norm(em, m.norm1, x), src, None, mask, padding, causal
        )
        x = em.node("Add", [x, sa])
        em.node("Add", [x, _feed_forward(em, m, _norm(em, m.norm2, x))], call.result)
        return
    sa = _attention_block(em, m.self_attn, x, src, None, mask, padding, causal)
    x = _norm(em, m.norm1, em.node("Add", [x, sa]))
    _norm(em, m.norm2, em.node("Add", [x, _feed_forward(em, m, x)]), call.result)


def decoder_layer(g: _Graph, call: Call) -> None:
    m = call.module(TransformerDecoderLayer)
    args = _bound(type(m).forward, call, skip_self=True)
    tgt, memory = args["tgt"], args["memory"]
    em = _Emitter(g, _dtype(tgt), call.module_name or "decoder_layer")
    x = g.value(tgt)
    self_args = (args["tgt_mask"], args["tgt_key_padding_mask"], args["tgt_is_causal"])
    cross_args = (args["memory_mask"], args["memory_key_padding_mask"], args["memory_is_causal"])
    if m.norm_first:
        x = em.node(
            "Add",
            [x, _attention_block(em, m.self_attn, _norm(em, m.norm1, x), tgt, None, *self_args)],
        )
        x = em.node(
            "Add",
            [
                x,
                _attention_block(
                    em, m.multihead_attn, _norm(em, m.norm2, x), tgt, memory, *cross_args
                ),
            ],
        )
        em.node("Add", [x, _feed_forward(em, m, _norm(em, m.norm3, x))], call.result)
        return
    x = _norm(
        em,
        m.norm1,
        em.node("Add", [x, _attention_block(em, m.self_attn, x, tgt, None, *self_args)]),
    )
    x = _norm(
        em,
        m.norm2,
        em.node("Add", [x, _attention_block(em, m.multihead_attn, x, tgt, memory, *cross_args)]),
    )
    _norm(em, m.norm3, em.node("Add", [x, _feed_forward(em, m, x)]), call.result)


def layer_norm_module(g: _Graph, call: Call) -> None:
    x = call.args["input"]
    em = _Emitter(g, _dtype(x), call.module_name or "layer_norm")
    _norm(em, call.module(LayerNorm), g.value(x), call.result)


def layer_norm_function(g: _Graph, call: Call) -> None:
    a = call.args
    x = a["input"]
    em = _Emitter(g, _dtype(x), "layer_norm")
    shape = (
        tuple(a["normalized_shape"])
        if isinstance(a["normalized_shape"], (tuple, list))
        else (a["normalized_shape"],)
    )
    scale = (
        g.value(a["weight"]) if a["weight"] is not None else em.const(np.ones(shape), "norm.weight")
    )
    inputs = [g.value(x), scale] + ([g.value(a["bias"])] if a["bias"] is not None else [])
    if g.opset < 17:
        raise ExportError("layer_norm needs opset_version 17 or later (LayerNormalization)")
    g.node("LayerNormalization", inputs, call.result, axis=-len(shape), epsilon=float(a["eps"]))
