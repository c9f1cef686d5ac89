"""The neural-network functions under PyTorch's top-level names (``nnlite/nn_function_forms.py``):
values, dtypes and call forms against PyTorch's native functions, positionally and by keyword."""

import numpy as np
import pytest

import nnlite as nl


@pytest.fixture
def torch():
    """PyTorch, the reference of the comparisons (the gradient checks run without it)."""
    return pytest.importorskip("torch", reason="PyTorch's native functions are the reference")


rng = np.random.default_rng(11)


def _a(*shape):
    return rng.standard_normal(shape)


class T:
    """A tensor argument built for each library; ``dtype`` names the library's dtype."""

    def __init__(self, array, dtype="float64"):
        self.array, self.dtype = np.asarray(array), dtype

    def build(self, lib):
        return lib.tensor(self.array, dtype=getattr(lib, self.dtype))


def _build(lib, value):
    if isinstance(value, T):
        return value.build(lib)
    if isinstance(value, list) and value and isinstance(value[0], T):
        return [v.build(lib) for v in value]
    return value


X3, W3 = _a(2, 3, 5), _a(4, 3, 2)
BN = _a(4, 3, 2)
HX1 = _a(1, 2, 4)
SEQ = _a(5, 2, 3)
RNN_PARAMS = [T(_a(4, 3)), T(_a(4, 4)), T(_a(4)), T(_a(4))]
LSTM_PARAMS = [T(_a(16, 3)), T(_a(16, 4)), T(_a(16)), T(_a(16))]
GRU_PARAMS = [T(_a(12, 3)), T(_a(12, 4)), T(_a(12)), T(_a(12))]
BI_GRU = [T(_a(12, 3)), T(_a(12, 4)), T(_a(12, 3)), T(_a(12, 4))]
TARGET_PM = T(np.array([1.0, -1.0, 1.0]))
GRID = T(rng.uniform(-1, 1, (1, 2, 3, 2)))

# (name, positional arguments, keyword arguments)
CASES = [
    ("adaptive_avg_pool1d", [T(X3), 2], {}),
    ("adaptive_max_pool1d", [T(X3)], {"output_size": [3]}),
    ("avg_pool1d", [T(X3), 2], {"stride": 1, "padding": 1, "count_include_pad": False}),
    ("avg_pool1d", [T(X3), [3], [], [1], True], {}),
    ("max_pool1d", [T(X3), 2], {"stride": [1], "dilation": 2}),
    ("max_pool1d_with_indices", [T(X3), 2, 2, 1, 1, True], {}),
    ("max_pool3d", [T(_a(1, 2, 3, 4, 4)), 2], {"padding": 1}),
    ("conv3d", [T(_a(1, 2, 3, 3, 3)), T(_a(2, 2, 2, 2, 2))], {"bias": T(_a(2)), "padding": 1}),
    ("conv_transpose1d", [T(X3), T(_a(3, 2, 2)), None, 2], {"output_padding": 1}),
    ("conv_transpose3d", [T(_a(1, 2, 2, 2, 2)), T(_a(2, 1, 2, 2, 2))], {"stride": 2}),
    ("convolution", [T(X3), T(W3), T(_a(4)), [1], [1], [1], False, [0], 1], {}),
    ("convolution", [T(X3), T(_a(3, 2, 2)), None, [2], [0], [1], True, [1], 1], {}),
    ("convolution", [T(_a(1, 2, 4, 4)), T(_a(2, 1, 3, 3))], {
        "bias": None, "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1],
        "transposed": False, "output_padding": [0, 0], "groups": 2,
    }),
    ("conv_tbc", [T(_a(5, 2, 3)), T(_a(2, 3, 4)), T(_a(4))], {"pad": 1}),
    ("batch_norm", [T(BN), T(_a(3)), T(_a(3)), None, None, True, 0.1, 1e-5, False], {}),
    ("batch_norm", [T(BN)], {
        "weight": None, "bias": None, "running_mean": T(_a(3)), "running_var": T(np.ones(3)),
        "training": False, "momentum": 0.1, "eps": 1e-5, "cudnn_enabled": True,
    }),
    ("instance_norm", [T(BN), T(_a(3)), None, None, None, True, 0.1, 1e-5, False], {}),
    ("rms_norm", [T(BN), [2]], {"weight": T(_a(2)), "eps": 1e-6}),
    ("norm_except_dim", [T(W3)], {}),
    ("norm_except_dim", [T(W3), 3, 2], {}),
    ("norm_except_dim", [T(W3)], {"pow": 2, "dim": -1}),
    ("embedding", [T(_a(5, 3)), T(np.array([[0, 4], [1, 1]]), "int64")], {}),
    ("embedding", [T(_a(5, 3)), T(np.array([0, 2]), "int64")], {"padding_idx": 2}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 2]), "int64")], {}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 2]), "int64"), False, 1], {}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 2]), "int64")], {"mode": 2}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 2]), "int64"), False, 1, False, None, False, 2], {}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 2]), "int64"), False, 0, False, T(_a(5)), False, 2], {}),
    ("embedding_bag", [T(_a(4, 3)), T(np.array([0, 2, 1, 3, 3]), "int64"), T(np.array([0, 2, 5]), "int64")], {"mode": 2, "include_last_offset": True}),
    ("embedding_bag", [T(_a(4, 3), "float32"), T(np.array([0, 2, 1]), "int64"), T(np.array([0, 2]), "int64")], {}),
    ("selu", [T(_a(4))], {}),
    ("celu", [T(_a(4))], {"alpha": 0.5}),
    ("celu", [T(_a(4)), 2.0], {}),
    ("threshold", [T(_a(4)), 0.1, -3.0], {}),
    ("threshold", [T(_a(4))], {"threshold": 0.0, "value": 1.0}),
    ("rrelu", [T(_a(4)), 0.2, 0.4], {}),
    ("rrelu", [T(_a(4))], {"training": False}),
    ("hardshrink", [T(_a(5))], {"lambd": 0.7}),
    ("alpha_dropout", [T(_a(4)), 0.5, False], {}),
    ("feature_alpha_dropout", [T(_a(2, 3))], {"p": 0.3, "train": False}),
    ("feature_dropout", [T(_a(2, 3, 2)), 0.5, False], {}),
    ("feature_dropout", [T(_a(2, 3, 2)), 1.0, True], {}),
    ("feature_dropout", [T(_a(2, 3, 2)), 0.0, True], {}),
    ("bilinear", [T(_a(2, 3)), T(_a(2, 4)), T(_a(5, 3, 4))], {"bias": T(_a(5))}),
    ("binary_cross_entropy_with_logits", [T(_a(3)), T(rng.uniform(0, 1, 3))], {}),
    ("binary_cross_entropy_with_logits", [T(_a(3)), T(rng.uniform(0, 1, 3)), T(_a(3)), T(_a(3)), 2], {}),
    ("binary_cross_entropy_with_logits", [T(_a(3)), T(rng.uniform(0, 1, 3))], {"reduction": 0}),
    ("kl_div", [T(_a(3)), T(rng.uniform(0, 1, 3))], {}),
    ("kl_div", [T(_a(3)), T(rng.uniform(0, 1, 3)), 1], {}),
    ("triplet_margin_loss", [T(_a(3, 4)), T(_a(3, 4)), T(_a(3, 4)), 0.5, 2.0, 1e-6, False, 1], {}),
    ("kl_div", [T(_a(3)), T(_a(3)), 2], {"log_target": True}),
    ("poisson_nll_loss", [T(_a(3)), T(np.array([0.0, 1.0, 3.0])), True, True, 1e-8, 0], {}),
    ("poisson_nll_loss", [T(rng.uniform(0.5, 2, 3)), T(np.array([0.0, 1.0, 3.0]))], {
        "log_input": False, "full": False, "eps": 1e-8, "reduction": 1,
    }),
    ("cosine_embedding_loss", [T(_a(3, 4)), T(_a(3, 4)), TARGET_PM], {"margin": 0.2}),
    ("hinge_embedding_loss", [T(_a(3)), TARGET_PM, 0.5, 2], {}),
    ("margin_ranking_loss", [T(_a(3)), T(_a(3)), TARGET_PM], {"margin": 0.1, "reduction": 0}),
    ("triplet_margin_loss", [T(_a(3, 4)), T(_a(3, 4)), T(_a(3, 4))], {"swap": True, "p": 1.0}),
    ("pdist", [T(_a(4, 3))], {"p": 3.0}),
    ("channel_shuffle", [T(_a(1, 6, 2)), 3], {}),
    ("constant_pad_nd", [T(_a(2, 3)), [1, 2, 0, 1]], {"value": 2.5}),
    ("constant_pad_nd", [T(_a(2, 3)), [-1, 1]], {}),
    ("grid_sampler", [T(_a(1, 2, 3, 4)), GRID, 0, 0, False], {}),
    ("grid_sampler_2d", [T(_a(1, 2, 3, 4)), GRID], {
        "interpolation_mode": 1, "padding_mode": 1, "align_corners": True,
    }),
    ("grid_sampler_3d", [T(_a(2, 2, 2, 3, 4)), T(rng.uniform(-1.2, 1.2, (2, 2, 1, 3, 3))), 0, 0, False], {}),
    ("grid_sampler_3d", [T(_a(1, 2, 3, 3, 2)), T(rng.uniform(-1.3, 1.3, (1, 2, 2, 2, 3))), 0, 1, True], {}),
    ("grid_sampler_3d", [T(_a(1, 1, 3, 2, 4)), T(rng.uniform(-1.9, 1.9, (1, 3, 2, 2, 3))), 0, 2, False], {}),
    ("grid_sampler_3d", [T(_a(1, 1, 3, 2, 4)), T(rng.uniform(-1.9, 1.9, (1, 3, 2, 2, 3))), 0, 2, True], {}),
    ("grid_sampler_3d", [T(_a(1, 2, 3, 3, 3)), T(rng.uniform(-1.1, 1.1, (1, 2, 2, 2, 3)))], {
        "interpolation_mode": 1, "padding_mode": 0, "align_corners": False,
    }),
    ("grid_sampler", [T(_a(1, 1, 2, 3, 3)), T(rng.uniform(-1, 1, (1, 2, 1, 2, 3))), 1, 2, True], {}),
    ("affine_grid_generator", [T(_a(1, 2, 3)), [1, 1, 2, 3], False], {}),
    ("affine_grid_generator", [T(_a(1, 3, 4))], {"size": [1, 1, 2, 2, 2], "align_corners": True}),
    ("lstm_cell", [T(_a(2, 3)), [T(_a(2, 4)), T(_a(2, 4))], T(_a(16, 3)), T(_a(16, 4))], {
        "b_ih": T(_a(16)), "b_hh": T(_a(16)),
    }),
    ("gru_cell", [T(_a(2, 3)), T(_a(2, 4)), T(_a(12, 3)), T(_a(12, 4)), T(_a(12)), T(_a(12))], {}),
    ("rnn_tanh_cell", [T(_a(2, 3)), T(_a(2, 4)), T(_a(4, 3)), T(_a(4, 4))], {}),
    ("rnn_relu_cell", [T(_a(2, 3)), T(_a(2, 4)), T(_a(4, 3)), T(_a(4, 4)), T(_a(4))], {}),
    ("lstm", [T(SEQ), [T(HX1), T(HX1)], LSTM_PARAMS, True, 1, 0.0, False, False, False], {}),
    ("gru", [T(SEQ), T(_a(2, 2, 4)), BI_GRU, False, 1, 0.0, False, True, False], {}),
    ("gru", [T(SEQ.transpose(1, 0, 2))], {
        "hx": T(HX1), "params": GRU_PARAMS, "has_biases": True, "num_layers": 1,
        "dropout": 0.0, "train": False, "bidirectional": False, "batch_first": True,
    }),
    ("rnn_tanh", [T(SEQ), T(_a(2, 2, 4)), RNN_PARAMS + [T(_a(4, 4)), T(_a(4, 4)), T(_a(4)), T(_a(4))],
                  True, 2, 0.0, False, False, False], {}),
    ("rnn_relu", [T(SEQ), T(HX1), RNN_PARAMS, True, 1, 0.0, True, False, False], {}),
    ("gru", [T(_a(6, 3)), T(np.array([3, 2, 1]), "int64"), T(_a(1, 3, 4)), GRU_PARAMS, True, 1, 0.0, False, False], {}),
    ("lstm", [T(_a(6, 3)), T(np.array([3, 2, 1]), "int64"), [T(_a(1, 3, 4)), T(_a(1, 3, 4))], LSTM_PARAMS, True, 1, 0.0, False, False], {}),
]  # fmt: skip


def _call(lib, name, args, kwargs):
    return getattr(lib, name)(
        *[_build(lib, a) for a in args], **{k: _build(lib, v) for k, v in kwargs.items()}
    )


def _flat(out):
    return list(out) if isinstance(out, (tuple, list)) else [out]


@pytest.mark.parametrize("name, args, kwargs", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch(name, args, kwargs, torch):
    ours, theirs = (_flat(_call(lib, name, args, kwargs)) for lib in (nl, torch))
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize(
    "name, extra", [("selu_", ()), ("celu_", (0.5,)), ("threshold_", (0.0, 2.0)), ("rrelu_", ())]
)
def test_in_place_forms_change_their_input(name, extra, torch):
    array = _a(5)
    ours, theirs = nl.tensor(array), torch.tensor(array)
    assert getattr(nl, name)(ours, *extra) is ours
    getattr(torch, name)(theirs, *extra)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_dropout_in_place_forms():
    for name in ("dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_"):
        x = nl.ones(2, 3)
        assert getattr(nl, name)(x, 0.5, False) is x
        assert bool((x == 1).all())
    x = nl.ones(2, 3)
    nl.feature_dropout_(x, 1.0, True)
    assert bool((x == 0).all())


def test_feature_dropout_drops_whole_channels():
    _ = nl.manual_seed(0)
    out = nl.feature_dropout(nl.ones(50, 4, 6), 0.5, True).numpy()
    per_channel = out.reshape(50 * 4, 6)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(axis=1) == per_channel.max(axis=1)).all()  # a channel is one draw
    assert 0.3 < (per_channel[:, 0] == 0).mean() < 0.7


def test_embedding_renorm_matches_pytorch(torch):
    weight = _a(4, 3) * 3
    ours, theirs = nl.tensor(weight), torch.tensor(weight)
    assert nl.embedding_renorm_(ours, nl.tensor([0, 2, 2]), 1.5, 2.0) is ours
    torch.embedding_renorm_(theirs, torch.tensor([0, 2, 2]), 1.5, 2.0)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)
    nl.embedding_renorm_(ours, indices=nl.tensor([1]), max_norm=0.5, norm_type=1.0)
    torch.embedding_renorm_(theirs, indices=torch.tensor([1]), max_norm=0.5, norm_type=1.0)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        nl.kl_div(nl.zeros(2), nl.zeros(2), 3)
    with pytest.raises(ValueError, match="dropout probability"):
        nl.feature_dropout(nl.zeros(2, 2), 1.5, True)
    with pytest.raises(RuntimeError, match="expected 4 parameters"):
        nl.gru(
            nl.zeros(2, 1, 3),
            nl.zeros(1, 1, 4),
            [nl.zeros(12, 3)],
            True,
            1,
            0.0,
            False,
            False,
            False,
        )
    with pytest.raises(RuntimeError, match="4D input"):
        nl.grid_sampler_2d(nl.zeros(1, 1, 2, 2, 2), nl.zeros(1, 1, 1, 1, 3), 0, 0, False)
    with pytest.raises(RuntimeError, match="interpolation_mode 5"):
        nl.grid_sampler(nl.zeros(1, 1, 2, 2), nl.zeros(1, 1, 1, 2), 5, 0, False)


# ------------------------------------------------------------------------------- gradient rows
def _u(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


def _seeded(lib, call):
    """``call()`` after seeding ``lib``'s generator: the same mask on every evaluation."""
    lib.manual_seed(5)
    return call()


_IDX = np.array([[0, 3], [2, 2]])
_GRID = rng.uniform(-0.9, 0.9, (1, 2, 2, 2))
_PM = np.array([1.0, -1.0, 1.0])
_W3 = np.array([0.5, 1.5, 1.0])
_COUNTS = np.array([0.0, 2.0, 5.0])

# (id, fn(lib, *tensors), input arrays): gradcheck and gradgradcheck in float64, and values and
# gradients against PyTorch (registered in tests/op_registry.py's GRADIENT_TABLES)
ROWS = [
    ("adaptive_avg_pool1d_native", lambda L, x: L.adaptive_avg_pool1d(x, 2), [_u(1, 2, 5)]),
    ("adaptive_max_pool1d_native", lambda L, x: L.adaptive_max_pool1d(x, 2)[0], [_u(1, 2, 5)]),
    ("avg_pool1d_native", lambda L, x: L.avg_pool1d(x, 2, [], 1, True, False), [_u(1, 2, 5)]),
    ("max_pool1d_native", lambda L, x: L.max_pool1d(x, 2, 1), [_u(1, 2, 5)]),
    ("max_pool1d_with_indices_native", lambda L, x: L.max_pool1d_with_indices(x, 2)[0], [_u(1, 2, 4)]),
    ("max_pool3d_native", lambda L, x: L.max_pool3d(x, 2), [_u(1, 1, 2, 2, 4)]),
    ("conv3d_native", lambda L, x, w, b: L.conv3d(x, w, b, 1, 1), [_u(1, 1, 2, 2, 2), _u(2, 1, 2, 2, 2), _u(2)]),
    ("conv_transpose1d_native", lambda L, x, w: L.conv_transpose1d(x, w, None, 2), [_u(1, 2, 3), _u(2, 1, 2)]),
    ("conv_transpose3d_native", lambda L, x, w: L.conv_transpose3d(x, w), [_u(1, 1, 2, 1, 2), _u(1, 1, 2, 2, 1)]),
    ("convolution", lambda L, x, w, b: L.convolution(x, w, b, [1], [1], [1], False, [0], 1), [_u(1, 2, 4), _u(3, 2, 2), _u(3)]),
    ("convolution_transposed", lambda L, x, w: L.convolution(x, w, None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1), [_u(1, 1, 2, 2), _u(1, 2, 2, 2)]),
    ("conv_tbc_native", lambda L, x, w, b: L.conv_tbc(x, w, b, 1), [_u(3, 2, 2), _u(2, 2, 3), _u(3)]),
    ("batch_norm_native", lambda L, x, w, b: L.batch_norm(x, w, b, None, None, True, 0.1, 1e-5, False), [_u(4, 2), _u(2), _u(2)]),
    ("instance_norm_native", lambda L, x, w: L.instance_norm(x, w, None, None, None, True, 0.1, 1e-5, False), [_u(2, 2, 4), _u(2)]),
    ("rms_norm_native", lambda L, x, w: L.rms_norm(x, [3], w, 1e-6), [_u(2, 3), _u(3)]),
    ("norm_except_dim", lambda L, x: L.norm_except_dim(x, 2, 1), [_u(3, 2, 2)]),
    ("norm_except_dim_whole", lambda L, x: L.norm_except_dim(x, 3, -1), [_u(3, 2)]),
    ("embedding_native", lambda L, w: L.embedding(w, L.tensor(_IDX)), [_u(4, 3)]),
    ("embedding_bag_native", lambda L, w, p: L.embedding_bag(w, L.tensor([0, 2, 1, 3]), L.tensor([0, 1]), False, 0, False, p)[0], [_u(4, 3), _u(4)]),
    ("embedding_bag_mean", lambda L, w: L.embedding_bag(w, L.tensor([0, 2, 1, 3]), L.tensor([0, 3]), False, 1)[0], [_u(4, 3)]),
    ("selu_native", lambda L, x: L.selu(x), [_u(5)]),
    ("celu_native", lambda L, x: L.celu(x, 0.7), [_u(5)]),
    ("threshold_native", lambda L, x: L.threshold(x, 0.1, 2.0), [np.array([-0.5, 0.4, 0.9, -0.2])]),
    ("rrelu_native", lambda L, x: L.rrelu(x, 0.2, 0.3), [np.array([-0.5, 0.4, 0.9, -0.2])]),
    ("hardshrink_native", lambda L, x: L.hardshrink(x, 0.3), [np.array([-0.5, 0.1, 0.9, -0.2])]),
    ("bilinear_native", lambda L, a, b, w, c: L.bilinear(a, b, w, c), [_u(2, 2), _u(2, 3), _u(2, 2, 3), _u(2)]),
    ("binary_cross_entropy_with_logits_native", lambda L, x, t: L.binary_cross_entropy_with_logits(x, t, L.tensor(_W3, dtype=L.float64), L.tensor(_W3 + 1, dtype=L.float64), 1), [_u(3), _u(3, low=0.1, high=0.9)]),
    ("kl_div_native", lambda L, x, t: L.kl_div(x, t, 2), [_u(3), _u(3, low=0.1, high=0.9)]),
    ("poisson_nll_loss_native", lambda L, x: L.poisson_nll_loss(x, L.tensor(_COUNTS, dtype=L.float64), False, True, 1e-8, 1), [_u(3, low=0.5, high=2)]),
    ("cosine_embedding_loss_native", lambda L, a, b: L.cosine_embedding_loss(a, b, L.tensor(_PM, dtype=L.float64), 0.1, 2), [_u(3, 4), _u(3, 4)]),
    ("hinge_embedding_loss_native", lambda L, x: L.hinge_embedding_loss(x, L.tensor(_PM, dtype=L.float64), 2.0, 1), [_u(3)]),
    ("margin_ranking_loss_native", lambda L, a, b: L.margin_ranking_loss(a, b, L.tensor(_PM, dtype=L.float64), 3.0, 1), [_u(3), _u(3)]),
    ("triplet_margin_loss_native", lambda L, a, p, n: L.triplet_margin_loss(a, p, n, 3.0, 2.0, 1e-6, False, 1), [_u(2, 3), _u(2, 3), _u(2, 3)]),
    ("pdist_native", lambda L, x: L.pdist(x), [_u(3, 2)]),
    ("channel_shuffle_native", lambda L, x: L.channel_shuffle(x, 2), [_u(1, 4, 2)]),
    ("constant_pad_nd", lambda L, x: L.constant_pad_nd(x, [1, -1, 0, 2], 0.5), [_u(2, 3)]),
    ("grid_sampler", lambda L, x, g: L.grid_sampler(x, g, 0, 1, False), [_u(1, 1, 3, 3), _GRID]),
    ("grid_sampler_2d", lambda L, x, g: L.grid_sampler_2d(x, g, 0, 0, True), [_u(1, 1, 3, 3), _GRID]),
    ("grid_sampler_3d", lambda L, x, g: L.grid_sampler_3d(x, g, 0, 0, False), [_u(1, 2, 2, 3, 2), _u(1, 1, 2, 2, 3, low=-0.9, high=0.9)]),
    ("grid_sampler_3d_reflection", lambda L, x, g: L.grid_sampler_3d(x, g, 0, 2, True), [_u(1, 1, 2, 2, 3), _u(1, 2, 1, 2, 3, low=-0.9, high=0.9)]),
    ("affine_grid_generator", lambda L, t: L.affine_grid_generator(t, [1, 1, 2, 3], False), [_u(1, 2, 3)]),
    ("lstm_cell", lambda L, x, h, c, wi, wh: L.lstm_cell(x, [h, c], wi, wh)[1], [_u(1, 2), _u(1, 2), _u(1, 2), _u(8, 2), _u(8, 2)]),
    ("gru_cell", lambda L, x, h, wi, wh, b: L.gru_cell(x, h, wi, wh, b, b), [_u(1, 2), _u(1, 2), _u(6, 2), _u(6, 2), _u(6)]),
    ("rnn_tanh_cell", lambda L, x, h, wi, wh: L.rnn_tanh_cell(x, h, wi, wh), [_u(2, 2), _u(2, 3), _u(3, 2), _u(3, 3)]),
    ("rnn_relu_cell", lambda L, x, h, wi, wh, b: L.rnn_relu_cell(x, h, wi, wh, b), [_u(2, 2), _u(2, 3), _u(3, 2), _u(3, 3), _u(3, low=0.5, high=1)]),
    ("lstm", lambda L, x, h, c, wi, wh: L.lstm(x, [h, c], [wi, wh], False, 1, 0.0, False, False, False)[0], [_u(2, 1, 2), _u(1, 1, 2), _u(1, 1, 2), _u(8, 2), _u(8, 2)]),
    ("gru", lambda L, x, h, wi, wh: L.gru(x, h, [wi, wh], False, 1, 0.0, False, False, True)[1], [_u(1, 2, 2), _u(1, 1, 2), _u(6, 2), _u(6, 2)]),
    ("rnn_tanh", lambda L, x, h, wi, wh, bi, bh: L.rnn_tanh(x, h, [wi, wh, bi, bh], True, 1, 0.0, False, False, False)[0], [_u(2, 1, 2), _u(1, 1, 2), _u(2, 2), _u(2, 2), _u(2), _u(2)]),
    ("rnn_relu", lambda L, x, h, wi, wh: L.rnn_relu(x, h, [wi, wh], False, 1, 0.0, False, False, False)[0], [_u(2, 1, 2, low=0.2, high=1), _u(1, 1, 2, low=0.2, high=1), _u(2, 2, low=0.2, high=1), _u(2, 2, low=0.2, high=1)]),
]  # fmt: skip

# Random draws: gradients by finite differences, with the generator seeded on each evaluation
GRADCHECK_ONLY = [
    ("feature_dropout", lambda L, x: _seeded(L, lambda: L.feature_dropout(x, 0.5, True)), [_u(3, 4, 2)]),
    ("alpha_dropout_native", lambda L, x: _seeded(L, lambda: L.alpha_dropout(x, 0.4, True)), [_u(3, 4)]),
    ("feature_alpha_dropout_native", lambda L, x: _seeded(L, lambda: L.feature_alpha_dropout(x, 0.4, True)), [_u(3, 4, 2)]),
]  # fmt: skip


@pytest.mark.parametrize(
    "name, fn, arrays", ROWS + GRADCHECK_ONLY, ids=[r[0] for r in ROWS + GRADCHECK_ONLY]
)
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name, fn, arrays", ROWS, ids=[r[0] for r in ROWS])
def test_gradients_match_pytorch(name, fn, arrays, torch):
    results = []
    for lib in (nl, torch):
        inputs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        out = fn(lib, *inputs)
        (out * out).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in inputs])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-8)
