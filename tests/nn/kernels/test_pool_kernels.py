"""Pooling kernels: naive-loop reference, directional finite differences, PyTorch oracle."""

import numpy as np
import pytest

from nnlite.nn.kernels import (
    avg_pool2d_backward,
    avg_pool2d_forward,
    max_pool2d_backward,
    max_pool2d_forward,
    pool2d_output_hw,
)

# (N, C, H, W, kernel, stride, padding, dilation, ceil_mode)
CONFIGS = [
    (2, 3, 8, 8, (2, 2), (2, 2), (0, 0), (1, 1), False),  # LeNet fast path
    (1, 2, 9, 7, (2, 2), (2, 2), (0, 0), (1, 1), False),  # fast path, odd sizes dropped
    (2, 3, 9, 7, (2, 2), (2, 2), (0, 0), (1, 1), True),  # ceil: partial last windows
    (2, 3, 9, 7, (3, 2), (2, 1), (1, 1), (1, 1), True),  # overlapping windows, padding
    (1, 2, 10, 11, (3, 3), (2, 3), (1, 0), (2, 1), False),  # dilation
    (1, 2, 10, 11, (3, 3), (2, 3), (1, 0), (2, 2), True),
    (2, 2, 5, 6, (4, 3), (3, 3), (2, 1), (1, 1), True),  # pad = kernel / 2
    (
        1,
        1,
        5,
        5,
        (2, 2),
        (2, 2),
        (1, 1),
        (1, 1),
        True,
    ),  # ceil drops a window starting in the right pad
    (2, 1, 1, 1, (1, 1), (1, 1), (0, 0), (1, 1), False),  # single pixel
    (1, 2, 7, 5, (5, 5), (2, 2), (2, 2), (1, 1), False),  # whole-plane windows
]
IDS = [f"cfg{i}" for i in range(len(CONFIGS))]
TOL = {np.float32: 1e-5, np.float64: 1e-10}


def _x(cfg, dtype, seed=0):
    N, C, H, W = cfg[:4]
    rng = np.random.default_rng(seed)
    # A permutation: no ties, so max pooling is differentiable everywhere we probe.
    return (rng.permutation(N * C * H * W).reshape(N, C, H, W) / (N * C * H * W) - 0.5).astype(
        dtype
    )


def _naive_max(x, k, s, p, d, ceil):
    N, C, H, W = x.shape
    Ho, Wo = pool2d_output_hw((H, W), k, s, p, d, ceil)
    y = np.empty((N, C, Ho, Wo), x.dtype)
    idx = np.empty((N, C, Ho, Wo), np.int64)
    for oh in range(Ho):
        for ow in range(Wo):
            hs = [oh * s[0] - p[0] + i * d[0] for i in range(k[0])]
            ws = [ow * s[1] - p[1] + j * d[1] for j in range(k[1])]
            cells = [(h, w) for h in hs if 0 <= h < H for w in ws if 0 <= w < W]
            vals = np.stack([x[:, :, h, w] for h, w in cells])  # (cells, N, C)
            first = vals.argmax(axis=0)  # first maximum wins
            y[:, :, oh, ow] = vals.max(axis=0)
            flat = np.array([h * W + w for h, w in cells])
            idx[:, :, oh, ow] = flat[first]
    return y, idx


def _naive_avg(x, k, s, p, ceil, include_pad, divisor):
    N, C, H, W = x.shape
    Ho, Wo = pool2d_output_hw((H, W), k, s, p, (1, 1), ceil)
    y = np.zeros((N, C, Ho, Wo))
    for oh in range(Ho):
        for ow in range(Wo):
            h0, w0 = oh * s[0] - p[0], ow * s[1] - p[1]
            # The window, clipped to the padded input, counts padding when asked to.
            h1, w1 = min(h0 + k[0], H + p[0]), min(w0 + k[1], W + p[1])
            area = (h1 - h0) * (w1 - w0)
            h0, w0, h1, w1 = max(h0, 0), max(w0, 0), min(h1, H), min(w1, W)
            if not include_pad:
                area = (h1 - h0) * (w1 - w0)
            total = x[:, :, h0:h1, w0:w1].astype(np.float64).sum(axis=(2, 3))
            y[:, :, oh, ow] = total / (divisor or area)
    return y


def _rel_err(a, b):
    return np.abs(np.asarray(a, np.float64) - b).max() / max(1.0, np.abs(b).max())


AVG_MODES = [(True, None), (False, None), (True, 3), (False, 2)]


# --------------------------------------------------------------------------- without torch


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_max_pool_matches_naive(cfg):
    _, _, H, W, k, s, p, d, ceil = cfg
    for dtype in (np.float64, np.float32):
        x = _x(cfg, dtype)
        y, idx = max_pool2d_forward(x, k, s, p, d, ceil)
        ref_y, ref_idx = _naive_max(x, k, s, p, d, ceil)
        assert y.dtype == dtype and idx.dtype == np.int64
        assert np.array_equal(y, ref_y) and np.array_equal(idx, ref_idx)


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_max_pool_backward_finite_difference(cfg):
    _, _, H, W, k, s, p, d, ceil = cfg
    x = _x(cfg, np.float64)
    y, idx = max_pool2d_forward(x, k, s, p, d, ceil)
    rng = np.random.default_rng(1)
    gy = rng.standard_normal(y.shape)
    dx = rng.standard_normal(x.shape)
    eps = 1e-7  # far below the gap between distinct inputs: the argmax does not move

    def f(e):
        return np.vdot(gy, max_pool2d_forward(x + e * dx, k, s, p, d, ceil)[0])

    numeric = (f(eps) - f(-eps)) / (2 * eps)
    gx = max_pool2d_backward(gy, idx, (H, W))
    assert gx.shape == x.shape
    assert abs(numeric - np.vdot(gx, dx)) < 1e-6 * max(1.0, abs(numeric))


@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[7] == (1, 1)], ids=lambda c: str(c[4:]))
def test_avg_pool_matches_naive_and_finite_difference(cfg):
    _, _, H, W, k, s, p, _, ceil = cfg
    rng = np.random.default_rng(2)
    for include_pad, divisor in AVG_MODES:
        for dtype in (np.float64, np.float32):
            x = _x(cfg, dtype)
            y = avg_pool2d_forward(x, k, s, p, ceil, include_pad, divisor)
            assert y.dtype == dtype
            assert _rel_err(y, _naive_avg(x, k, s, p, ceil, include_pad, divisor)) < TOL[dtype]
        # Average pooling is linear: the central difference is exact up to rounding.
        x = _x(cfg, np.float64)
        gy = rng.standard_normal(y.shape)
        dx = rng.standard_normal(x.shape)
        ahead, behind = [
            np.vdot(gy, avg_pool2d_forward(x + e * dx, k, s, p, ceil, include_pad, divisor))
            for e in (1e-3, -1e-3)
        ]
        numeric = (ahead - behind) / 2e-3
        gx = avg_pool2d_backward(gy, (H, W), k, s, p, ceil, include_pad, divisor)
        assert abs(numeric - np.vdot(gx, dx)) < 1e-9 * max(1.0, abs(numeric))


def test_max_pool_nan_propagates_and_ties_pick_first():
    x = np.array([[[[1.0, 3.0], [3.0, 0.0]]]], np.float32)
    y, idx = max_pool2d_forward(x, (2, 2), (2, 2), (0, 0), (1, 1), False)
    assert y[0, 0, 0, 0] == 3.0 and idx[0, 0, 0, 0] == 1
    x[0, 0, 1, 1] = np.nan
    for k, s in (((2, 2), (2, 2)), ((2, 2), (1, 1))):  # fast path and generic path
        y, idx = max_pool2d_forward(x, k, s, (0, 0), (1, 1), False)
        assert np.isnan(y[0, 0, 0, 0]) and idx[0, 0, 0, 0] == 3


def test_max_pool_backward_accumulates_overlaps():
    x = np.array([[[[0.0, 5.0, 0.0, 0.0]]]])
    y, idx = max_pool2d_forward(x, (1, 3), (1, 1), (0, 0), (1, 1), False)
    gx = max_pool2d_backward(np.ones_like(y), idx, (1, 4))
    assert np.array_equal(gx, [[[[0.0, 2.0, 0.0, 0.0]]]])


def test_readonly_inputs():
    x = _x(CONFIGS[3], np.float32)
    y, idx = max_pool2d_forward(x, (3, 2), (2, 1), (1, 1), (1, 1), True)
    gy = np.ones_like(y)
    expect = max_pool2d_backward(gy, idx, x.shape[2:])
    for a in (x, y, idx, gy):
        a.setflags(write=False)
    y2, idx2 = max_pool2d_forward(x, (3, 2), (2, 1), (1, 1), (1, 1), True)
    assert np.array_equal(y, y2) and np.array_equal(idx, idx2)
    assert np.array_equal(max_pool2d_backward(gy, idx, x.shape[2:]), expect)
    assert avg_pool2d_forward(x, (2, 2), (2, 2), (0, 0), False, True).shape == (2, 3, 4, 3)


def test_output_hw_ceil_rule():
    assert pool2d_output_hw((28, 28), (2, 2), (2, 2), (0, 0), (1, 1), False) == (14, 14)
    assert pool2d_output_hw((9, 7), (2, 2), (2, 2), (0, 0), (1, 1), True) == (5, 4)
    assert pool2d_output_hw((6, 6), (3, 3), (3, 3), (0, 0), (1, 1), True) == (2, 2)
    # Rounding up gives 4 windows, but the 4th would start in the right padding: dropped.
    assert pool2d_output_hw((5, 5), (2, 2), (2, 2), (1, 1), (1, 1), True) == (3, 3)


@pytest.mark.parametrize(
    "call, match",
    [
        (
            lambda: pool2d_output_hw((1, 1), (3, 3), (1, 1), (0, 0), (1, 1), False),
            "Output size is too small",
        ),
    ],
)
def test_invalid_configurations_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --------------------------------------------------------------------------- PyTorch oracle


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_max_pool_matches_torch(cfg, dtype):
    torch = pytest.importorskip("torch")
    _, _, H, W, k, s, p, d, ceil = cfg
    rng = np.random.default_rng(4)
    x = rng.standard_normal(cfg[:4]).astype(dtype)
    x[..., ::3, ::2] = np.round(x[..., ::3, ::2])  # some ties
    xt = torch.from_numpy(x)
    ref_y, ref_idx = torch.nn.functional.max_pool2d(xt, k, s, p, d, ceil, return_indices=True)
    y, idx = max_pool2d_forward(x, k, s, p, d, ceil)
    assert np.array_equal(y, ref_y.numpy()) and np.array_equal(idx, ref_idx.numpy())
    gy = rng.standard_normal(y.shape).astype(dtype)
    ref_gx = torch.ops.aten.max_pool2d_with_indices_backward(
        torch.from_numpy(gy), xt, list(k), list(s), list(p), list(d), ceil, ref_idx
    ).numpy()
    gx = max_pool2d_backward(gy, idx, (H, W))
    assert gx.dtype == dtype and _rel_err(gx, ref_gx) < TOL[dtype]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[7] == (1, 1)], ids=lambda c: str(c[4:]))
def test_avg_pool_matches_torch(cfg, dtype):
    torch = pytest.importorskip("torch")
    _, _, H, W, k, s, p, _, ceil = cfg
    rng = np.random.default_rng(5)
    x = rng.standard_normal(cfg[:4]).astype(dtype)
    xt = torch.from_numpy(x)
    for include_pad, divisor in AVG_MODES:
        ref_y = torch.nn.functional.avg_pool2d(xt, k, s, p, ceil, include_pad, divisor).numpy()
        y = avg_pool2d_forward(x, k, s, p, ceil, include_pad, divisor)
        assert y.shape == ref_y.shape and _rel_err(y, ref_y) < TOL[dtype]
        gy = rng.standard_normal(y.shape).astype(dtype)
        ref_gx = torch.ops.aten.avg_pool2d_backward(
            torch.from_numpy(gy), xt, list(k), list(s), list(p), ceil, include_pad, divisor
        ).numpy()
        gx = avg_pool2d_backward(gy, (H, W), k, s, p, ceil, include_pad, divisor)
        assert gx.dtype == dtype and _rel_err(gx, ref_gx) < TOL[dtype]


def test_parallel_and_serial_builds_agree_on_large_inputs():
    """Small work runs the serial build; large work the parallel one: both must give the same bits."""
    from nnlite.nn.kernels import pool
    from nnlite.nn.kernels._dispatch import MIN_PARALLEL_ELEMENTS, PlaneParallel

    rng = np.random.default_rng(7)
    planes = MIN_PARALLEL_ELEMENTS // (16 * 16) + 3
    x = rng.standard_normal((planes, 16, 16)).astype(np.float32)
    kernels = [k for k in vars(pool).values() if isinstance(k, PlaneParallel)]
    assert kernels
    y_par, y_ser = np.empty((planes, 8, 8), np.float32), np.empty((planes, 8, 8), np.float32)
    i_par, i_ser = np.empty((planes, 8, 8), np.int64), np.empty((planes, 8, 8), np.int64)
    pool._max_fwd_2x2.parallel(x, y_par, i_par)
    pool._max_fwd_2x2.serial(x, y_ser, i_ser)
    assert np.array_equal(y_par, y_ser) and np.array_equal(i_par, i_ser)
    full = pool.max_pool2d_forward(
        x.reshape(1, planes, 16, 16), (2, 2), (2, 2), (0, 0), (1, 1), False
    )
    assert np.array_equal(full[0].reshape(planes, 8, 8), y_ser)
