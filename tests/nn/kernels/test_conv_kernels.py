"""conv2d kernels: naive-loop reference, directional finite differences, PyTorch oracle."""

import numpy as np
import pytest

from nnlite.nn.kernels import conv as conv_mod
from nnlite.nn.kernels import (
    conv2d_backward_input,
    conv2d_backward_weight,
    conv2d_forward,
    conv2d_output_hw,
)
from nnlite.nn.kernels.conv_select import CHANNELS_LAST, LANES, OPS, PLANES, conv_kernel

# (N, C, H, W, Co, (kh, kw), stride, padding, dilation, groups)
CONFIGS = [
    (2, 3, 9, 8, 4, (3, 3), (1, 1), (0, 0), (1, 1), 1),  # full-width path
    (2, 3, 9, 8, 4, (3, 3), (1, 1), (1, 2), (1, 1), 1),  # full-width with padding
    (1, 4, 10, 7, 6, (3, 2), (2, 1), (1, 0), (1, 2), 2),  # asymmetric stride, dilation, groups
    (3, 6, 11, 12, 4, (5, 3), (3, 2), (2, 1), (2, 1), 2),  # stride does not divide
    (2, 4, 7, 7, 8, (1, 1), (2, 2), (0, 0), (1, 1), 4),  # 1x1, depthwise-like groups
    (1, 2, 5, 5, 3, (3, 3), (1, 1), (2, 2), (2, 2), 1),  # padding + dilation, batch 1
    (2, 2, 6, 13, 3, (2, 4), (1, 3), (0, 1), (1, 1), 1),  # wide input, non-square kernel
    (
        2,
        3,
        12,
        12,
        5,
        (3, 3),
        (1, 1),
        (0, 0),
        (3, 3),
        1,
    ),  # stride 1 but too wasteful for full width
    (3, 6, 8, 8, 6, (3, 3), (1, 1), (1, 1), (1, 1), 3),  # stride-1 groups
    (2, 3, 16, 16, 6, (5, 5), (1, 1), (0, 0), (1, 1), 1),  # LeNet-like conv1
    (2, 6, 14, 14, 16, (5, 5), (1, 1), (0, 0), (1, 1), 1),  # LeNet conv2
    (1, 1, 4, 4, 1, (4, 4), (1, 1), (0, 0), (1, 1), 1),  # single output pixel
]
IDS = [f"cfg{i}" for i in range(len(CONFIGS))]


def _make(cfg, dtype, seed=0):
    N, C, H, W, Co, (kh, kw), s, p, d, g = cfg
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    w = rng.standard_normal((Co, C // g, kh, kw)).astype(dtype)
    b = rng.standard_normal(Co).astype(dtype)
    Ho, Wo = conv2d_output_hw((H, W), (kh, kw), s, p, d)
    gy = rng.standard_normal((N, Co, Ho, Wo)).astype(dtype)
    return x, w, b, gy


def _taps(x_shape, w_shape, s, p, d):
    """For every kernel tap (i, j): the strided window of the padded input it reads."""
    H, W = x_shape[2], x_shape[3]
    kh, kw = w_shape[2], w_shape[3]
    Ho, Wo = conv2d_output_hw((H, W), (kh, kw), s, p, d)
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * d[0], i * d[0] + s[0] * (Ho - 1) + 1, s[0])
            cols = slice(j * d[1], j * d[1] + s[1] * (Wo - 1) + 1, s[1])
            yield i, j, rows, cols


def _naive_forward(x, w, b, s, p, d, g):
    """Definition of the convolution: a sum over taps of shifted, strided input windows."""
    N, C, H, W = x.shape
    Co, Cg = w.shape[:2]
    Ho, Wo = conv2d_output_hw((H, W), w.shape[2:], s, p, d)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    y = np.zeros((N, Co, Ho, Wo))
    for o in range(Co):
        for ci in range(Cg):
            c = (o // (Co // g)) * Cg + ci
            for i, j, rows, cols in _taps(x.shape, w.shape, s, p, d):
                y[:, o] += w[o, ci, i, j] * xp[:, c, rows, cols]
    if b is not None:
        y += b[None, :, None, None]
    return y


def _naive_backward(gy, x, w, s, p, d, g):
    """Adjoint of _naive_forward, tap by tap."""
    N, C, H, W = x.shape
    Co, Cg = w.shape[:2]
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    gxp = np.zeros(xp.shape)
    gw = np.zeros(w.shape)
    for o in range(Co):
        for ci in range(Cg):
            c = (o // (Co // g)) * Cg + ci
            for i, j, rows, cols in _taps(x.shape, w.shape, s, p, d):
                gxp[:, c, rows, cols] += w[o, ci, i, j] * gy[:, o]
                gw[o, ci, i, j] = np.sum(gy[:, o] * xp[:, c, rows, cols])
    return gxp[:, :, p[0] : p[0] + H, p[1] : p[1] + W], gw


def _rel_err(a, b):
    return np.abs(np.asarray(a, np.float64) - b).max() / max(1.0, np.abs(b).max())


TOL = {np.float32: 1e-5, np.float64: 1e-10}


# --------------------------------------------------------------------------- without torch


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_naive_loops(cfg):
    _, _, _, _, _, k, s, p, d, g = cfg
    for dtype in (np.float64, np.float32):
        x, w, b, gy = _make(cfg, dtype)
        ref_y = _naive_forward(
            x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), s, p, d, g
        )
        ref_gx, ref_gw = _naive_backward(
            gy.astype(np.float64), x.astype(np.float64), w.astype(np.float64), s, p, d, g
        )
        y = conv2d_forward(x, w, b, s, p, d, g)
        gx = conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g)
        gw = conv2d_backward_weight(gy, x, k, s, p, d, g)
        for out, ref in ((y, ref_y), (gx, ref_gx), (gw, ref_gw)):
            assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
            assert _rel_err(out, ref) < TOL[dtype]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_backward_directional_finite_difference(cfg):
    # <gy, conv(x + e*dx, w + e*dw)> is quadratic in e; its central difference is
    # exact up to rounding and must equal <gx, dx> + <gw, dw>.
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float64, seed=1)
    rng = np.random.default_rng(2)
    dx, dw = rng.standard_normal(x.shape), rng.standard_normal(w.shape)
    eps = 1e-3

    def f(e):
        return np.vdot(gy, conv2d_forward(x + e * dx, w + e * dw, b, s, p, d, g))

    numeric = (f(eps) - f(-eps)) / (2 * eps)
    gx = conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g)
    gw = conv2d_backward_weight(gy, x, k, s, p, d, g)
    analytic = np.vdot(gx, dx) + np.vdot(gw, dw)
    assert abs(numeric - analytic) <= 1e-8 * max(1.0, abs(analytic))


def test_chunk_boundaries(monkeypatch):
    # Tiny chunks: several chunks plus a ragged last one must give the same result.
    cfgs = [CONFIGS[0], CONFIGS[2], CONFIGS[3]]
    for cfg in cfgs:
        cfg = (7,) + cfg[1:]
        _, _, _, _, _, k, s, p, d, g = cfg
        x, w, b, gy = _make(cfg, np.float64)
        whole = (
            conv2d_forward(x, w, b, s, p, d, g),
            conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g),
            conv2d_backward_weight(gy, x, k, s, p, d, g),
        )
        monkeypatch.setattr(conv_mod, "_chunk_images", lambda nbytes, n: 3)  # chunks 3, 3, 1
        chunked = (
            conv2d_forward(x, w, b, s, p, d, g),
            conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g),
            conv2d_backward_weight(gy, x, k, s, p, d, g),
        )
        monkeypatch.undo()
        for a, c in zip(whole, chunked):
            assert _rel_err(c, a) < 1e-12


def test_untouched_input_rows_get_zero_gradient():
    # 1x1 kernel, stride 3: rows/cols 1, 2, 4, 5 of the input are never read.
    gy = np.ones((1, 1, 3, 3))
    w = np.full((1, 1, 1, 1), 2.0)
    gx = conv2d_backward_input(gy, w, (8, 8), (3, 3), (0, 0), (1, 1), 1)
    expect = np.zeros((8, 8))
    expect[::3, ::3] = 2.0
    assert np.array_equal(gx[0, 0], expect)


def test_bias_none_and_noncontiguous_input():
    cfg = CONFIGS[1]
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, _, _ = _make(cfg, np.float32)
    xt = np.asfortranarray(x)
    y = conv2d_forward(xt, w, None, s, p, d, g)
    ref = _naive_forward(x.astype(np.float64), w.astype(np.float64), None, s, p, d, g)
    assert y.dtype == np.float32 and _rel_err(y, ref) < 1e-5


def test_readonly_inputs():
    cfg = CONFIGS[0]
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float64)
    expect = conv2d_forward(x, w, b, s, p, d, g), conv2d_backward_weight(gy, x, k, s, p, d, g)
    for a in (x, w, b, gy):
        a.setflags(write=False)
    got = conv2d_forward(x, w, b, s, p, d, g), conv2d_backward_weight(gy, x, k, s, p, d, g)
    assert all(np.array_equal(e, r) for e, r in zip(expect, got))


def test_batch_zero():
    x = np.zeros((0, 3, 8, 8), np.float32)
    w = np.zeros((4, 3, 3, 3), np.float32)
    assert conv2d_forward(x, w, None, (1, 1), (0, 0), (1, 1), 1).shape == (0, 4, 6, 6)
    gw = conv2d_backward_weight(
        np.zeros((0, 4, 6, 6), np.float32), x, (3, 3), (1, 1), (0, 0), (1, 1), 1
    )
    assert gw.shape == (4, 3, 3, 3) and not gw.any()


def test_output_hw():
    assert conv2d_output_hw((32, 32), (5, 5), (1, 1), (0, 0), (1, 1)) == (28, 28)
    assert conv2d_output_hw((7, 9), (3, 2), (2, 3), (1, 0), (1, 2)) == (4, 3)
    assert conv2d_output_hw((5, 5), (3, 3), (1, 1), (2, 2), (2, 2)) == (5, 5)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: conv2d_output_hw((4, 4), (5, 5), (1, 1), (0, 0), (1, 1)),
            "Kernel size can't be greater",
        ),
        (lambda: conv2d_output_hw((8, 8), (3, 3), (0, 1), (0, 0), (1, 1)), "stride"),
        (lambda: conv2d_output_hw((8, 8), (3, 3), (1, 1), (-1, 0), (1, 1)), "padding"),
        (lambda: conv2d_output_hw((8, 8), (3, 3), (1, 1), (0, 0), (0, 1)), "dilation"),
        (
            lambda: conv2d_forward(
                np.zeros((1, 3, 8, 8)), np.zeros((4, 3, 3, 3)), None, (1, 1), (0, 0), (1, 1), 2
            ),
            "expected input to have 6 channels",
        ),
        (
            lambda: conv2d_forward(
                np.zeros((1, 4, 8, 8)), np.zeros((3, 2, 3, 3)), None, (1, 1), (0, 0), (1, 1), 2
            ),
            "divisible by 2",
        ),
        (
            lambda: conv2d_forward(
                np.zeros((1, 4, 8, 8)), np.zeros((4, 4, 3, 3)), None, (1, 1), (0, 0), (1, 1), 0
            ),
            "groups",
        ),
        (
            lambda: conv2d_forward(
                np.zeros((1, 4, 8, 8)),
                np.zeros((4, 4, 3, 3)),
                np.zeros(3),
                (1, 1),
                (0, 0),
                (1, 1),
                1,
            ),
            "bias",
        ),
        (
            lambda: conv2d_backward_weight(
                np.zeros((1, 4, 6, 6)), np.zeros((1, 3, 8, 8)), (3, 3), (1, 1), (0, 0), (1, 1), 2
            ),
            "divisible by groups",
        ),
        (
            lambda: conv2d_backward_input(
                np.zeros((1, 4, 5, 6)), np.zeros((4, 3, 3, 3)), (8, 8), (1, 1), (0, 0), (1, 1), 1
            ),
            "grad_output has shape",
        ),
    ],
)
def test_invalid_configurations_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_dtype_mismatch_raises():
    with pytest.raises(TypeError):
        conv2d_forward(
            np.zeros((1, 3, 8, 8), np.float32),
            np.zeros((4, 3, 3, 3)),
            None,
            (1, 1),
            (0, 0),
            (1, 1),
            1,
        )
    with pytest.raises(TypeError):
        conv2d_forward(
            np.zeros((1, 3, 8, 8), np.int64),
            np.zeros((4, 3, 3, 3), np.int64),
            None,
            (1, 1),
            (0, 0),
            (1, 1),
            1,
        )


# --------------------------------------------------------------------------- PyTorch oracle


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_torch(cfg, dtype):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, dtype, seed=3)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    ref_y = torch.nn.functional.conv2d(xt, wt, bt, s, p, d, g).numpy()
    ref_gx = torch.nn.grad.conv2d_input(xt.shape, wt, gyt, s, p, d, g).numpy()
    ref_gw = torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p, d, g).numpy()
    y = conv2d_forward(x, w, b, s, p, d, g)
    gx = conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g)
    gw = conv2d_backward_weight(gy, x, k, s, p, d, g)
    for out, ref in ((y, ref_y), (gx, ref_gx), (gw, ref_gw)):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        assert _rel_err(out, ref) < TOL[dtype]


# --------------------------------------------------------------------------- direct (lanes) path

# Stride-1 single-group batches of at least one vector of images take the direct kernels.
LANES_CONFIGS = [
    (
        17,
        3,
        12,
        11,
        6,
        (5, 5),
        (1, 1),
        (0, 0),
        (1, 1),
        1,
    ),  # ragged last block, Co % 4 == 2, Wo = 4+2+1
    (33, 2, 9, 10, 5, (3, 2), (1, 1), (1, 2), (2, 1), 1),  # padding + dilation, Co = 5
    (16, 6, 14, 14, 16, (5, 5), (1, 1), (0, 0), (1, 1), 1),  # LeNet conv2, one full float32 block
    (20, 3, 8, 8, 4, (3, 3), (1, 1), (3, 3), (1, 1), 1),  # padding > k - 1: input grad via GEMM
    (18, 4, 7, 9, 3, (1, 4), (1, 1), (0, 1), (1, 1), 1),  # kw = 4, 1-row kernel
    (9, 2, 6, 6, 7, (2, 2), (1, 1), (0, 0), (1, 1), 1),  # float64 only: 9 images, Co = 7
]
LANES_IDS = [f"lanes{i}" for i in range(len(LANES_CONFIGS))]


@pytest.mark.parametrize("cfg", LANES_CONFIGS, ids=LANES_IDS)
def test_lanes_path_matches_naive_loops(cfg):
    N, C, _, _, Co, k, s, p, d, g = cfg
    for dtype in (np.float64, np.float32):
        if conv_kernel(N, C, Co, k, s, g, np.dtype(dtype).itemsize) != LANES:
            assert dtype == np.float32 and N < 16
            continue
        x, w, b, gy = _make(cfg, dtype, seed=4)
        ref_y = _naive_forward(
            x.astype(np.float64), w.astype(np.float64), b.astype(np.float64), s, p, d, g
        )
        ref_gx, ref_gw = _naive_backward(
            gy.astype(np.float64), x.astype(np.float64), w.astype(np.float64), s, p, d, g
        )
        y = conv2d_forward(x, w, b, s, p, d, g)
        y_nobias = conv2d_forward(x, w, None, s, p, d, g)
        gx = conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g)
        gw = conv2d_backward_weight(gy, x, k, s, p, d, g)
        ref_nobias = ref_y - b.astype(np.float64)[None, :, None, None]
        for out, ref in ((y, ref_y), (y_nobias, ref_nobias), (gx, ref_gx), (gw, ref_gw)):
            assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
            assert _rel_err(out, ref) < TOL[dtype]


@pytest.mark.parametrize("cfg", LANES_CONFIGS[:3], ids=LANES_IDS[:3])
def test_lanes_path_matches_torch(cfg):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float32, seed=5)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    refs = (
        torch.nn.functional.conv2d(xt, wt, bt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_input(xt.shape, wt, gyt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p, d, g).numpy(),
    )
    outs = (
        conv2d_forward(x, w, b, s, p, d, g),
        conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g),
        conv2d_backward_weight(gy, x, k, s, p, d, g),
    )
    for out, ref in zip(outs, refs):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        assert _rel_err(out, ref) < 1e-5


def test_lanes_path_large_batch_weight_gradient_accuracy():
    # 256 images x 28 x 28 positions summed per weight: float32 must stay near float64.
    cfg = (256, 3, 32, 32, 6, (5, 5), (1, 1), (0, 0), (1, 1), 1)
    x, w, _, gy = _make(cfg, np.float32, seed=6)
    gw = conv2d_backward_weight(gy, x, (5, 5), (1, 1), (0, 0), (1, 1), 1)
    ref = conv2d_backward_weight(
        gy.astype(np.float64), x.astype(np.float64), (5, 5), (1, 1), (0, 0), (1, 1), 1
    )
    assert _rel_err(gw, ref) < 1e-6


def test_lanes_path_threads_agree(monkeypatch):
    numba = pytest.importorskip("numba")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads")
    from nnlite.nn.kernels import _dispatch

    monkeypatch.setattr(
        _dispatch, "MIN_PARALLEL_ELEMENTS", 0
    )  # small test inputs take the threaded path
    cfg = LANES_CONFIGS[1]
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float32, seed=7)

    def run():
        return (
            conv2d_forward(x, w, b, s, p, d, g),
            conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g),
            conv2d_backward_weight(gy, x, k, s, p, d, g),
        )

    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = run()
        numba.set_num_threads(2)
        two = run()
    finally:
        numba.set_num_threads(before)
    assert np.array_equal(one[0], two[0]) and np.array_equal(one[1], two[1])
    assert _rel_err(two[2], one[2].astype(np.float64)) < 1e-6


# --------------------------------------------------------------------------- kernel selection

# Shapes chosen for each kernel the selector can pick: (cfg, kernel for float32, float64).
SELECTED_CONFIGS = [
    ((2, 16, 9, 8, 8, (3, 3), (1, 1), (1, 1), (1, 1), 1), CHANNELS_LAST),  # ResNet-like 3x3
    (
        (1, 24, 7, 9, 5, (3, 2), (2, 3), (1, 0), (1, 2), 1),
        CHANNELS_LAST,
    ),  # batch 1, stride, dilation
    ((3, 16, 6, 6, 12, (1, 1), (1, 1), (0, 0), (1, 1), 1), CHANNELS_LAST),  # 1x1: no im2col
    (
        (2, 16, 9, 8, 12, (1, 1), (1, 1), (0, 0), (1, 1), 1),
        CHANNELS_LAST,
    ),  # 1x1, 72 pixels: NCHW GEMMs
    (
        (2, 16, 17, 16, 8, (1, 1), (2, 2), (0, 0), (1, 1), 1),
        CHANNELS_LAST,
    ),  # same after subsampling
    (
        (2, 16, 9, 9, 8, (3, 3), (1, 1), (1, 1), (1, 1), 1),
        CHANNELS_LAST,
    ),  # 81 pixels: per-image GEMMs
    (
        (2, 20, 7, 7, 6, (1, 1), (2, 2), (0, 0), (1, 1), 1),
        CHANNELS_LAST,
    ),  # 1x1 stride 2 (downsample)
    ((2, 32, 1, 1, 40, (3, 3), (1, 1), (1, 1), (1, 1), 1), CHANNELS_LAST),  # 1x1 plane, padded 3x3
    # Fewer column rows than output channels: columns in the weight's (c, i, j) order.
    ((1, 16, 3, 3, 64, (3, 3), (2, 2), (1, 1), (1, 1), 1), CHANNELS_LAST),
    ((1, 16, 5, 6, 48, (2, 3), (1, 1), (1, 2), (2, 1), 1), CHANNELS_LAST),
    ((1, 16, 6, 6, 40, (3, 3), (2, 1), (2, 1), (1, 2), 1), CHANNELS_LAST),
    ((2, 16, 5, 5, 4, (1, 1), (1, 1), (2, 1), (1, 1), 1), CHANNELS_LAST),  # 1x1 with padding
    ((1, 18, 6, 7, 9, (5, 3), (1, 1), (2, 1), (1, 1), 1), CHANNELS_LAST),  # dw == 1 run of kw * C
    (
        (17, 40, 5, 5, 8, (3, 3), (1, 1), (1, 1), (1, 1), 1),
        CHANNELS_LAST,
    ),  # wide: not the lanes kernel
    # Few output channels, stride 1: the input gradient as a convolution of the output gradient.
    ((2, 32, 9, 8, 4, (3, 3), (1, 1), (1, 1), (1, 1), 1), CHANNELS_LAST),
    ((1, 16, 7, 7, 3, (3, 3), (1, 1), (2, 1), (2, 1), 1), CHANNELS_LAST),
    ((2, 16, 8, 8, 3, (2, 3), (1, 1), (0, 1), (1, 1), 1), CHANNELS_LAST),
    ((16, 3, 8, 8, 40, (3, 3), (1, 1), (0, 0), (1, 1), 1), PLANES),  # few in, many out
    ((2, 16, 8, 8, 16, (3, 3), (1, 1), (1, 1), (1, 1), 2), PLANES),  # groups
    ((17, 3, 12, 11, 6, (5, 5), (1, 1), (0, 0), (1, 1), 1), LANES),  # LeNet-like batch
    ((16, 16, 6, 6, 16, (3, 3), (1, 1), (1, 1), (1, 1), 1), LANES),  # widest the lanes take
    ((16, 8, 6, 6, 8, (1, 1), (1, 1), (0, 0), (1, 1), 1), PLANES),  # 1x1: a GEMM, not lanes
    ((3, 16, 9, 7, 12, (1, 1), (3, 2), (0, 0), (1, 1), 1), CHANNELS_LAST),  # 1x1 strided, ragged
]
SELECTED_IDS = [f"{kernel}{i}" for i, (_, kernel) in enumerate(SELECTED_CONFIGS)]


def _selected(cfg, dtype):
    N, C, _, _, Co, k, s, _, _, g = cfg
    return conv_kernel(N, C, Co, k, s, g, np.dtype(dtype).itemsize)


def _three(x, w, b, gy, cfg):
    _, _, _, _, _, k, s, p, d, g = cfg
    return (
        conv2d_forward(x, w, b, s, p, d, g),
        conv2d_backward_input(gy, w, x.shape[2:], s, p, d, g),
        conv2d_backward_weight(gy, x, k, s, p, d, g),
    )


@pytest.mark.parametrize("cfg, kernel", SELECTED_CONFIGS, ids=SELECTED_IDS)
def test_selected_kernel_matches_naive_loops(cfg, kernel):
    assert _selected(cfg, np.float32) == kernel
    _, _, _, _, _, k, s, p, d, g = cfg
    for dtype in (np.float64, np.float32):
        x, w, b, gy = _make(cfg, dtype, seed=8)
        x64, w64, gy64 = (a.astype(np.float64) for a in (x, w, gy))
        ref_y = _naive_forward(x64, w64, b.astype(np.float64), s, p, d, g)
        ref_gx, ref_gw = _naive_backward(gy64, x64, w64, s, p, d, g)
        outs = _three(x, w, b, gy, cfg)
        for out, ref in zip(outs, (ref_y, ref_gx, ref_gw)):
            assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
            assert _rel_err(out, ref) < TOL[dtype]
        y_nobias = conv2d_forward(x, w, None, s, p, d, g)
        assert _rel_err(y_nobias, ref_y - b[None, :, None, None]) < TOL[dtype]


@pytest.mark.parametrize("cfg, kernel", SELECTED_CONFIGS, ids=SELECTED_IDS)
def test_selected_kernel_matches_torch(cfg, kernel):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, k, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float32, seed=9)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    refs = (
        torch.nn.functional.conv2d(xt, wt, bt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_input(xt.shape, wt, gyt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p, d, g).numpy(),
    )
    for out, ref in zip(_three(x, w, b, gy, cfg), refs):
        assert out.shape == ref.shape and out.dtype == ref.dtype
        assert _rel_err(out, ref) < 1e-5


def test_channels_last_chunks_and_threads(monkeypatch):
    # Several chunks with a ragged last one, serial and split over threads: one result.
    from nnlite.nn.kernels import _dispatch, conv_gemm

    cfgs = [SELECTED_CONFIGS[i][0] for i in (0, 1, 2, 3)]
    for cfg in cfgs:
        cfg = (7,) + cfg[1:]
        assert _selected(cfg, np.float64) == CHANNELS_LAST
        x, w, b, gy = _make(cfg, np.float64, seed=10)
        whole = _three(x, w, b, gy, cfg)
        monkeypatch.setattr(conv_gemm, "_chunk", lambda n, rows, row_bytes: min(n, 3))  # 3, 3, 1
        monkeypatch.setattr(_dispatch, "MIN_PARALLEL_ELEMENTS", 0)
        chunked = _three(x, w, b, gy, cfg)
        monkeypatch.undo()
        for a, c in zip(whole, chunked):
            assert _rel_err(c, a) < 1e-12


def test_input_gradient_with_more_outputs_than_inputs_leaves_the_lanes_kernel():
    # LeNet's 6 -> 16 layer from batch 16: lanes for forward and weight gradient, the NCHW GEMM
    # for the input gradient; with fewer outputs than inputs the lanes kernel keeps all three.
    def chosen(N, C, Co):
        return [conv_kernel(N, C, Co, (5, 5), (1, 1), 1, 4, op) for op in OPS]

    assert chosen(16, 6, 16) == [LANES, PLANES, LANES]
    assert chosen(256, 6, 16) == [LANES, PLANES, LANES]
    assert chosen(16, 16, 8) == [LANES] * 3


@pytest.mark.parametrize("cfg", LANES_CONFIGS, ids=LANES_IDS)
def test_lanes_input_gradient_kernel_matches_naive_loops(cfg):
    # The lanes input-gradient kernel itself, on every lanes shape whose padding it takes, whatever
    # the selector now picks for that operation.
    from nnlite.nn.kernels import _conv_lanes

    N, C, H, W, Co, k, s, p, d, g = cfg
    if p[0] > d[0] * (k[0] - 1) or p[1] > d[1] * (k[1] - 1):
        pytest.skip("the lanes input gradient needs padding within the kernel's reach")
    for dtype in (np.float64, np.float32):
        x, w, _, gy = _make(cfg, dtype, seed=20)
        ref_gx, _ = _naive_backward(
            gy.astype(np.float64), x.astype(np.float64), w.astype(np.float64), s, p, d, g
        )
        gx = _conv_lanes.backward_input(gy, w, H, W, p[0], p[1], d[0], d[1], 1)
        assert gx.dtype == dtype and gx.shape == ref_gx.shape
        assert _rel_err(gx, ref_gx) < TOL[dtype]
