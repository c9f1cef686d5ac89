"""The rest of ``torch.nn.functional`` (``nn_surface_cases.SURFACE_CASES``) through the op-table
checks of ``test_nn_ops.py``: gradcheck and gradgradcheck in float64, PyTorch parity of values and
gradients, float32 kept, inputs untouched; then the errors and warnings PyTorch gives."""

import pytest
from nn_surface_cases import SURFACE_CASES, SURFACE_IDS
from test_nn_ops import test_float32_stays_float32 as _float32_kept
from test_nn_ops import test_gradcheck as _gradcheck
from test_nn_ops import test_gradgradcheck as _gradgradcheck
from test_nn_ops import test_inputs_untouched_and_grads_fresh as _inputs_untouched
from test_nn_ops import test_matches_torch as _matches_torch

_SECOND_ORDER = [c for c in SURFACE_CASES if c.gradgrad]


@pytest.mark.parametrize("case", SURFACE_CASES, ids=SURFACE_IDS)
def test_gradcheck(case):
    _gradcheck(case)


@pytest.mark.parametrize("case", _SECOND_ORDER, ids=[c.id for c in _SECOND_ORDER])
def test_gradgradcheck(case):
    _gradgradcheck(case)


@pytest.mark.parametrize("case", SURFACE_CASES, ids=SURFACE_IDS)
def test_matches_torch(case):
    _matches_torch(case)


@pytest.mark.parametrize("case", SURFACE_CASES, ids=SURFACE_IDS)
def test_float32_stays_float32(case):
    _float32_kept(case)


@pytest.mark.parametrize("case", SURFACE_CASES, ids=SURFACE_IDS)
def test_inputs_untouched_and_grads_fresh(case):
    _inputs_untouched(case)


# ---------------------------------------------------------------- errors, warnings, randomness


def _both(torch, call):
    """``call(F, lib)`` in both frameworks: the error type and message each raises (None if none)."""
    import nnlite as nl
    import nnlite.nn.functional as F

    out = []
    for lib_f, lib in ((F, nl), (torch.nn.functional, torch)):
        try:
            call(lib_f, lib)
            out.append(None)
        except Exception as e:  # noqa: BLE001 - the comparison is the point
            out.append((type(e).__name__, str(e)))
    return out


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.glu(t.ones(3, 5)),
        lambda F, t: F.glu(t.tensor(1.0)),
        lambda F, t: F.softshrink(t.ones(3), -1.0),
        lambda F, t: F.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), p=3),
        lambda F, t: F.multi_margin_loss(t.ones(2, 3), t.tensor([0, 1]), weight=t.ones(1, 3)),
        lambda F, t: F.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), -t.ones(2, 3)),
        lambda F, t: F.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), t.ones(3, 2)),
        lambda F, t: F.gaussian_nll_loss(t.ones(2, 3), t.ones(2, 3), t.ones(2, 3), reduction="x"),
        lambda F, t: F.poisson_nll_loss(t.ones(2), t.ones(2), reduction="x"),
        lambda F, t: F.triplet_margin_with_distance_loss(t.ones(2), t.ones(2), t.ones(2), margin=0),
        lambda F, t: F.fold(t.ones(1, 5, 4), (3, 3), 2),
        lambda F, t: F.fold(t.ones(1, 4, 5), (3, 3), 2),
        lambda F, t: F.dropout3d(t.ones(2, 2, 2, 2, 2), 1.5),
        lambda F, t: F.alpha_dropout(t.ones(2), -0.1),
        lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.ones(1, 1, 1, 2), mode="area"),
        lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.ones(1, 1, 1, 2), padding_mode="wrap"),
        lambda F, t: F.affine_grid(t.ones(1, 2, 3), (1, 1, 2)),
        lambda F, t: F.affine_grid(t.ones(1, 3, 3), (1, 1, 2, 2), align_corners=False),
        lambda F, t: F.affine_grid(t.ones(1, 2, 3, dtype=t.int64), (1, 1, 2, 2), False),
    ],
)
def test_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    ours, theirs = _both(torch, call)
    assert theirs is not None
    assert ours == (theirs[0], theirs[1].replace("torch.", "nnlite."))


def test_dropout2d_on_2d_input_warns_as_pytorch_and_drops_elements():
    import nnlite as nl
    import nnlite.nn.functional as F

    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        y = F.dropout2d(nl.ones(50, 40), 0.5)
    # one draw per element (PyTorch's feature dropout of an (N, C) input)
    values = y.numpy()
    assert set(values.ravel().tolist()) == {0.0, 2.0}
    assert 0 < (values[:, 0] == 0).sum() < 50  # channels drop per element, not per row
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        assert nl.nn.Dropout2d()(nl.ones(3, 4)).shape == (3, 4)


def test_dropout2d_reads_3d_input_as_n_c_l_with_pytorchs_warning():
    import nnlite as nl
    import nnlite.nn.functional as F

    with pytest.warns(UserWarning, match="assuming that channel-wise 1D dropout"):
        y = F.dropout2d(nl.ones(20, 30, 4), 0.5)
    rows = y.numpy()
    assert (rows.min(axis=2) == rows.max(axis=2)).all()  # one draw per (dim 0, dim 1)


def test_alpha_dropout_keeps_zero_mean_unit_variance():
    import nnlite as nl
    import nnlite.nn.functional as F

    nl.manual_seed(0)
    x = nl.randn(200_000, dtype=nl.float64)
    y = F.alpha_dropout(F.selu(x), 0.3, training=True).numpy()
    s = F.selu(x).numpy()
    assert abs(y.mean() - s.mean()) < 0.02 and abs(y.std() - s.std()) < 0.02


def test_feature_alpha_dropout_drops_whole_channels():
    import nnlite as nl
    import nnlite.nn.functional as F

    y = F.feature_alpha_dropout(nl.ones(8, 6, 5), 0.5, training=True).numpy()
    assert (y.min(axis=2) == y.max(axis=2)).all()
    assert len(set(y[:, :, 0].ravel().round(6))) == 2


def test_rrelu_training_slopes_lie_between_lower_and_upper():
    import nnlite as nl
    import nnlite.nn.functional as F

    x = nl.full((1000,), -1.0, dtype=nl.float64, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = -y.detach().numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.03
    y.sum().backward()
    assert (x.grad.numpy() == slopes).all()


def test_in_place_activations_write_into_their_input():
    import nnlite as nl
    import nnlite.nn.functional as F

    for fn, expected in ((F.elu_, -0.6321), (F.selu_, -1.1113), (F.hardtanh_, -1.0)):
        x = nl.tensor([-1.0, 2.0])
        assert fn(x) is x
        assert abs(x[0].item() - expected) < 1e-4
    x = nl.tensor([-1.0, 2.0])
    F.threshold_(x, 0.5, 7.0)
    assert x.tolist() == [7.0, 2.0]


def test_sdpa_float_mask_receives_pytorchs_gradient():
    torch = pytest.importorskip("torch")
    import numpy as np

    import nnlite as nl
    import nnlite.nn.functional as F

    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in ((2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5))]
    ours = [nl.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    F.scaled_dot_product_attention(*ours[:3], attn_mask=ours[3], scale=0.7).sum().backward()
    torch.nn.functional.scaled_dot_product_attention(
        *theirs[:3], attn_mask=theirs[3], scale=0.7
    ).sum().backward()
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert nl.autograd.gradcheck(
        lambda m: F.scaled_dot_product_attention(*[t.detach() for t in ours[:3]], attn_mask=m),
        (ours[3],),
    )


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.affine_grid(t.zeros(1, 2, 3), (1, 1, 2, 2)),
        lambda F, t: F.grid_sample(t.ones(1, 1, 2, 2), t.zeros(1, 1, 1, 2)),
    ],
)
def test_align_corners_none_warns_as_pytorch(call):
    torch = pytest.importorskip("torch")
    import warnings

    import nnlite as nl
    import nnlite.nn.functional as F

    messages = []
    for lib_f, lib in ((F, nl), (torch.nn.functional, torch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            call(lib_f, lib)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and messages[0]


def test_gumbel_softmax_samples_follow_the_softmax_probabilities():
    import numpy as np

    import nnlite as nl
    import nnlite.nn.functional as F

    nl.manual_seed(0)
    logits = nl.tensor(np.log([[0.2, 0.3, 0.5]]).repeat(20_000, 0), requires_grad=True)
    hard = F.gumbel_softmax(logits, tau=0.5, hard=True)
    assert set(hard.detach().numpy().ravel().tolist()) == {0.0, 1.0}
    frequencies = hard.detach().numpy().mean(0)
    np.testing.assert_allclose(frequencies, [0.2, 0.3, 0.5], atol=0.015)
    # straight-through: the one-hot sample's gradient is the soft sample's
    (hard * nl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).sum() > 0
    soft = F.gumbel_softmax(nl.zeros(4, 3), tau=2.0)
    np.testing.assert_allclose(soft.sum(-1).numpy(), 1.0, rtol=1e-6)


@pytest.mark.parametrize("name", ["upsample_nearest", "upsample_bilinear"])
def test_deprecated_upsample_forms_warn_and_match_torch(name):
    torch = pytest.importorskip("torch")
    import numpy as np

    import nnlite as nl
    import nnlite.nn.functional as F

    x = np.random.default_rng(0).standard_normal((1, 2, 3, 4))
    with pytest.warns(UserWarning, match=f"`nn.functional.{name}` is deprecated"):
        ours = getattr(F, name)(nl.tensor(x), scale_factor=2)
    with pytest.warns(UserWarning):
        theirs = getattr(torch.nn.functional, name)(torch.tensor(x), scale_factor=2)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
