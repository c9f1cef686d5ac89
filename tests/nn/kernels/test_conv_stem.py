"""The stem kernel (strided convolutions of few input channels) against a tap-by-tap reference,
the NCHW im2col kernel it replaces, and PyTorch."""

import numpy as np
import pytest

from nnlite.nn.kernels import conv as conv_mod
from nnlite.nn.kernels import conv_stem
from nnlite.nn.kernels.conv_select import PLANES, STEM, conv_kernel

# (N, C, H, W, Co, (kh, kw), stride, padding)
STEM_CONFIGS = [
    (2, 3, 32, 32, 8, (7, 7), (2, 2), (3, 3)),  # ResNet's stem on CIFAR-sized images
    (3, 3, 17, 15, 5, (7, 7), (2, 2), (3, 3)),  # odd sizes: the last phase row is padding
    (2, 1, 9, 11, 4, (3, 5), (3, 2), (0, 2)),  # stride does not divide, no vertical padding
    (1, 4, 8, 8, 6, (4, 4), (4, 4), (0, 0)),  # patchify: stride equals the kernel
    (5, 2, 6, 7, 3, (2, 3), (1, 2), (1, 1)),  # stride along the width only
]
IDS = [f"stem{i}" for i in range(len(STEM_CONFIGS))]


def _make(cfg, dtype, seed=0):
    N, C, H, W, Co, (kh, kw), s, p = cfg
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((N, C, H, W)).astype(dtype)
    w = rng.standard_normal((Co, C, kh, kw)).astype(dtype)
    b = rng.standard_normal(Co).astype(dtype)
    Ho = (H + 2 * p[0] - kh) // s[0] + 1
    Wo = (W + 2 * p[1] - kw) // s[1] + 1
    gy = rng.standard_normal((N, Co, Ho, Wo)).astype(dtype)
    return x, w, b, gy


def _reference(x, w, b, gy, s, p):
    """Forward and weight gradient in float64, one strided window of the padded input per tap."""
    x, w, gy = (a.astype(np.float64) for a in (x, w, gy))
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1])))
    Ho, Wo = gy.shape[2:]
    y = np.zeros(gy.shape) + b[None, :, None, None]
    gw = np.zeros(w.shape)
    for i in range(w.shape[2]):
        for j in range(w.shape[3]):
            win = xp[:, :, i : i + s[0] * (Ho - 1) + 1 : s[0], j : j + s[1] * (Wo - 1) + 1 : s[1]]
            y += np.einsum("oc,nchw->nohw", w[:, :, i, j], win)
            gw[:, :, i, j] = np.einsum("nohw,nchw->oc", gy, win)
    return y, gw


def _rel_err(a, ref):
    return np.abs(np.asarray(a, np.float64) - ref).max() / max(1.0, np.abs(ref).max())


@pytest.mark.parametrize("cfg", STEM_CONFIGS, ids=IDS)
def test_selector_routes_strided_few_channel_convs_to_stem(cfg):
    N, C, _, _, Co, k, s, _ = cfg
    assert conv_kernel(N, C, Co, k, s, 1, 4) == STEM
    assert conv_kernel(N, C, Co, k, (1, 1), 1, 4) != STEM  # stride 1 keeps its kernels
    if C > 1:
        assert conv_kernel(N, C, Co, k, s, C, 4) == PLANES  # grouped: the NCHW kernel


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 1e-5)])
@pytest.mark.parametrize("cfg", STEM_CONFIGS, ids=IDS)
def test_stem_matches_tap_reference(cfg, dtype, tol):
    *_, k, s, p = cfg
    x, w, b, gy = _make(cfg, dtype)
    ref_y, ref_gw = _reference(x, w, b, gy, s, p)
    y = conv_mod.conv2d_forward(x, w, b, s, p, (1, 1), 1)
    gw = conv_mod.conv2d_backward_weight(gy, x, k, s, p, (1, 1), 1)
    for out, ref in ((y, ref_y), (gw, ref_gw)):
        assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
        assert _rel_err(out, ref) < tol
    nobias = conv_stem.forward(x, w, None, s, p)
    assert _rel_err(nobias, ref_y - b[None, :, None, None]) < tol


def test_stem_blocks_of_images_agree_with_one_block(monkeypatch):
    cfg = (7, 3, 12, 12, 5, (7, 7), (2, 2), (3, 3))
    x, w, b, gy = _make(cfg, np.float64, seed=3)
    whole = (
        conv_stem.forward(x, w, b, (2, 2), (3, 3)),
        conv_stem.backward_weight(gy, x, (7, 7), (2, 2), (3, 3)),
    )
    # Columns of one image per block: seven blocks, the weight gradient summed across them.
    monkeypatch.setattr(conv_stem, "_BLOCK_BYTES", 1)
    blocked = (
        conv_stem.forward(x, w, b, (2, 2), (3, 3)),
        conv_stem.backward_weight(gy, x, (7, 7), (2, 2), (3, 3)),
    )
    assert np.allclose(whole[0], blocked[0], rtol=0, atol=1e-12)
    assert np.allclose(whole[1], blocked[1], rtol=0, atol=1e-11)


def test_stem_batch_zero():
    x, w, _, gy = _make((0, 3, 9, 9, 4, (7, 7), (2, 2), (3, 3)), np.float32)
    assert conv_mod.conv2d_forward(x, w, None, (2, 2), (3, 3), (1, 1), 1).shape == (0, 4, 5, 5)
    gw = conv_mod.conv2d_backward_weight(gy, x, (7, 7), (2, 2), (3, 3), (1, 1), 1)
    assert gw.shape == w.shape and not gw.any()


@pytest.mark.parametrize("cfg", STEM_CONFIGS, ids=IDS)
def test_stem_matches_torch(cfg):
    torch = pytest.importorskip("torch")
    *_, k, s, p = cfg
    x, w, b, gy = _make(cfg, np.float32, seed=5)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    ref_y = torch.nn.functional.conv2d(xt, wt, bt, s, p).numpy()
    ref_gw = torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p).numpy()
    assert _rel_err(conv_mod.conv2d_forward(x, w, b, s, p, (1, 1), 1), ref_y) < 1e-5
    assert _rel_err(conv_mod.conv2d_backward_weight(gy, x, k, s, p, (1, 1), 1), ref_gw) < 1e-5
