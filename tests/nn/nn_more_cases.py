"""The third table of nn functional ops (multi-head attention, CTC loss, fractional max pooling),
with the same row shape as ``nn_cases.CASES``: each row runs through the checks of
``test_nn_ops.py`` (see ``test_nn_more.py``)."""

import numpy as np
from nn_cases import Arg, Case, _t

import nnlite as nl
import nnlite.nn.functional as F

_E, _H = 4, 2  # embedding width and heads of the attention rows


def _mha(**kwargs):
    """A row's pair of calls of ``multi_head_attention_forward`` on (q, k, v, w_in, b_in, w_out,
    b_out[, extra tensors by name])."""
    names = kwargs.pop("tensors", ())

    zero_attn = kwargs.pop("add_zero_attn", False)

    def call(lib, lib_f):
        def fn(q, k, v, w_in, b_in, w_out, b_out, *extra):
            given = dict(zip(names, extra))
            bias_k, bias_v = given.pop("bias_k", None), given.pop("bias_v", None)
            out, weights = lib_f.multi_head_attention_forward(
                q,
                k,
                v,
                _E,
                _H,
                w_in,
                b_in,
                bias_k,
                bias_v,
                zero_attn,
                0.0,
                w_out,
                b_out,
                **given,
                **kwargs,
            )
            if weights is None:
                return out
            return lib.cat([out.reshape(-1), weights.reshape(-1)])  # one tensor checks both

        return fn

    def in_torch(*x):
        import torch

        return call(torch, _t())(*x)

    return call(nl, F), in_torch


def _mha_args(length=3, source=4, batch=2, extra=()):
    shape = (lambda n: (n, batch, _E)) if batch else (lambda n: (n, _E))
    return [
        Arg(shape(length)),
        Arg(shape(source)),
        Arg(shape(source)),
        Arg((3 * _E, _E)),
        Arg((3 * _E,)),
        Arg((_E, _E)),
        Arg((_E,)),
        *extra,
    ]


class Fixed(Arg):
    """A constant input holding given values (masks, lengths, targets)."""

    def __init__(self, values):
        self.values = np.asarray(values)
        super().__init__(self.values.shape, grad=False)

    def make(self, rng):
        return self.values.copy()


_CAUSAL = np.triu(np.full((3, 3), -np.inf), 1)
_PADDING = np.array([[False, False, True, False], [False, False, False, True]])

MORE_CASES = [
    Case("multi_head_attention_forward", *_mha(), _mha_args()),
    Case(
        "multi_head_attention_forward_heads_no_average",
        *_mha(average_attn_weights=False),
        _mha_args(),
    ),
    Case(
        "multi_head_attention_forward_causal_mask",
        *_mha(tensors=("attn_mask",), need_weights=False),
        _mha_args(3, 3, extra=[Fixed(_CAUSAL)]),
    ),
    Case(
        "multi_head_attention_forward_padding_bias_kv_zero_attn",
        *_mha(tensors=("key_padding_mask", "bias_k", "bias_v"), add_zero_attn=True),
        _mha_args(extra=[Fixed(_PADDING), Arg((1, 1, _E)), Arg((1, 1, _E))]),
    ),
    Case(
        "multi_head_attention_forward_unbatched_separate",
        *_mha(
            tensors=("q_proj_weight", "k_proj_weight", "v_proj_weight"),
            use_separate_proj_weight=True,
        ),
        _mha_args(batch=0, extra=[Arg((_E, _E)), Arg((_E, _E)), Arg((_E, _E))]),
    ),
]

MORE_IDS = [c.id for c in MORE_CASES]


def _fractional(name, *args, first=False, **kwargs):
    """A row's pair of calls of a fractional max pool with fixed ``_random_samples``."""

    def call(lib_f):
        def fn(x, samples):
            out = getattr(lib_f, name)(x, *args, _random_samples=samples, **kwargs)
            return out[0] if first else out

        return fn

    return call(F), lambda *x: call(_t())(*x)


_SAMPLES_2D = Fixed(np.random.default_rng(5).random((2, 3, 2)))
_SAMPLES_3D = Fixed(np.random.default_rng(6).random((1, 2, 3)))

MORE_CASES += [
    Case(
        "fractional_max_pool2d",
        *_fractional("fractional_max_pool2d", (2, 3), output_size=(4, 3)),
        [Arg((2, 3, 7, 8), "distinct"), _SAMPLES_2D],
    ),
    Case(
        "fractional_max_pool2d_ratio",
        *_fractional("fractional_max_pool2d", 2, output_ratio=(0.6, 0.6)),
        [Arg((2, 3, 6, 7), "distinct"), _SAMPLES_2D],
    ),
    Case(
        "fractional_max_pool2d_with_indices",
        *_fractional("fractional_max_pool2d", 2, output_size=3, return_indices=True, first=True),
        [Arg((3, 6, 5), "distinct"), Fixed(np.random.default_rng(7).random((1, 3, 2)))],
    ),
    Case(
        "fractional_max_pool3d",
        *_fractional("fractional_max_pool3d", (2, 2, 3), output_size=(2, 3, 2)),
        [Arg((1, 2, 4, 5, 5), "distinct"), _SAMPLES_3D],
    ),
    Case(
        "fractional_max_pool3d_with_indices",
        *_fractional(
            "fractional_max_pool3d_with_indices", 2, output_ratio=(0.5, 0.6, 0.7), first=True
        ),
        [Arg((2, 4, 5, 6), "distinct"), _SAMPLES_3D],
    ),
]
MORE_IDS = [c.id for c in MORE_CASES]


def _ctc(*args, **kwargs):
    """A row's pair of calls of ``ctc_loss`` on ``log_softmax`` of the row's logits (PyTorch's
    gradient is the one for log-probabilities that come from log_softmax)."""

    def call(lib_f):
        def fn(logits, targets):
            return lib_f.ctc_loss(lib_f.log_softmax(logits, 2), targets, *args, **kwargs)

        return fn

    return call(F), lambda *x: call(_t())(*x)


# first order only, as PyTorch's ctc_loss (tests/nn/test_ctc_loss.py checks the second's error)
MORE_CASES += [
    Case(
        "ctc_loss",
        *_ctc((6, 5, 4), (3, 2, 2)),
        [Arg((6, 3, 5)), Fixed(np.array([[1, 2, 2], [3, 4, 0], [4, 4, 0]]))],
        gradgrad=False,
    ),
    Case(
        "ctc_loss_concatenated_sum_blank",
        *_ctc((5, 5), (2, 3), blank=2, reduction="sum"),
        [Arg((5, 2, 4)), Fixed(np.array([1, 3, 0, 0, 1]))],
        gradgrad=False,
    ),
    Case(
        "ctc_loss_none_zero_infinity",
        *_ctc((4, 2), (2, 2), reduction="none", zero_infinity=True),
        [Arg((4, 2, 3)), Fixed(np.array([[1, 2], [1, 1]]))],
        gradgrad=False,
    ),
]
MORE_IDS = [c.id for c in MORE_CASES]


def _grouped(ends):
    """A row's call of ``grouped_mm`` with the int32 group ends ``ends`` (PyTorch refuses float64,
    so these rows are compared with it in float32 by tests/nn/test_grouped_mm.py)."""

    def fn(a, b):
        return F.grouped_mm(a, b, offs=nl.tensor(ends, dtype=nl.int32))

    return fn, None


MORE_CASES += [
    Case("grouped_mm", *_grouped([2, 5]), [Arg((6, 3)), Arg((2, 3, 4))], torch_compare=False),
    Case("grouped_mm_shared_k", *_grouped([1, 3]), [Arg((2, 3)), Arg((3, 4))], torch_compare=False),
    Case("grouped_mm_3d_2d", *_grouped([2, 4]), [Arg((2, 3, 2)), Arg((2, 4))], torch_compare=False),
    Case(
        "grouped_mm_batched",
        lambda a, b: F.grouped_mm(a, b),
        None,
        [Arg((2, 3, 2)), Arg((2, 2, 4))],
        torch_compare=False,
    ),
]
MORE_IDS = [c.id for c in MORE_CASES]
