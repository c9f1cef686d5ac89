"""The tap-sum conv kernels (one GEMM over every tap, then a shifted sum) against the definition,
the im2col kernels, PyTorch, and the autograd checks through ``F.conv2d``; and which shapes the
cost model gives them."""

import numpy as np
import pytest
from test_conv_kernels import TOL, _make, _naive_backward, _naive_forward, _rel_err

import nnlite as nl
import nnlite.nn.functional as F
from nnlite.nn.kernels import (
    _dispatch,
    conv2d_backward_input,
    conv2d_backward_weight,
    conv2d_forward,
    conv_gemm,
    conv_tap_sum,
)
from nnlite.nn.kernels.conv_select import (
    CHANNELS_LAST,
    OPS,
    TAP_SUM,
    channels_last_variant,
    conv_kernel,
)

# (N, C, H, W, Co, (kh, kw), stride, padding, dilation); one group, as the kernels take.
CONFIGS = [
    (2, 8, 7, 6, 3, (3, 3), (1, 1), (1, 1), (1, 1)),  # same-size 3x3
    (3, 5, 9, 8, 2, (3, 2), (2, 1), (1, 0), (1, 2)),  # stride, dilation, non-square kernel
    (2, 6, 11, 12, 4, (5, 3), (3, 2), (2, 1), (2, 1)),  # stride that does not divide
    (1, 4, 10, 10, 5, (7, 7), (2, 2), (3, 3), (1, 1)),  # 7x7 stride 2 (a stem's shape)
    (2, 4, 1, 1, 3, (3, 3), (1, 1), (1, 1), (1, 1)),  # 1x1 plane: one tap inside the input
    (2, 3, 5, 5, 2, (3, 3), (1, 1), (0, 0), (1, 1)),  # no padding
    (1, 2, 6, 7, 3, (3, 3), (1, 1), (3, 2), (1, 1)),  # padding wider than the kernel reaches
    (2, 3, 9, 9, 4, (3, 3), (2, 2), (0, 0), (1, 1)),  # stride 2, last row of the input unread
]
IDS = [f"cfg{i}" for i in range(len(CONFIGS))]


def _as_kernel_cfg(cfg):
    """The 10-field layout of test_conv_kernels (with groups = 1)."""
    return cfg + (1,)


def _tap_sum_three(x, w, b, gy, cfg):
    _, _, _, _, _, k, s, p, d = cfg
    return (
        conv_tap_sum.forward(x, w, b, s, p, d),
        conv_tap_sum.backward_input(gy, w, x.shape[2:], s, p, d),
        conv_tap_sum.backward_weight(gy, x, k, s, p, d),
    )


@pytest.fixture(params=["rows", "per_image"])
def layout(request, monkeypatch):
    """Both orientations of the GEMMs: channels-last rows, and one product per NCHW image."""
    monkeypatch.setattr(
        conv_tap_sum, "_PER_IMAGE_POSITIONS", 10**9 if request.param == "rows" else 0
    )
    return request.param


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_naive_loops(cfg, layout):
    _, _, _, _, _, k, s, p, d = cfg
    for dtype in (np.float64, np.float32):
        x, w, b, gy = _make(_as_kernel_cfg(cfg), dtype, seed=11)
        x64, w64, gy64 = (a.astype(np.float64) for a in (x, w, gy))
        ref_y = _naive_forward(x64, w64, b.astype(np.float64), s, p, d, 1)
        ref_gx, ref_gw = _naive_backward(gy64, x64, w64, s, p, d, 1)
        outs = _tap_sum_three(x, w, b, gy, cfg)
        for out, ref in zip(outs, (ref_y, ref_gx, ref_gw)):
            assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
            assert _rel_err(out, ref) < TOL[dtype]
        y_nobias = conv_tap_sum.forward(x, w, None, s, p, d)
        assert _rel_err(y_nobias, ref_y - b.astype(np.float64)[None, :, None, None]) < TOL[dtype]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_im2col_kernels(cfg):
    # The same three results as the channels-last im2col kernels, which the tap sum replaces.
    _, _, _, _, _, k, s, p, d = cfg
    x, w, b, gy = _make(_as_kernel_cfg(cfg), np.float64, seed=12)
    im2col = (
        conv_gemm.forward(x, w, b, s, p, d),
        conv_gemm.backward_input(gy, w, x.shape[2:], s, p, d),
        conv_gemm.backward_weight(gy, x, k, s, p, d),
    )
    for out, ref in zip(_tap_sum_three(x, w, b, gy, cfg), im2col):
        assert _rel_err(out, ref) < 1e-12


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_torch(cfg, layout):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, k, s, p, d = cfg
    x, w, b, gy = _make(_as_kernel_cfg(cfg), np.float32, seed=13)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    refs = (
        torch.nn.functional.conv2d(xt, wt, bt, s, p, d).numpy(),
        torch.nn.grad.conv2d_input(xt.shape, wt, gyt, s, p, d).numpy(),
        torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p, d).numpy(),
    )
    for out, ref in zip(_tap_sum_three(x, w, b, gy, cfg), refs):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        assert _rel_err(out, ref) < 1e-5


def test_chunks_and_threads(monkeypatch):
    # Several chunks with a ragged last one, serial and split over threads: one result.
    for cfg in (CONFIGS[0], CONFIGS[1], CONFIGS[3]):
        cfg = (7,) + cfg[1:]
        x, w, b, gy = _make(_as_kernel_cfg(cfg), np.float64, seed=14)
        whole = _tap_sum_three(x, w, b, gy, cfg)
        monkeypatch.setattr(conv_tap_sum, "_chunk", lambda n, rows, row_bytes: min(n, 3))
        monkeypatch.setattr(_dispatch, "MIN_PARALLEL_ELEMENTS", 0)
        chunked = _tap_sum_three(x, w, b, gy, cfg)
        monkeypatch.undo()
        for a, c in zip(whole, chunked):
            assert _rel_err(c, a) < 1e-12


# --------------------------------------------------------------------------- selection

# Thin layers (few outputs, many inputs, large kernels) from the kernel sweep: the tap sum for all
# three operations. Wide ResNet layers and layers with more outputs than inputs: im2col.
THIN = [
    (1, 256, 64, 64, 3, 7, 2, 3),
    (2, 64, 56, 56, 3, 7, 1, 3),
    (16, 256, 14, 14, 8, 3, 1, 1),
    (1, 128, 28, 28, 3, 7, 1, 3),
    (64, 128, 1, 1, 16, 3, 1, 1),
]
WIDE = [
    (128, 64, 8, 8, 128, 3, 2, 1),
    (128, 128, 4, 4, 128, 3, 1, 1),
    (128, 256, 2, 2, 256, 3, 1, 1),
    (128, 512, 1, 1, 512, 3, 1, 1),
    (128, 64, 8, 8, 128, 1, 2, 0),
    (32, 512, 7, 7, 128, 1, 1, 0),
    (32, 16, 16, 16, 128, 3, 1, 1),
]


def _variant(op, shape):
    N, C, H, W, Co, k, s, p = shape
    return channels_last_variant(op, N, C, H, W, Co, (k, k), (s, s), (p, p), (1, 1))


@pytest.mark.parametrize("shape", THIN)
def test_thin_layers_take_the_tap_sum(shape):
    N, C, _, _, Co, k, s, _ = shape
    assert conv_kernel(N, C, Co, (k, k), (s, s), 1, 4) == CHANNELS_LAST
    assert [_variant(op, shape) for op in OPS] == [TAP_SUM] * 3


@pytest.mark.parametrize("shape", WIDE)
def test_wide_layers_keep_im2col(shape):
    assert [_variant(op, shape) for op in ("forward", "backward_weight")] == [CHANNELS_LAST] * 2


def test_public_kernels_route_thin_layers_to_the_tap_sum(monkeypatch):
    # A thin layer through the public entry points runs the tap sum, with the same results.
    cfg = (2, 64, 9, 9, 2, (3, 3), (1, 1), (1, 1), (1, 1))
    _, _, H, W, _, k, s, p, d = cfg
    x, w, b, gy = _make(_as_kernel_cfg(cfg), np.float32, seed=15)
    ran = []
    for name in ("forward", "backward_input", "backward_weight"):
        real = getattr(conv_tap_sum, name)
        monkeypatch.setattr(
            conv_tap_sum, name, lambda *a, _r=real, _n=name: ran.append(_n) or _r(*a)
        )
    outs = (
        conv2d_forward(x, w, b, s, p, d, 1),
        conv2d_backward_input(gy, w, (H, W), s, p, d, 1),
        conv2d_backward_weight(gy, x, k, s, p, d, 1),
    )
    assert ran == ["forward", "backward_input", "backward_weight"]
    x64, w64, gy64 = (a.astype(np.float64) for a in (x, w, gy))
    refs = (_naive_forward(x64, w64, b.astype(np.float64), s, p, d, 1),) + _naive_backward(
        gy64, x64, w64, s, p, d, 1
    )
    for out, ref in zip(outs, refs):
        assert _rel_err(out, ref) < 1e-5


# --------------------------------------------------------------------------- through the op

# (C, H, W, Co, k, stride, padding, dilation): wide enough for the channels-last family.
OP_CASES = [
    (16, 5, 5, 2, (3, 3), 1, 1, 1),
    (16, 6, 5, 3, (3, 2), (2, 1), (1, 0), (1, 2)),
    (16, 7, 7, 2, (5, 5), 2, 2, 1),
]


@pytest.fixture
def tap_sum_everywhere(monkeypatch):
    """Every channels-last convolution runs the tap sum, whatever the cost model says."""
    monkeypatch.setattr(conv_gemm, "channels_last_variant", lambda *args: TAP_SUM)
    ran = []
    real = conv_tap_sum.forward
    monkeypatch.setattr(conv_tap_sum, "forward", lambda *a: ran.append(1) or real(*a))
    return ran


def _op_inputs(case, seed):
    C, H, W, Co, k, *_ = case
    rng = np.random.default_rng(seed)
    shapes = ((2, C, H, W), (Co, C) + k, (Co,))
    return tuple(nl.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)


@pytest.mark.parametrize("case", OP_CASES)
def test_gradcheck_through_conv2d(case, tap_sum_everywhere):
    _, _, _, _, _, s, p, d = case
    x, w, b = _op_inputs(case, seed=16)

    def conv(x, w, b):
        return F.conv2d(x, w, b, stride=s, padding=p, dilation=d)

    assert nl.autograd.gradcheck(conv, (x, w, b))
    assert tap_sum_everywhere


@pytest.mark.parametrize("case", OP_CASES[:2])
def test_gradgradcheck_through_conv2d(case, tap_sum_everywhere):
    _, _, _, _, _, s, p, d = case
    x, w, b = _op_inputs(case, seed=17)

    def conv(x, w, b):
        return F.conv2d(x, w, b, stride=s, padding=p, dilation=d)

    assert nl.autograd.gradgradcheck(conv, (x, w, b))


@pytest.mark.parametrize("case", OP_CASES)
def test_conv2d_gradients_match_torch(case, tap_sum_everywhere):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, s, p, d = case
    x, w, b = _op_inputs(case, seed=18)
    y = F.conv2d(x, w, b, stride=s, padding=p, dilation=d)
    gy = np.random.default_rng(19).standard_normal(y.shape)
    y.backward(nl.tensor(gy))
    xt, wt, bt = (torch.tensor(t.detach().numpy(), requires_grad=True) for t in (x, w, b))
    yt = torch.nn.functional.conv2d(xt, wt, bt, stride=s, padding=p, dilation=d)
    yt.backward(torch.from_numpy(gy))
    assert np.allclose(y.detach().numpy(), yt.detach().numpy(), atol=1e-12)
    for ours, theirs in ((x, xt), (w, wt), (b, bt)):
        assert np.allclose(ours.grad.numpy(), theirs.grad.numpy(), atol=1e-12)
