"""ONNX conversions: one function per nnlite module type or op, each emitting ONNX nodes.

A conversion receives the graph being built and one recorded call (``tracer.Call``). It reads its
inputs with ``g.value(...)`` (graph input, earlier result, parameter or constant), adds nodes with
``g.node(...)`` and names its result with ``g.result(call.result)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from .. import nn
from ..nn import functional as F
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from . import attention
from .nodes import ExportError, axes_node
from .recurrent import recurrent
from .tracer import Call, Conversion

if TYPE_CHECKING:
    from .._typing import Array
    from ..autograd.tensor import Tensor
    from .export import _Graph

#: a size given as one int for both dimensions or one per dimension
_IntOrPair: TypeAlias = "int | Sequence[int]"


def _pair(value: _IntOrPair) -> tuple[int, ...]:
    return tuple(value) if isinstance(value, Sequence) else (value, value)


def _pads(padding: _IntOrPair | str, kernel: Sequence[int], dilation: Sequence[int]) -> list[int]:
    """ONNX ``pads`` (begin..., end...) for PyTorch's ``padding`` (int, pair, "valid" or "same")."""
    if isinstance(padding, str):  # the module or function has checked it is one of the two
        if padding == "valid":
            return [0, 0, 0, 0]
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return [t // 2 for t in totals] + [t - t // 2 for t in totals]
    ph, pw = _pair(padding)
    return [ph, pw, ph, pw]


# ---------------------------------------------------------------- shared emitters


def _conv(
    g: _Graph,
    call: Call,
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: _IntOrPair,
    padding: _IntOrPair | str,
    dilation: _IntOrPair,
    groups: int,
) -> None:
    kernel = tuple(weight.shape[2:])
    dilation = _pair(dilation)
    inputs = [g.value(x), g.value(weight)] + ([g.value(bias)] if bias is not None else [])
    g.node(
        "Conv",
        inputs,
        call.result,
        kernel_shape=list(kernel),
        strides=list(_pair(stride)),
        pads=_pads(padding, kernel, dilation),
        dilations=list(dilation),
        group=groups,
    )


def _linear(g: _Graph, call: Call, x: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    if x.ndim == 2:
        inputs = [g.value(x), g.value(weight)] + ([g.value(bias)] if bias is not None else [])
        g.node("Gemm", inputs, call.result, transB=1)
        return
    transposed = g.node("Transpose", [g.value(weight)], None, perm=[1, 0])
    product = g.node("MatMul", [g.value(x), transposed], None if bias is not None else call.result)
    if bias is not None:
        g.node("Add", [product, g.value(bias)], call.result)


def _embedding(
    g: _Graph,
    call: Call,
    input: Tensor,
    weight: Tensor,
    max_norm: float | None,
    norm_type: float,
) -> None:
    """``Gather`` of the rows; with ``max_norm`` the gathered rows are renormalised as the forward
    renormalises them in the table (scale ``max_norm / (norm + 1e-7)`` where the norm exceeds it)."""
    if max_norm is None:
        g.node("Gather", [g.value(weight), g.value(input)], call.result, axis=0)
        return
    dtype = _np_dtype(weight)
    rows = g.node("Gather", [g.value(weight), g.value(input)], None, axis=0)
    power = g.node(
        "Pow", [g.node("Abs", [rows], None), g.const(np.array(norm_type, dtype), "p")], None
    )
    total = g.fresh("sum")
    axes_node(g, "ReduceSum", power, [-1], total, keepdims=1)
    norm = g.node("Pow", [total, g.const(np.array(1.0 / norm_type, dtype), "inverse_p")], None)
    limit = g.const(np.array(max_norm, dtype), "max_norm")
    shrink = g.node(
        "Div", [limit, g.node("Add", [norm, g.const(np.array(1e-7, dtype), "eps")], None)], None
    )
    scale = g.node(
        "Where",
        [g.node("Greater", [norm, limit], None), shrink, g.const(np.array(1.0, dtype), "one")],
        None,
    )
    g.node("Mul", [rows, scale], call.result)


def _max_pool(
    g: _Graph,
    call: Call,
    x: Tensor,
    kernel_size: _IntOrPair,
    stride: _IntOrPair | None,
    padding: _IntOrPair | str,
    dilation: _IntOrPair,
    ceil_mode: bool,
    return_indices: bool = False,
) -> None:
    if return_indices:
        raise ExportError("max_pool2d with return_indices=True cannot be exported")
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or stride == () else _pair(stride)
    g.node(
        "MaxPool",
        [g.value(x)],
        call.result,
        kernel_shape=list(kernel),
        strides=list(stride),
        pads=_pads(padding, kernel, _pair(dilation)),
        dilations=list(_pair(dilation)),
        ceil_mode=int(ceil_mode),
    )


def _avg_pool(
    g: _Graph,
    call: Call,
    x: Tensor,
    kernel_size: _IntOrPair,
    stride: _IntOrPair | None,
    padding: _IntOrPair | str,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> None:
    if divisor_override is not None:
        raise ExportError("avg_pool2d with divisor_override cannot be exported")
    kernel = _pair(kernel_size)
    stride = kernel if stride is None or stride == () else _pair(stride)
    g.node(
        "AveragePool",
        [g.value(x)],
        call.result,
        kernel_shape=list(kernel),
        strides=list(stride),
        pads=_pads(padding, kernel, (1, 1)),
        ceil_mode=int(ceil_mode),
        count_include_pad=int(count_include_pad),
    )


def _adaptive_avg_pool(g: _Graph, call: Call, x: Tensor, output_size: object) -> None:
    out_h, out_w = call.result.shape[-2:]
    in_h, in_w = x.shape[-2:]
    if (out_h, out_w) == (1, 1):
        g.node("GlobalAveragePool", [g.value(x)], call.result)
    elif in_h % out_h == 0 and in_w % out_w == 0:
        kernel = [in_h // out_h, in_w // out_w]
        g.node("AveragePool", [g.value(x)], call.result, kernel_shape=kernel, strides=kernel)
    else:
        # Adaptive average pooling is separable: rows, then columns, each a constant averaging matrix.
        dtype = _np_dtype(x)
        by_columns = g.node(
            "MatMul", [g.value(x), g.const(_adaptive_matrix(in_w, out_w, dtype).T, "pool_w")], None
        )
        g.node(
            "MatMul",
            [g.const(_adaptive_matrix(in_h, out_h, dtype), "pool_h"), by_columns],
            call.result,
        )


def _adaptive_matrix(size_in: int, size_out: int, dtype: np.dtype[Any]) -> Array:
    """(size_out, size_in) matrix averaging PyTorch's adaptive windows [floor(i*n/m), ceil((i+1)*n/m))."""
    matrix = np.zeros((size_out, size_in), dtype=dtype)
    for i in range(size_out):
        start, end = (i * size_in) // size_out, -(-((i + 1) * size_in) // size_out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _batch_norm(
    g: _Graph,
    call: Call,
    x: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None,
    bias: Tensor | None,
    training: bool,
    eps: float,
) -> None:
    if training or running_mean is None:
        raise ExportError(
            "batch_norm with batch statistics (training mode or track_running_stats=False) "
            "cannot be exported; call model.eval() first"
        )
    channels = x.shape[1]
    scale = (
        g.value(weight)
        if weight is not None
        else g.const(np.ones(channels, dtype=_np_dtype(x)), "ones")
    )
    shift = (
        g.value(bias)
        if bias is not None
        else g.const(np.zeros(channels, dtype=_np_dtype(x)), "zeros")
    )
    g.node(
        "BatchNormalization",
        [g.value(x), scale, shift, g.value(running_mean), g.value(running_var)],
        call.result,
        epsilon=float(eps),
    )


def _np_dtype(tensor: Tensor) -> np.dtype[Any]:
    return tensor.detach().numpy().dtype


def _flatten(g: _Graph, call: Call, x: Tensor, start_dim: int, end_dim: int) -> None:
    ndim = x.ndim
    start, end = start_dim % max(ndim, 1), end_dim % max(ndim, 1)
    if start == 1 and end == ndim - 1:
        g.node("Flatten", [g.value(x)], call.result, axis=1)
        return
    shape = [0] * start + [-1] + [0] * (ndim - 1 - end)
    g.node("Reshape", [g.value(x), g.const(np.array(shape, dtype=np.int64), "shape")], call.result)


def _unary(op_type: str) -> Conversion:
    def convert(g: _Graph, call: Call) -> None:
        g.node(
            op_type,
            [g.value(call.args["self"] if "self" in call.args else call.args["input"])],
            call.result,
        )

    return convert


def _operands(call: Call) -> tuple[Any, Any]:
    """``self`` and ``other`` of a binary call; the in-place methods (``add_``, ``+=``) take
    ``*args``, so there ``other`` is the first of them."""
    args = call.args
    return args["self"], args["other"] if "other" in args else args["args"][0]


def _binary(op_type: str, reflected: bool = False) -> Conversion:
    def convert(g: _Graph, call: Call) -> None:
        a, b = _operands(call)
        if call.args.get("alpha", 1) != 1:
            raise ExportError(f"{op_type} with alpha != 1 cannot be exported")
        a_name, b_name = g.value(a), g.value(b, like=a)
        g.node(op_type, [b_name, a_name] if reflected else [a_name, b_name], call.result)

    return convert


def _clip(g: _Graph, x: Tensor, result: Tensor | str | None, low: float, high: float) -> None:
    dtype = _np_dtype(x)
    g.node(
        "Clip",
        [
            g.value(x),
            g.const(np.array(low, dtype=dtype), "min"),
            g.const(np.array(high, dtype=dtype), "max"),
        ],
        result,
    )


def _softmax(op_type: str) -> Conversion:
    def convert(g: _Graph, call: Call) -> None:
        x = call.args.get("self", call.args.get("input"))
        dim = call.args.get("dim")
        if dim is None:
            raise ExportError(f"{op_type.lower()} without dim cannot be exported")
        g.node(op_type, [g.value(x)], call.result, axis=dim)

    return convert


def _shape_arg(values: Sequence[Any]) -> list[int]:
    """``view(2, 3)``, ``view((2, 3))`` and ``view([2, 3])`` alike."""
    if len(values) == 1 and isinstance(values[0], (tuple, list)):
        values = values[0]
    return [int(v) for v in values]


def _reshape(g: _Graph, call: Call) -> None:
    x = call.args["self"]
    shape = _shape_arg(call.args["shape"])
    if shape and x.ndim and shape[0] == x.shape[0] and len([s for s in shape if s == -1]) <= 1:
        shape[0] = 0  # keep the batch dimension as the input's, so a dynamic batch size works
    g.node("Reshape", [g.value(x), g.const(np.array(shape, dtype=np.int64), "shape")], call.result)


def _permute(g: _Graph, call: Call) -> None:
    g.node(
        "Transpose", [g.value(call.args["self"])], call.result, perm=_shape_arg(call.args["dims"])
    )


def _transpose(g: _Graph, call: Call) -> None:
    x = call.args["self"]
    perm = list(range(x.ndim))
    d0, d1 = call.args["dim0"] % x.ndim, call.args["dim1"] % x.ndim
    perm[d0], perm[d1] = perm[d1], perm[d0]
    g.node("Transpose", [g.value(x)], call.result, perm=perm)


def _t(g: _Graph, call: Call) -> None:
    x = call.args["self"]
    g.node("Transpose", [g.value(x)], call.result, perm=list(reversed(range(x.ndim))))


def _unsqueeze(g: _Graph, call: Call) -> None:
    x = call.args["self"]
    axes_node(g, "Unsqueeze", x, [call.args["dim"] % (x.ndim + 1)], call.result)


def _squeeze(g: _Graph, call: Call) -> None:
    x, dim = call.args["self"], call.args.get("dim")
    axes = (
        None
        if dim is None
        else [d % x.ndim for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
    )
    axes_node(g, "Squeeze", x, axes, call.result)


def _reduce(op_type: str) -> Conversion:
    def convert(g: _Graph, call: Call) -> None:
        x, dim = call.args["self"], call.args.get("dim")
        if call.args.get("dtype") is not None:
            raise ExportError(f"{op_type} with dtype= cannot be exported")
        axes = (
            None
            if dim is None
            else [d % x.ndim for d in (dim if isinstance(dim, (tuple, list)) else [dim])]
        )
        axes_node(
            g, op_type, x, axes, call.result, keepdims=int(bool(call.args.get("keepdim", False)))
        )

    return convert


def _cat(g: _Graph, call: Call) -> None:
    tensors = call.args["tensors"]
    g.node(
        "Concat",
        [g.value(t) for t in tensors],
        call.result,
        axis=call.args.get("dim", 0) % tensors[0].ndim,
    )


def _stack(g: _Graph, call: Call) -> None:
    tensors = call.args["tensors"]
    dim = call.args.get("dim", 0) % (tensors[0].ndim + 1)
    unsqueezed = []
    for t in tensors:
        name = g.fresh("unsqueezed")
        axes_node(g, "Unsqueeze", t, [dim], name)
        unsqueezed.append(name)
    g.node("Concat", unsqueezed, call.result, axis=dim)


def _identity(g: _Graph, call: Call) -> None:
    x = call.args.get("self", call.args.get("input"))
    g.node("Identity", [g.value(x)], call.result)


def _dropout(g: _Graph, call: Call) -> None:
    if call.args.get("training", True):
        raise ExportError("dropout in training mode cannot be exported; call model.eval() first")
    _identity(g, call)


def _relu6(g: _Graph, call: Call) -> None:
    _clip(g, call.args["input"], call.result, 0.0, 6.0)


def _shrink(soft: bool) -> Conversion:
    """hardshrink and softshrink: ONNX Shrink zeroes |x| <= lambd; softshrink also moves the rest
    lambd towards zero."""

    def convert(g: _Graph, call: Call) -> None:
        lambd = float(call.args["lambd"])
        bias = lambd if soft else 0.0
        g.node("Shrink", [g.value(call.args["input"])], call.result, lambd=lambd, bias=bias)

    return convert


def _celu(g: _Graph, call: Call) -> None:
    g.node("Celu", [g.value(call.args["input"])], call.result, alpha=float(call.args["alpha"]))


def _softmin(g: _Graph, call: Call) -> None:
    dim = call.args.get("dim")
    if dim is None:
        raise ExportError("softmin without dim cannot be exported")
    negated = g.node("Neg", [g.value(call.args["input"])], None)
    g.node("Softmax", [negated], call.result, axis=dim)


def _tanhshrink(g: _Graph, call: Call) -> None:
    x = g.value(call.args["input"])
    g.node("Sub", [x, g.node("Tanh", [x], None)], call.result)


def _logsigmoid(g: _Graph, call: Call) -> None:
    """log(sigmoid(x)) = -softplus(-x), without the log of a sigmoid that rounds to 0."""
    negated = g.node("Neg", [g.value(call.args["input"])], None)
    g.node("Neg", [g.node("Softplus", [negated], None)], call.result)


def _matmul(g: _Graph, call: Call) -> None:
    g.node("MatMul", [g.value(call.args["self"]), g.value(call.args["other"])], call.result)


# ---------------------------------------------------------------- tables


def _module_converters() -> dict[type[Module], Conversion]:
    def conv(g: _Graph, call: Call) -> None:
        m = call.module(nn.Conv2d)
        _conv(
            g, call, call.args["input"], m.weight, m.bias, m.stride, m.padding, m.dilation, m.groups
        )

    def linear(g: _Graph, call: Call) -> None:
        m = call.module(nn.Linear)
        _linear(g, call, call.args["input"], m.weight, m.bias)

    def batch_norm(g: _Graph, call: Call) -> None:
        m = call.module(_BatchNorm)
        stats = m.track_running_stats and not m.training
        _batch_norm(
            g,
            call,
            call.args["input"],
            m.running_mean if stats else None,
            m.running_var if stats else None,
            m.weight,
            m.bias,
            m.training,
            m.eps,
        )

    def max_pool(g: _Graph, call: Call) -> None:
        m = call.module(nn.MaxPool2d)
        _max_pool(
            g,
            call,
            call.args["input"],
            m.kernel_size,
            m.stride,
            m.padding,
            m.dilation,
            m.ceil_mode,
            getattr(m, "return_indices", False),
        )

    def avg_pool(g: _Graph, call: Call) -> None:
        m = call.module(nn.AvgPool2d)
        _avg_pool(
            g,
            call,
            call.args["input"],
            m.kernel_size,
            m.stride,
            m.padding,
            m.ceil_mode,
            m.count_include_pad,
            m.divisor_override,
        )

    def adaptive_avg_pool(g: _Graph, call: Call) -> None:
        _adaptive_avg_pool(
            g, call, call.args["input"], call.module(nn.AdaptiveAvgPool2d).output_size
        )

    def flatten(g: _Graph, call: Call) -> None:
        m = call.module(nn.Flatten)
        _flatten(g, call, call.args["input"], m.start_dim, m.end_dim)

    def activation(op_type: str) -> Conversion:
        def convert(g: _Graph, call: Call) -> None:
            g.node(op_type, [g.value(call.args["input"])], call.result)

        return convert

    def softmax(op_type: str, kind: type[nn.Softmax] | type[nn.LogSoftmax]) -> Conversion:
        def convert(g: _Graph, call: Call) -> None:
            dim = call.module(kind).dim
            g.node(
                op_type,
                [g.value(call.args["input"])],
                call.result,
                axis=dim if dim is not None else -1,
            )

        return convert

    def leaky_relu(g: _Graph, call: Call) -> None:
        g.node(
            "LeakyRelu",
            [g.value(call.args["input"])],
            call.result,
            alpha=float(call.module(nn.LeakyReLU).negative_slope),
        )

    def embedding(g: _Graph, call: Call) -> None:
        m = call.module(nn.Embedding)
        _embedding(g, call, call.args["input"], m.weight, m.max_norm, m.norm_type)

    table: dict[type[Module], Conversion] = {
        nn.MultiheadAttention: attention.multihead_attention_module,
        nn.TransformerEncoderLayer: attention.encoder_layer,
        nn.TransformerDecoderLayer: attention.decoder_layer,
        nn.LayerNorm: attention.layer_norm_module,
        nn.Embedding: embedding,
        nn.RNN: recurrent,
        nn.LSTM: recurrent,
        nn.GRU: recurrent,
        nn.Conv2d: conv,
        nn.Linear: linear,
        nn.BatchNorm1d: batch_norm,
        nn.BatchNorm2d: batch_norm,
        nn.MaxPool2d: max_pool,
        nn.AvgPool2d: avg_pool,
        nn.AdaptiveAvgPool2d: adaptive_avg_pool,
        nn.Flatten: flatten,
        nn.ReLU: activation("Relu"),
        nn.Sigmoid: activation("Sigmoid"),
        nn.Tanh: activation("Tanh"),
        nn.Softmax: softmax("Softmax", nn.Softmax),
        nn.LogSoftmax: softmax("LogSoftmax", nn.LogSoftmax),
        nn.Identity: _identity,
        nn.Dropout: activation("Identity"),
        nn.ReLU6: lambda g, call: _clip(g, call.args["input"], call.result, 0.0, 6.0),
    }
    if hasattr(nn, "LeakyReLU"):
        table[nn.LeakyReLU] = leaky_relu
    return table


def _function_converters() -> list[tuple[object, str, Conversion]]:
    """``(owner, attribute) -> conversion`` for the functions and Tensor methods the tracer wraps."""
    import nnlite

    from ..autograd.tensor import Tensor

    def f(name: str, convert: Conversion) -> tuple[object, str, Conversion]:
        return (F, name, convert)

    def t(name: str, convert: Conversion) -> tuple[object, str, Conversion]:
        return (Tensor, name, convert)

    def n(name: str, convert: Conversion) -> tuple[object, str, Conversion]:
        return (nnlite, name, convert)

    def a(call: Call, *names: str) -> list[Any]:
        return [call.args[k] for k in names]

    entries = [
        f(
            "conv2d",
            lambda g, c: _conv(
                g, c, *a(c, "input", "weight", "bias", "stride", "padding", "dilation", "groups")
            ),
        ),
        f("linear", lambda g, c: _linear(g, c, *a(c, "input", "weight", "bias"))),
        f(
            "max_pool2d",
            lambda g, c: _max_pool(
                g,
                c,
                *a(
                    c,
                    "input",
                    "kernel_size",
                    "stride",
                    "padding",
                    "dilation",
                    "ceil_mode",
                    "return_indices",
                ),
            ),
        ),
        f(
            "avg_pool2d",
            lambda g, c: _avg_pool(
                g,
                c,
                *a(
                    c,
                    "input",
                    "kernel_size",
                    "stride",
                    "padding",
                    "ceil_mode",
                    "count_include_pad",
                    "divisor_override",
                ),
            ),
        ),
        f(
            "adaptive_avg_pool2d",
            lambda g, c: _adaptive_avg_pool(g, c, *a(c, "input", "output_size")),
        ),
        f(
            "batch_norm",
            lambda g, c: _batch_norm(
                g,
                c,
                *a(c, "input", "running_mean", "running_var", "weight", "bias", "training", "eps"),
            ),
        ),
        f(
            "embedding",
            lambda g, c: _embedding(g, c, *a(c, "input", "weight", "max_norm", "norm_type")),
        ),
        f("flatten", lambda g, c: _flatten(g, c, *a(c, "input", "start_dim", "end_dim"))),
        f("multi_head_attention_forward", attention.multi_head_attention_function),
        f("layer_norm", attention.layer_norm_function),
        f("relu", _unary("Relu")),
        f("sigmoid", _unary("Sigmoid")),
        f("tanh", _unary("Tanh")),
        f("relu6", _relu6),
        f("selu", _unary("Selu")),
        f("softsign", _unary("Softsign")),
        f("hardshrink", _shrink(soft=False)),
        f("softshrink", _shrink(soft=True)),
        f("celu", _celu),
        f("softmin", _softmin),
        f("tanhshrink", _tanhshrink),
        f("logsigmoid", _logsigmoid),
        f("softmax", _softmax("Softmax")),
        f("log_softmax", _softmax("LogSoftmax")),
        f("dropout", _dropout),
        t("relu", _unary("Relu")),
        t("relu_", _unary("Relu")),
        t("sigmoid", _unary("Sigmoid")),
        t("tanh", _unary("Tanh")),
        t("exp", _unary("Exp")),
        t("log", _unary("Log")),
        t("sqrt", _unary("Sqrt")),
        t("abs", _unary("Abs")),
        t("__neg__", _unary("Neg")),
        t("__add__", _binary("Add")),
        t("__radd__", _binary("Add", True)),
        t("add", _binary("Add")),
        t("__iadd__", _binary("Add")),
        t("add_", _binary("Add")),
        t("__sub__", _binary("Sub")),
        t("__rsub__", _binary("Sub", True)),
        t("sub", _binary("Sub")),
        t("__mul__", _binary("Mul")),
        t("__rmul__", _binary("Mul", True)),
        t("mul", _binary("Mul")),
        t("__imul__", _binary("Mul")),
        t("mul_", _binary("Mul")),
        t("__truediv__", _binary("Div")),
        t("__rtruediv__", _binary("Div", True)),
        t("div", _binary("Div")),
        t("__matmul__", _matmul),
        t("matmul", _matmul),
        t("mm", _matmul),
        t("flatten", lambda g, c: _flatten(g, c, *a(c, "self", "start_dim", "end_dim"))),
        t("view", _reshape),
        t("reshape", _reshape),
        t("permute", _permute),
        t("transpose", _transpose),
        t("t", _t),
        t("unsqueeze", _unsqueeze),
        t("squeeze", _squeeze),
        t("mean", _reduce("ReduceMean")),
        t("sum", _reduce("ReduceSum")),
        t("softmax", _softmax("Softmax")),
        t("log_softmax", _softmax("LogSoftmax")),
        t("contiguous", _identity),
        t("clone", _identity),
        n("cat", _cat),
        n("stack", _stack),
    ]
    return entries


MODULE_CONVERTERS = _module_converters()
FUNCTION_CONVERTERS = _function_converters()
