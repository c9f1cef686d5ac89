"""The second table of nn functional ops (the rest of ``torch.nn.functional``), with the same row
shape as ``nn_cases.CASES``: each row runs through the checks of ``test_nn_ops.py``."""

import numpy as np
from nn_cases import Arg, Case, _t

import nnlite.nn.functional as F


def _same(name, *args, **kwargs):
    """A row's pair of calls: ``F.name(*tensors, *args, **kwargs)`` in both frameworks."""
    return (
        lambda *x: getattr(F, name)(*x, *args, **kwargs),
        lambda *x: getattr(_t(), name)(*x, *args, **kwargs),
    )


def _row(id, name, inputs, *args, gradgrad=True, **kwargs):
    return Case(id, *_same(name, *args, **kwargs), inputs, gradgrad=gradgrad)


class Fixed(Arg):
    """A constant (non-differentiated) input holding given values (targets, class indices)."""

    def __init__(self, values):
        self.values = np.asarray(values)
        super().__init__(self.values.shape, grad=False)

    def make(self, rng):
        return self.values.copy()


_targets = Fixed

_X = Arg((3, 5))
_AWAY = Arg((3, 5), "away0")
_SIGNS = [[1.0, -1.0, 1.0, 1.0, -1.0], [-1.0, -1.0, 1.0, -1.0, 1.0], [1.0, 1.0, -1.0, 1.0, -1.0]]

SURFACE_CASES = [
    # ---------------------------------------------------------------- activations
    _row("celu", "celu", [_AWAY], 0.5),  # PyTorch rounds 1/alpha to float32 in backward
    _row("selu", "selu", [_AWAY]),
    _row("glu", "glu", [Arg((3, 4))]),
    _row("glu_dim0", "glu", [Arg((4, 3))], 0),
    _row("hardshrink", "hardshrink", [Arg((3, 5), "distinct")], 0.25),
    _row("softshrink", "softshrink", [Arg((3, 5), "distinct")], 0.25),
    _row("logsigmoid", "logsigmoid", [_X]),
    _row("softsign", "softsign", [_AWAY]),
    _row("tanhshrink", "tanhshrink", [_X]),
    _row("threshold", "threshold", [Arg((3, 5), "distinct")], 0.13, -2.0),
    _row("rrelu_eval", "rrelu", [_AWAY], 0.1, 0.3),
    _row("softmin", "softmin", [_X], dim=1),
    # ---------------------------------------------------------------- losses
    _row("soft_margin_loss", "soft_margin_loss", [_X, _targets(_SIGNS)]),
    _row("hinge_embedding_loss", "hinge_embedding_loss", [_AWAY, _targets(_SIGNS)], margin=0.5),
    _row(
        "multi_margin_loss",
        "multi_margin_loss",
        [Arg((3, 5), "distinct"), _targets(np.array([1, 0, 4]))],
    ),
    Case(
        "multi_margin_loss_p2_weight",
        lambda x, y, w: F.multi_margin_loss(x, y, p=2, margin=0.7, weight=w, reduction="none"),
        lambda x, y, w: _t().multi_margin_loss(x, y, p=2, margin=0.7, weight=w, reduction="none"),
        [Arg((3, 5), "distinct"), _targets(np.array([1, 0, 4])), Arg((5,), "pos", grad=False)],
    ),
    _row(
        "multilabel_margin_loss",
        "multilabel_margin_loss",
        [Arg((2, 4), "distinct"), _targets(np.array([[3, 0, -1, 1], [2, -1, 0, 0]]))],
    ),
    _row(
        "multilabel_soft_margin_loss",
        "multilabel_soft_margin_loss",
        [_X, _targets((np.array(_SIGNS) > 0).astype(np.float64)), Arg((5,), "pos")],
    ),
    _row("poisson_nll_loss", "poisson_nll_loss", [_X, Arg((3, 5), "pos", grad=False)]),
    _row(
        "poisson_nll_loss_rates_full",
        "poisson_nll_loss",
        [Arg((3, 5), "pos"), _targets(np.arange(15.0).reshape(3, 5))],
        log_input=False,
        full=True,
        reduction="sum",
    ),
    _row("gaussian_nll_loss", "gaussian_nll_loss", [_X, Arg((3, 5)), Arg((3, 5), "pos")]),
    _row(
        "gaussian_nll_loss_homoscedastic",
        "gaussian_nll_loss",
        [_X, Arg((3, 5)), Arg((3,), "pos")],
        full=True,
        reduction="none",
    ),
    _row(
        "triplet_margin_with_distance_loss",
        "triplet_margin_with_distance_loss",
        [Arg((3, 4)), Arg((3, 4)), Arg((3, 4))],
        swap=True,
    ),
    # ---------------------------------------------------------------- blocks
    _row("unfold", "unfold", [Arg((2, 3, 5, 6))], 2),
    _row(
        "unfold_padded_strided",
        "unfold",
        [Arg((1, 2, 5, 6))],
        (2, 3),
        dilation=(2, 1),
        padding=1,
        stride=(1, 2),
    ),
    _row("fold", "fold", [Arg((2, 12, 20))], (5, 6), 2),
    _row("fold_padded_strided", "fold", [Arg((2, 8, 12))], (5, 6), 2, padding=1, stride=2),
]


class Grid(Arg):
    """Grid points in [-1.4, 1.4]: some outside the image, to exercise the padding modes."""

    def make(self, rng):
        return rng.uniform(-1.4, 1.4, self.shape)


_GRID_INPUTS = [Arg((2, 3, 4, 5)), Grid((2, 3, 6, 2))]
SURFACE_CASES += [
    _row("affine_grid", "affine_grid", [Arg((2, 2, 3))], (2, 3, 4, 5), align_corners=False),
    _row("affine_grid_corners", "affine_grid", [Arg((2, 2, 3))], (2, 1, 3, 2), align_corners=True),
    _row("affine_grid_3d", "affine_grid", [Arg((2, 3, 4))], (2, 1, 2, 3, 4), align_corners=False),
    *[
        _row(
            f"grid_sample_bilinear_{padding}_{corners}",
            "grid_sample",
            _GRID_INPUTS,
            "bilinear",
            padding,
            corners,
        )
        for padding in ("zeros", "border", "reflection")
        for corners in (True, False)
    ],
    *[
        _row(
            f"grid_sample_nearest_{padding}",
            "grid_sample",
            [Arg((2, 3, 4, 5)), Grid((2, 3, 6, 2), grad=False)],
            "nearest",
            padding,
            False,
        )
        for padding in ("zeros", "border", "reflection")
    ],
]


def _first(name, *args, **kwargs):
    """A row of a pooling call that returns ``(output, indices)``: the output."""
    return (
        lambda *x: getattr(F, name)(*x, *args, **kwargs)[0],
        lambda *x: getattr(_t(), name)(*x, *args, **kwargs)[0],
    )


def _unpool_indices(shape, kernel):
    """Valid max-pool indices for pooled ``shape`` (N, C, *spatial) with window ``kernel``."""
    rng = np.random.default_rng(7)
    spatial = shape[2:]
    full = [s * kernel for s in spatial]
    coords = [
        (np.arange(s) * kernel)[(...,) + (None,) * (len(spatial) - 1 - d)]
        + rng.integers(0, kernel, shape)
        for d, s in enumerate(spatial)
    ]
    flat = coords[0]
    for d in range(1, len(spatial)):
        flat = flat * full[d] + coords[d]
    return flat.astype(np.int64)


_DISTINCT_1D, _DISTINCT_3D = Arg((2, 3, 9), "distinct"), Arg((2, 2, 5, 6, 7), "distinct")
SURFACE_CASES += [
    _row("max_pool1d", "max_pool1d", [_DISTINCT_1D], 3, 2, 1),
    _row("max_pool1d_ceil_dilated", "max_pool1d", [_DISTINCT_1D], 2, 2, 0, 2, ceil_mode=True),
    Case("max_pool1d_with_indices", *_first("max_pool1d_with_indices", 3), [_DISTINCT_1D]),
    _row("avg_pool1d", "avg_pool1d", [Arg((2, 3, 9))], 3, 2, 1, count_include_pad=False),
    _row("adaptive_avg_pool1d", "adaptive_avg_pool1d", [Arg((2, 3, 9))], 4),
    _row("adaptive_max_pool1d", "adaptive_max_pool1d", [_DISTINCT_1D], 4),
    _row("max_pool3d", "max_pool3d", [_DISTINCT_3D], (2, 3, 2), (1, 2, 2), (1, 1, 0)),
    _row("max_pool3d_ceil", "max_pool3d", [_DISTINCT_3D], 2, ceil_mode=True),
    Case("max_pool3d_with_indices", *_first("max_pool3d_with_indices", 2), [_DISTINCT_3D]),
    _row("avg_pool3d", "avg_pool3d", [Arg((2, 2, 5, 6, 7))], (2, 3, 2), (1, 2, 2), (1, 1, 0)),
    _row(
        "avg_pool3d_ceil_no_pad_count",
        "avg_pool3d",
        [Arg((1, 2, 5, 6, 7))],
        3,
        2,
        1,
        ceil_mode=True,
        count_include_pad=False,
    ),
    _row("avg_pool3d_divisor", "avg_pool3d", [Arg((1, 2, 4, 4, 4))], 2, divisor_override=3),
    _row("adaptive_avg_pool3d", "adaptive_avg_pool3d", [Arg((2, 2, 5, 6, 7))], (2, 4, 3)),
    _row("adaptive_max_pool3d", "adaptive_max_pool3d", [_DISTINCT_3D], (2, None, 3)),
    _row("lp_pool1d", "lp_pool1d", [Arg((2, 3, 9), "pos")], 2, 3, 2),
    _row("lp_pool2d", "lp_pool2d", [Arg((2, 3, 5, 6), "pos")], 3, 2),
    _row("lp_pool3d", "lp_pool3d", [Arg((1, 2, 4, 4, 4), "pos")], 1.5, 2),
    _row(
        "max_unpool1d",
        "max_unpool1d",
        [Arg((2, 3, 4)), Fixed(_unpool_indices((2, 3, 4), 2))],
        2,
        output_size=(9,),
    ),
    _row(
        "max_unpool2d",
        "max_unpool2d",
        [Arg((2, 3, 2, 3)), Fixed(_unpool_indices((2, 3, 2, 3), 2))],
        2,
    ),
    _row(
        "max_unpool3d",
        "max_unpool3d",
        [Arg((1, 2, 2, 2, 3)), Fixed(_unpool_indices((1, 2, 2, 2, 3), 2))],
        2,
    ),
]

_BAG_INDICES = Fixed(np.array([1, 4, 0, 2, 2, 5, 3, 1, 0]))
_BAG_OFFSETS = Fixed(np.array([0, 2, 2, 7]))
SURFACE_CASES += [
    _row(
        "conv3d",
        "conv3d",
        [Arg((2, 4, 4, 5, 4)), Arg((6, 2, 3, 2, 3)), Arg((6,))],
        stride=(2, 1, 2),
        padding=(1, 0, 1),
        dilation=(1, 2, 1),
        groups=2,
    ),
    _row("conv3d_same", "conv3d", [Arg((1, 2, 3, 4, 3)), Arg((2, 2, 3, 2, 3))], padding="same"),
    _row(
        "conv_transpose3d",
        "conv_transpose3d",
        [Arg((1, 4, 3, 3, 2)), Arg((4, 2, 3, 2, 3)), Arg((4,))],
        stride=(2, 1, 2),
        padding=(1, 0, 1),
        output_padding=(1, 0, 1),
        groups=2,
        dilation=(1, 2, 1),
    ),
    _row(
        "conv_transpose1d",
        "conv_transpose1d",
        [Arg((2, 4, 5)), Arg((4, 3, 3)), Arg((6,))],
        stride=2,
        padding=1,
        output_padding=1,
        groups=2,
        dilation=2,
    ),
    _row("bilinear", "bilinear", [Arg((2, 3, 4)), Arg((2, 3, 5)), Arg((6, 4, 5)), Arg((6,))]),
    _row("channel_shuffle", "channel_shuffle", [Arg((2, 6, 2, 3))], 3),
    _row("local_response_norm", "local_response_norm", [Arg((2, 5, 3, 2))], 3, 0.5, 0.7, 1.5),
    _row("local_response_norm_3d", "local_response_norm", [Arg((2, 6, 4))], 2, 0.3),
    Case(
        "rms_norm",
        lambda x, w: F.rms_norm(x, (3, 4), w, eps=1e-5),
        lambda x, w: _t().rms_norm(x, (3, 4), w, eps=1e-5),
        [Arg((2, 3, 4)), Arg((3, 4), "pos")],
    ),
    _row("rms_norm_default_eps", "rms_norm", [Arg((2, 3, 4))], (4,)),
    _row("pdist", "pdist", [Arg((5, 3))]),
    _row("pdist_p1", "pdist", [Arg((4, 3))], 1.0),
    *[
        Case(
            f"embedding_bag_{mode}",
            lambda i, w, o, mode=mode: F.embedding_bag(i, w, o, mode=mode, padding_idx=2),
            lambda i, w, o, mode=mode: _t().embedding_bag(i, w, o, mode=mode, padding_idx=2),
            [_BAG_INDICES, Arg((6, 3), "distinct"), _BAG_OFFSETS],
        )
        for mode in ("sum", "mean", "max")
    ],
    Case(
        "embedding_bag_weighted_2d",
        lambda i, w, p: F.embedding_bag(i, w, mode="sum", per_sample_weights=p),
        lambda i, w, p: _t().embedding_bag(i, w, mode="sum", per_sample_weights=p),
        [Fixed(np.array([[1, 4, 0], [2, 2, 5]])), Arg((6, 3)), Arg((2, 3))],
    ),
]

SURFACE_CASES += [
    _row("conv_tbc", "conv_tbc", [Arg((5, 2, 3)), Arg((3, 3, 4)), Arg((4,))], 1),
    Case(
        "linear_cross_entropy",
        lambda x, w, y, b: F.linear_cross_entropy(x, w, y, linear_bias=b, label_smoothing=0.1),
        lambda x, w, y, b: _t().linear_cross_entropy(x, w, y, linear_bias=b, label_smoothing=0.1),
        [Arg((3, 4)), Arg((5, 4)), Fixed(np.array([0, 4, 2])), Arg((5,))],
    ),
]

SURFACE_IDS = [c.id for c in SURFACE_CASES]
assert len(set(SURFACE_IDS)) == len(SURFACE_IDS)
