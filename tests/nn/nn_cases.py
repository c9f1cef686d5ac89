"""The table of nn functional ops shared by the op tests: one row per op and configuration.

Each row names the op, gives the nnlite call and the equivalent PyTorch call (both take the same
positional tensors), and the input makers. Inputs are made in float64 from a seeded generator, so
the same values reach both frameworks.
"""

import numpy as np

import nnlite as nl
import nnlite.nn.functional as F
from nnlite.nn.ops.recurrent import GRUSequence, LSTMSequence, RNNSequence


class Arg:
    """One input: ``shape`` and how to fill it; ``grad`` marks inputs that are differentiated."""

    def __init__(self, shape, kind="randn", grad=True, classes=None):
        self.shape, self.kind, self.grad, self.classes = tuple(shape), kind, grad, classes

    def make(self, rng):
        shape, kind = self.shape, self.kind
        if kind == "randn":
            return rng.standard_normal(shape)
        if kind == "away0":  # no element near a kink at 0 (relu, abs, sign)
            x = rng.standard_normal(shape)
            return np.where(np.abs(x) < 0.2, np.sign(x + 1e-12) * 0.2 + x, x)
        if kind == "distinct":  # values well apart (max pooling: no near-ties)
            n = int(np.prod(shape))
            return (rng.permutation(n) * 0.1 + rng.uniform(-0.02, 0.02, n)).reshape(
                shape
            ) - n * 0.05
        if kind == "pos":
            return rng.uniform(0.5, 2.0, shape)
        if kind == "unit":
            return rng.uniform(0.05, 0.95, shape)
        if kind == "binary":
            return (rng.random(shape) < 0.5).astype(np.float64)
        if kind == "probs":
            p = rng.uniform(0.1, 1.0, shape)
            return p / p.sum(axis=1 if len(shape) > 1 else 0, keepdims=True)
        if kind == "index":
            return rng.integers(0, self.classes, shape).astype(np.int64)
        if kind == "index_ignore":  # some entries set to ignore_index=-100 (but not all)
            t = rng.integers(0, self.classes, shape).astype(np.int64)
            flat = t.reshape(-1)
            flat[1::3] = -100
            return t
        raise ValueError(kind)


class Case:
    """A row of the op table."""

    def __init__(self, id, nl_fn, torch_fn, args, gradgrad=True, torch_compare=True):
        self.id, self.nl_fn, self.torch_fn, self.args = id, nl_fn, torch_fn, args
        self.gradgrad, self.torch_compare = gradgrad, torch_compare

    def arrays(self, seed=0):
        rng = np.random.default_rng(seed)
        return [a.make(rng) for a in self.args]

    def nl_inputs(self, dtype=np.float64, seed=0):
        out = []
        for a, arr in zip(self.args, self.arrays(seed)):
            if arr.dtype.kind == "f":
                arr = arr.astype(dtype)
            t = nl.tensor(arr)
            if a.grad:
                t.requires_grad_()
            out.append(t)
        return out

    def torch_inputs(self, torch, dtype=None, seed=0):
        dtype = dtype or torch.float64
        out = []
        for a, arr in zip(self.args, self.arrays(seed)):
            t = torch.from_numpy(arr.copy())
            if arr.dtype.kind == "f":
                t = t.to(dtype)
            if a.grad:
                t.requires_grad_()
            out.append(t)
        return out


def _t():
    """torch.nn.functional, imported when a row's PyTorch call runs."""
    import torch.nn.functional as TF

    return TF


def _torch():
    import torch

    return torch


def _seeded_dropout(x, p=0.3):
    nl.manual_seed(0)
    return F.dropout(x, p, True)


def _bn_train(x, w, b):
    c = x.shape[1]
    rm, rv = nl.zeros(c, dtype=x.dtype), nl.ones(c, dtype=x.dtype)
    return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)


def _bn_train_t(x, w, b):
    torch = _torch()
    c = x.shape[1]
    rm, rv = torch.zeros(c, dtype=x.dtype), torch.ones(c, dtype=x.dtype)
    return _t().batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)


def _bn_eval(lib_f, lib):
    def fn(x, w, b):
        c = x.shape[1]
        rm = lib.tensor(np.linspace(-0.5, 0.5, c), dtype=x.dtype)
        rv = lib.tensor(np.linspace(0.5, 2.0, c), dtype=x.dtype)
        return lib_f.batch_norm(x, rm, rv, w, b, training=False, eps=1e-3)

    return fn


def _lazy_bn_eval_t(x, w, b):
    return _bn_eval(_t(), _torch())(x, w, b)


def _bn_noaffine(x):
    return F.batch_norm(x, None, None, training=True)


def _bn_noaffine_t(x):
    return _t().batch_norm(x, None, None, training=True)


def _sequence(op, **params):
    """A recurrent sequence op on (projected input, initial states, weight_hh[, bias_hh])."""
    return lambda *inputs: op.apply(*inputs, **params)


def _torch_sequence(name, reverse=False):
    """PyTorch's fused recurrent function (``torch.gru``, ...) on an already projected input:
    ``weight_ih`` is the identity. Returns the op's layout (every hidden state, then LSTM's c_n)."""

    def fn(projected, *rest):
        torch = _torch()
        count = 2 if name == "lstm" else 1
        states, params = [s[None] for s in rest[:count]], list(rest[count:])
        params.insert(0, torch.eye(projected.shape[-1], dtype=projected.dtype))
        if len(params) == 3:  # GRU's bias_hh: bias_ih is zero
            params.insert(2, torch.zeros(projected.shape[-1], dtype=projected.dtype))
        x = projected.flip(0) if reverse else projected
        hx = tuple(states) if name == "lstm" else states[0]
        out = getattr(torch, name)(x, hx, params, len(params) == 4, 1, 0.0, False, False, False)
        hidden = out[0].flip(0) if reverse else out[0]
        return torch.cat([hidden, out[2]]) if name == "lstm" else hidden

    return fn


CASES = [
    # ---------------------------------------------------------------- linear
    Case("linear", F.linear, lambda *a: _t().linear(*a), [Arg((3, 4)), Arg((5, 4)), Arg((5,))]),
    Case("linear_nobias", F.linear, lambda *a: _t().linear(*a), [Arg((3, 4)), Arg((5, 4))]),
    Case(
        "linear_3d", F.linear, lambda *a: _t().linear(*a), [Arg((2, 3, 4)), Arg((5, 4)), Arg((5,))]
    ),
    Case("linear_1d", F.linear, lambda *a: _t().linear(*a), [Arg((4,)), Arg((3, 4)), Arg((3,))]),
    # ---------------------------------------------------------------- activations
    Case("relu", F.relu, lambda x: _t().relu(x), [Arg((3, 5), "away0")]),
    Case(
        "leaky_relu",
        lambda x: F.leaky_relu(x, 0.2),
        lambda x: _t().leaky_relu(x, 0.2),
        [Arg((3, 5), "away0")],
    ),
    Case("sigmoid", F.sigmoid, lambda x: _torch().sigmoid(x), [Arg((3, 5))]),
    Case("tanh", F.tanh, lambda x: _torch().tanh(x), [Arg((3, 5))]),
    Case(
        "softmax_dim1",
        lambda x: F.softmax(x, dim=1),
        lambda x: _t().softmax(x, dim=1),
        [Arg((3, 5))],
    ),
    Case(
        "softmax_dim0_3d",
        lambda x: F.softmax(x, dim=0),
        lambda x: _t().softmax(x, dim=0),
        [Arg((3, 2, 4))],
    ),
    Case(
        "log_softmax_dim1",
        lambda x: F.log_softmax(x, dim=1),
        lambda x: _t().log_softmax(x, dim=1),
        [Arg((3, 5))],
    ),
    Case(
        "log_softmax_last",
        lambda x: F.log_softmax(x, dim=-1),
        lambda x: _t().log_softmax(x, dim=-1),
        [Arg((2, 3, 4))],
    ),
    Case("gelu", F.gelu, lambda x: _t().gelu(x), [Arg((3, 5))]),
    Case(
        "gelu_tanh",
        lambda x: F.gelu(x, approximate="tanh"),
        lambda x: _t().gelu(x, approximate="tanh"),
        [Arg((3, 5))],
    ),
    Case("silu", F.silu, lambda x: _t().silu(x), [Arg((3, 5))]),
    Case("elu", lambda x: F.elu(x, 0.7), lambda x: _t().elu(x, 0.7), [Arg((3, 5), "away0")]),
    Case(
        "softplus",
        lambda x: F.softplus(x, 2.0, 3.0),
        lambda x: _t().softplus(x, 2.0, 3.0),
        [Arg((3, 5))],
    ),
    Case(
        "hardtanh",
        lambda x: F.hardtanh(x, -0.5, 0.8),
        lambda x: _t().hardtanh(x, -0.5, 0.8),
        [Arg((3, 5), "away0")],
    ),
    Case("relu6", lambda x: F.relu6(x * 4), lambda x: _t().relu6(x * 4), [Arg((3, 5), "away0")]),
    Case("mish", F.mish, lambda x: _t().mish(x), [Arg((3, 5))]),
    Case(
        "hardswish",
        lambda x: F.hardswish(x * 2),
        lambda x: _t().hardswish(x * 2),
        [Arg((3, 5), "away0")],
    ),
    Case(
        "prelu_channels",
        F.prelu,
        lambda x, w: _t().prelu(x, w),
        [Arg((2, 3, 4), "away0"), Arg((3,), "pos")],
    ),
    Case(
        "prelu_single",
        F.prelu,
        lambda x, w: _t().prelu(x, w),
        [Arg((4, 5), "away0"), Arg((1,), "pos")],
    ),
    # ---------------------------------------------------------------- normalisation within a sample
    Case(
        "layer_norm",
        lambda x, w, b: F.layer_norm(x, (4,), w, b),
        lambda x, w, b: _t().layer_norm(x, (4,), w, b),
        [Arg((2, 3, 4)), Arg((4,), "pos"), Arg((4,))],
    ),
    Case(
        "layer_norm_2d_plain",
        lambda x: F.layer_norm(x, (3, 4)),
        lambda x: _t().layer_norm(x, (3, 4)),
        [Arg((2, 3, 4))],
    ),
    Case(
        "group_norm",
        lambda x, w, b: F.group_norm(x, 2, w, b),
        lambda x, w, b: _t().group_norm(x, 2, w, b),
        [Arg((2, 4, 3, 3)), Arg((4,), "pos"), Arg((4,))],
    ),
    Case(
        "instance_norm",
        lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
        lambda x, w, b: _t().instance_norm(x, weight=w, bias=b),
        [Arg((2, 3, 4, 4)), Arg((3,), "pos"), Arg((3,))],
    ),
    Case(
        "instance_norm_1d",
        lambda x: F.instance_norm(x),
        lambda x: _t().instance_norm(x),
        [Arg((2, 3, 5))],
    ),
    Case(
        "normalize",
        lambda x: F.normalize(x, dim=1),
        lambda x: _t().normalize(x, dim=1),
        [Arg((3, 4))],
    ),
    Case(
        "normalize_p1",
        lambda x: F.normalize(x, p=1.0, dim=0),
        lambda x: _t().normalize(x, p=1.0, dim=0),
        [Arg((3, 4), "away0")],
    ),
    Case(
        "cosine_similarity",
        F.cosine_similarity,
        lambda a, b: _t().cosine_similarity(a, b),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "pairwise_distance",
        F.pairwise_distance,
        lambda a, b: _t().pairwise_distance(a, b),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    # ---------------------------------------------------------------- rearranging and lookup
    Case(
        "pixel_shuffle",
        lambda x: F.pixel_shuffle(x, 2),
        lambda x: _t().pixel_shuffle(x, 2),
        [Arg((2, 8, 2, 3))],
    ),
    Case(
        "pixel_unshuffle",
        lambda x: F.pixel_unshuffle(x, 2),
        lambda x: _t().pixel_unshuffle(x, 2),
        [Arg((2, 2, 4, 6))],
    ),
    Case(
        "embedding",
        lambda i, w: F.embedding(i, w),
        lambda i, w: _t().embedding(i, w),
        [Arg((3, 4), "index", grad=False, classes=5), Arg((5, 3))],
    ),
    Case(
        "pad_reflect",
        lambda x: F.pad(x, (2, 1, 1, 2), mode="reflect"),
        lambda x: _t().pad(x, (2, 1, 1, 2), mode="reflect"),
        [Arg((1, 2, 4, 5))],
    ),
    Case(
        "pad_replicate",
        lambda x: F.pad(x, (3, 0, 1, 2), mode="replicate"),
        lambda x: _t().pad(x, (3, 0, 1, 2), mode="replicate"),
        [Arg((1, 2, 3, 3))],
    ),
    Case(
        "pad_circular_1d",
        lambda x: F.pad(x, (2, 3), mode="circular"),
        lambda x: _t().pad(x, (2, 3), mode="circular"),
        [Arg((2, 2, 4))],
    ),
    Case(
        "interpolate_nearest",
        lambda x: F.interpolate(x, scale_factor=2),
        lambda x: _t().interpolate(x, scale_factor=2),
        [Arg((1, 2, 3, 2))],
    ),
    Case(
        "interpolate_nearest_size",
        lambda x: F.interpolate(x, size=(5, 3)),
        lambda x: _t().interpolate(x, size=(5, 3)),
        [Arg((1, 2, 3, 4))],
    ),
    Case(
        "interpolate_bilinear",
        lambda x: F.interpolate(x, size=(5, 7), mode="bilinear"),
        lambda x: _t().interpolate(x, size=(5, 7), mode="bilinear"),
        [Arg((1, 2, 3, 4))],
    ),
    Case(
        "interpolate_bilinear_corners",
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        lambda x: _t().interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        [Arg((2, 1, 3, 3))],
    ),
    Case(
        "interpolate_linear_down",
        lambda x: F.interpolate(x, size=3, mode="linear"),
        lambda x: _t().interpolate(x, size=3, mode="linear"),
        [Arg((1, 2, 7))],
    ),
    Case(
        "adaptive_max_pool2d",
        lambda x: F.adaptive_max_pool2d(x, (2, 3)),
        lambda x: _t().adaptive_max_pool2d(x, (2, 3)),
        [Arg((1, 2, 5, 7), "distinct")],
    ),
    Case(
        "sdpa",
        F.scaled_dot_product_attention,
        lambda q, k, v: _t().scaled_dot_product_attention(q, k, v),
        [Arg((2, 3, 4)), Arg((2, 5, 4)), Arg((2, 5, 3))],
    ),
    Case(
        "sdpa_causal_scale",
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3),
        lambda q, k, v: _t().scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3),
        [Arg((2, 2, 4, 3)), Arg((2, 2, 4, 3)), Arg((2, 2, 4, 3))],
    ),
    Case(
        "sdpa_bool_mask",
        lambda q, k, v: F.scaled_dot_product_attention(
            q, k, v, attn_mask=nl.tensor([[True, False, True], [True, True, False]])
        ),
        lambda q, k, v: _t().scaled_dot_product_attention(
            q, k, v, attn_mask=_torch().tensor([[True, False, True], [True, True, False]])
        ),
        [Arg((2, 2, 4)), Arg((2, 3, 4)), Arg((2, 3, 4))],
    ),
    # ---------------------------------------------------------------- convolution
    Case(
        "conv2d",
        F.conv2d,
        lambda *a: _t().conv2d(*a),
        [Arg((2, 2, 5, 5)), Arg((3, 2, 3, 3)), Arg((3,))],
    ),
    Case(
        "conv2d_nobias_pad1",
        lambda x, w: F.conv2d(x, w, padding=1),
        lambda x, w: _t().conv2d(x, w, padding=1),
        [Arg((1, 2, 4, 4)), Arg((3, 2, 3, 3))],
    ),
    Case(
        "conv2d_stride2_pad",
        lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=(1, 2)),
        lambda x, w, b: _t().conv2d(x, w, b, stride=2, padding=(1, 2)),
        [Arg((2, 2, 6, 5)), Arg((2, 2, 3, 2)), Arg((2,))],
    ),
    Case(  # an image network's stem: conv_stem's polyphase kernel
        "conv2d_stem_7x7_stride2",
        lambda x, w: F.conv2d(x, w, stride=2, padding=3),
        lambda x, w: _t().conv2d(x, w, stride=2, padding=3),
        [Arg((2, 3, 9, 8)), Arg((4, 3, 7, 7))],
    ),
    Case(
        "conv2d_dilation",
        lambda x, w: F.conv2d(x, w, dilation=2, padding=1),
        lambda x, w: _t().conv2d(x, w, dilation=2, padding=1),
        [Arg((1, 2, 6, 6)), Arg((2, 2, 3, 3))],
    ),
    Case(
        "conv2d_groups",
        lambda x, w, b: F.conv2d(x, w, b, groups=2),
        lambda x, w, b: _t().conv2d(x, w, b, groups=2),
        [Arg((1, 4, 5, 5)), Arg((4, 2, 3, 3)), Arg((4,))],
    ),
    Case(
        "conv2d_same_even",
        lambda x, w: F.conv2d(x, w, padding="same"),
        lambda x, w: _t().conv2d(x, w, padding="same"),
        [Arg((1, 2, 5, 5)), Arg((2, 2, 2, 4))],
    ),
    Case(
        "conv2d_valid_1x1",
        lambda x, w: F.conv2d(x, w, padding="valid"),
        lambda x, w: _t().conv2d(x, w, padding="valid"),
        [Arg((2, 3, 3, 3)), Arg((4, 3, 1, 1))],
    ),
    Case(
        "conv2d_unbatched",
        F.conv2d,
        lambda *a: _t().conv2d(*a),
        [Arg((2, 4, 4)), Arg((3, 2, 3, 3)), Arg((3,))],
    ),
    Case(
        "conv_transpose2d",
        lambda x, w, b: F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        lambda x, w, b: _t().conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1),
        [Arg((1, 2, 3, 3)), Arg((2, 3, 3, 3)), Arg((3,))],
    ),
    Case(
        "conv_transpose2d_groups",
        lambda x, w: F.conv_transpose2d(x, w, groups=2, dilation=2),
        lambda x, w: _t().conv_transpose2d(x, w, groups=2, dilation=2),
        [Arg((2, 4, 3, 2)), Arg((4, 1, 2, 2))],
    ),
    Case(
        "conv1d",
        lambda x, w, b: F.conv1d(x, w, b, stride=2, padding=1),
        lambda x, w, b: _t().conv1d(x, w, b, stride=2, padding=1),
        [Arg((2, 3, 7)), Arg((4, 3, 3)), Arg((4,))],
    ),
    # ---------------------------------------------------------------- pooling
    Case(
        "max_pool2d",
        lambda x: F.max_pool2d(x, 2),
        lambda x: _t().max_pool2d(x, 2),
        [Arg((2, 2, 4, 4), "distinct")],
    ),
    Case(
        "max_pool2d_k3s2p1",
        lambda x: F.max_pool2d(x, 3, 2, 1),
        lambda x: _t().max_pool2d(x, 3, 2, 1),
        [Arg((1, 2, 5, 5), "distinct")],
    ),
    Case(
        "max_pool2d_ceil_dil",
        lambda x: F.max_pool2d(x, 2, 2, 0, 2, ceil_mode=True),
        lambda x: _t().max_pool2d(x, 2, 2, 0, 2, ceil_mode=True),
        [Arg((1, 2, 6, 7), "distinct")],
    ),
    Case(
        "max_pool2d_indices",
        lambda x: F.max_pool2d(x, 2, return_indices=True)[0],
        lambda x: _t().max_pool2d(x, 2, return_indices=True)[0],
        [Arg((1, 2, 4, 4), "distinct")],
    ),
    Case(
        "avg_pool2d",
        lambda x: F.avg_pool2d(x, 2),
        lambda x: _t().avg_pool2d(x, 2),
        [Arg((2, 2, 4, 4))],
    ),
    Case(
        "avg_pool2d_pad_exclude",
        lambda x: F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        lambda x: _t().avg_pool2d(x, 3, 2, 1, count_include_pad=False),
        [Arg((1, 2, 5, 5))],
    ),
    Case(
        "avg_pool2d_ceil_divisor",
        lambda x: F.avg_pool2d(x, 2, 2, 1, ceil_mode=True, divisor_override=3),
        lambda x: _t().avg_pool2d(x, 2, 2, 1, ceil_mode=True, divisor_override=3),
        [Arg((1, 2, 5, 4))],
    ),
    Case(
        "adaptive_avg_pool2d_1",
        lambda x: F.adaptive_avg_pool2d(x, 1),
        lambda x: _t().adaptive_avg_pool2d(x, 1),
        [Arg((2, 3, 3, 3))],
    ),
    Case(
        "adaptive_avg_pool2d_even",
        lambda x: F.adaptive_avg_pool2d(x, (2, 2)),
        lambda x: _t().adaptive_avg_pool2d(x, (2, 2)),
        [Arg((1, 2, 4, 6))],
    ),
    Case(
        "adaptive_avg_pool2d_odd",
        lambda x: F.adaptive_avg_pool2d(x, (3, 2)),
        lambda x: _t().adaptive_avg_pool2d(x, (3, 2)),
        [Arg((1, 2, 5, 5))],
    ),
    Case(
        "adaptive_avg_pool2d_none",
        lambda x: F.adaptive_avg_pool2d(x, (None, 3)),
        lambda x: _t().adaptive_avg_pool2d(x, (None, 3)),
        [Arg((1, 1, 2, 7))],
    ),
    # ---------------------------------------------------------------- normalisation and dropout
    Case(
        "batch_norm_train_2d",
        _bn_train,
        _bn_train_t,
        [Arg((3, 2, 2, 2)), Arg((2,), "pos"), Arg((2,))],
    ),
    Case("batch_norm_train_1d", _bn_train, _bn_train_t, [Arg((4, 3)), Arg((3,), "pos"), Arg((3,))]),
    Case(
        "batch_norm_train_3d", _bn_train, _bn_train_t, [Arg((3, 2, 3)), Arg((2,), "pos"), Arg((2,))]
    ),
    Case(
        "batch_norm_eval",
        _bn_eval(F, nl),
        _lazy_bn_eval_t,
        [Arg((3, 2, 2, 2)), Arg((2,), "pos"), Arg((2,))],
    ),
    Case("batch_norm_noaffine", _bn_noaffine, _bn_noaffine_t, [Arg((4, 2, 2))]),
    Case("dropout", _seeded_dropout, None, [Arg((4, 5))], torch_compare=False),
    # ---------------------------------------------------------------- losses
    Case("mse_loss", F.mse_loss, lambda *a: _t().mse_loss(*a), [Arg((3, 4)), Arg((3, 4))]),
    Case(
        "mse_loss_sum",
        lambda x, t: F.mse_loss(x, t, reduction="sum"),
        lambda x, t: _t().mse_loss(x, t, reduction="sum"),
        [Arg((3, 4)), Arg((3, 4), grad=False)],
    ),
    Case(
        "mse_loss_none",
        lambda x, t: F.mse_loss(x, t, reduction="none"),
        lambda x, t: _t().mse_loss(x, t, reduction="none"),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "binary_cross_entropy",
        F.binary_cross_entropy,
        lambda *a: _t().binary_cross_entropy(*a),
        [Arg((3, 4), "unit"), Arg((3, 4), "unit")],
    ),
    Case(
        "binary_cross_entropy_weight_sum",
        lambda x, t, w: F.binary_cross_entropy(x, t, w, reduction="sum"),
        lambda x, t, w: _t().binary_cross_entropy(x, t, w, reduction="sum"),
        [Arg((3, 4), "unit"), Arg((3, 4), "binary", grad=False), Arg((3, 4), "pos", grad=False)],
    ),
    Case(
        "smooth_l1_loss",
        lambda x, t: F.smooth_l1_loss(x, t, beta=0.5),
        lambda x, t: _t().smooth_l1_loss(x, t, beta=0.5),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "huber_loss",
        lambda x, t: F.huber_loss(x, t, delta=0.7, reduction="sum"),
        lambda x, t: _t().huber_loss(x, t, delta=0.7, reduction="sum"),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "kl_div_batchmean",
        lambda x, t: F.kl_div(x, t, reduction="batchmean"),
        lambda x, t: _t().kl_div(x, t, reduction="batchmean"),
        [Arg((3, 4)), Arg((3, 4), "probs")],
    ),
    Case(
        "kl_div_log_target",
        lambda x, t: F.kl_div(x, t, reduction="sum", log_target=True),
        lambda x, t: _t().kl_div(x, t, reduction="sum", log_target=True),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "cosine_embedding_loss",
        lambda a, b: F.cosine_embedding_loss(a, b, nl.tensor([1, -1, 1]), margin=0.1),
        lambda a, b: _t().cosine_embedding_loss(a, b, _torch().tensor([1, -1, 1]), margin=0.1),
        [Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "margin_ranking_loss",
        lambda a, b: F.margin_ranking_loss(a, b, nl.tensor([1.0, -1.0, 1.0]), margin=0.3),
        lambda a, b: _t().margin_ranking_loss(
            a, b, _torch().tensor([1.0, -1.0, 1.0], dtype=a.dtype), margin=0.3
        ),
        [Arg((3,)), Arg((3,))],
    ),
    Case(
        "triplet_margin_loss",
        F.triplet_margin_loss,
        lambda *a: _t().triplet_margin_loss(*a),
        [Arg((3, 4)), Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "triplet_margin_loss_swap_p1",
        lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True),
        lambda a, p, n: _t().triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True),
        [Arg((3, 4), "away0"), Arg((3, 4)), Arg((3, 4))],
    ),
    Case(
        "l1_loss",
        F.l1_loss,
        lambda *a: _t().l1_loss(*a),
        [Arg((3, 4), "away0"), Arg((3, 4), "away0", grad=False)],
    ),
    Case(
        "l1_loss_none",
        lambda x, t: F.l1_loss(x, t, reduction="none"),
        lambda x, t: _t().l1_loss(x, t, reduction="none"),
        [Arg((3, 4), "away0"), Arg((3, 4), "away0", grad=False)],
    ),
    Case(
        "cross_entropy",
        F.cross_entropy,
        lambda *a: _t().cross_entropy(*a),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "cross_entropy_sum",
        lambda x, t: F.cross_entropy(x, t, reduction="sum"),
        lambda x, t: _t().cross_entropy(x, t, reduction="sum"),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "cross_entropy_none",
        lambda x, t: F.cross_entropy(x, t, reduction="none"),
        lambda x, t: _t().cross_entropy(x, t, reduction="none"),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "cross_entropy_weight_ignore",
        lambda x, t, w: F.cross_entropy(x, t, weight=w),
        lambda x, t, w: _t().cross_entropy(x, t, weight=w),
        [Arg((6, 4)), Arg((6,), "index_ignore", False, 4), Arg((4,), "pos", False)],
    ),
    Case(
        "cross_entropy_smoothing",
        lambda x, t: F.cross_entropy(x, t, label_smoothing=0.2),
        lambda x, t: _t().cross_entropy(x, t, label_smoothing=0.2),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "cross_entropy_smoothing_weight_ignore",
        lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.3),
        lambda x, t, w: _t().cross_entropy(x, t, weight=w, label_smoothing=0.3),
        [Arg((6, 4)), Arg((6,), "index_ignore", False, 4), Arg((4,), "pos", False)],
    ),
    Case(
        "cross_entropy_smoothing_none_ignore",
        lambda x, t: F.cross_entropy(x, t, reduction="none", label_smoothing=0.1),
        lambda x, t: _t().cross_entropy(x, t, reduction="none", label_smoothing=0.1),
        [Arg((6, 4)), Arg((6,), "index_ignore", False, 4)],
    ),
    Case(
        "cross_entropy_spatial",
        F.cross_entropy,
        lambda *a: _t().cross_entropy(*a),
        [Arg((2, 3, 2, 2)), Arg((2, 2, 2), "index", False, 3)],
    ),
    Case(
        "cross_entropy_unbatched",
        F.cross_entropy,
        lambda *a: _t().cross_entropy(*a),
        [Arg((5,)), Arg((), "index", False, 5)],
    ),
    Case(
        "cross_entropy_probs",
        F.cross_entropy,
        lambda *a: _t().cross_entropy(*a),
        [Arg((4, 5)), Arg((4, 5), "probs")],
    ),
    Case(
        "cross_entropy_probs_smoothing_weight",
        lambda x, t, w: F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction="sum"),
        lambda x, t, w: _t().cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction="sum"),
        [Arg((3, 4)), Arg((3, 4), "probs"), Arg((4,), "pos", False)],
    ),
    Case(
        "cross_entropy_probs_none",
        lambda x, t: F.cross_entropy(x, t, reduction="none"),
        lambda x, t: _t().cross_entropy(x, t, reduction="none"),
        [Arg((3, 4)), Arg((3, 4), "probs", False)],
    ),
    Case(
        "nll_loss",
        F.nll_loss,
        lambda *a: _t().nll_loss(*a),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "nll_loss_weight_ignore_sum",
        lambda x, t, w: F.nll_loss(x, t, weight=w, reduction="sum"),
        lambda x, t, w: _t().nll_loss(x, t, weight=w, reduction="sum"),
        [Arg((6, 4)), Arg((6,), "index_ignore", False, 4), Arg((4,), "pos", False)],
    ),
    Case(
        "nll_loss_none_spatial",
        lambda x, t: F.nll_loss(x, t, reduction="none"),
        lambda x, t: _t().nll_loss(x, t, reduction="none"),
        [Arg((2, 3, 2)), Arg((2, 2), "index", False, 3)],
    ),
    Case(
        "nll_of_log_softmax",
        lambda x, t: F.nll_loss(F.log_softmax(x, 1), t),
        lambda x, t: _t().nll_loss(_t().log_softmax(x, 1), t),
        [Arg((4, 5)), Arg((4,), "index", False, 5)],
    ),
    Case(
        "bce_with_logits",
        F.binary_cross_entropy_with_logits,
        lambda *a: _t().binary_cross_entropy_with_logits(*a),
        [Arg((3, 4)), Arg((3, 4), "unit")],
    ),
    Case(
        "bce_with_logits_weights",
        lambda x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, w, pos_weight=pw),
        lambda x, t, w, pw: _t().binary_cross_entropy_with_logits(x, t, w, pos_weight=pw),
        [Arg((3, 4)), Arg((3, 4), "unit"), Arg((3, 1), "pos", False), Arg((4,), "pos", False)],
    ),
    Case(
        "bce_with_logits_none",
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
        lambda x, t: _t().binary_cross_entropy_with_logits(x, t, reduction="none"),
        [Arg((3, 4)), Arg((3, 4), "binary", False)],
    ),
    # ---------------------------------------------------------------- shape
    Case("flatten", lambda x: F.flatten(x, 1), lambda x: _torch().flatten(x, 1), [Arg((2, 3, 2))]),
    Case(
        "pad",
        lambda x: F.pad(x, (1, 2, 0, 1), value=0.5),
        lambda x: _t().pad(x, (1, 2, 0, 1), value=0.5),
        [Arg((2, 3, 3))],
    ),
    Case(
        "pad_negative",
        lambda x: F.pad(x, (-1, 2, 1, -1)),
        lambda x: _t().pad(x, (-1, 2, 1, -1)),
        [Arg((2, 3, 4))],
    ),
    # ---------------------------------------------------------------- recurrent sequences
    Case(
        "rnn_tanh_sequence",
        _sequence(RNNSequence),
        _torch_sequence("rnn_tanh"),
        [Arg((4, 3, 2)), Arg((3, 2)), Arg((2, 2))],
    ),
    Case(
        "rnn_relu_sequence_reverse",
        _sequence(RNNSequence, relu=True, reverse=True),
        _torch_sequence("rnn_relu", reverse=True),
        [Arg((4, 3, 2)), Arg((3, 2)), Arg((2, 2))],
    ),
    Case(
        "gru_sequence",
        _sequence(GRUSequence),
        _torch_sequence("gru"),
        [Arg((4, 3, 6)), Arg((3, 2)), Arg((6, 2)), Arg((6,))],
    ),
    Case(
        "gru_sequence_reverse_nobias",
        lambda x, h, w: GRUSequence.apply(x, h, w, None, reverse=True),
        _torch_sequence("gru", reverse=True),
        [Arg((4, 3, 6)), Arg((3, 2)), Arg((6, 2))],
    ),
    Case(
        "lstm_sequence_reverse",
        _sequence(LSTMSequence, reverse=True),
        _torch_sequence("lstm", reverse=True),
        [Arg((4, 3, 8)), Arg((3, 2)), Arg((3, 2)), Arg((8, 2))],
    ),
    # packed batches (3 sequences of lengths 4, 3, 1): parity through the layers' tests
    Case(
        "rnn_tanh_sequence_packed",
        _sequence(RNNSequence, batch_sizes=(3, 2, 2, 1)),
        None,
        [Arg((4, 3, 2)), Arg((3, 2)), Arg((2, 2))],
        torch_compare=False,
    ),
    Case(
        "gru_sequence_packed_reverse",
        _sequence(GRUSequence, batch_sizes=(3, 2, 2, 1), reverse=True),
        None,
        [Arg((4, 3, 6)), Arg((3, 2)), Arg((6, 2)), Arg((6,))],
        torch_compare=False,
    ),
    Case(
        "lstm_sequence_packed",
        _sequence(LSTMSequence, batch_sizes=(3, 2, 2, 1)),
        None,
        [Arg((4, 3, 8)), Arg((3, 2)), Arg((3, 2)), Arg((8, 2))],
        torch_compare=False,
    ),
]

CASE_IDS = [c.id for c in CASES]
assert len(set(CASE_IDS)) == len(CASE_IDS), "duplicate op table ids"
