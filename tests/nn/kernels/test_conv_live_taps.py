"""Convolutions whose kernel reaches past the input on every output pixel: the taps that only read
padding are dropped (``conv_live_taps``), with the same results as the definition and PyTorch."""

import numpy as np
import pytest
from test_conv_kernels import TOL, _make, _naive_backward, _naive_forward, _rel_err

import nnlite as nl
import nnlite.nn.functional as F
from nnlite.nn.kernels import (
    conv2d_backward_input,
    conv2d_backward_weight,
    conv2d_forward,
    conv_live_taps,
)
from nnlite.nn.kernels.conv_live_taps import live_taps, worth_cropping

# (N, C, H, W, Co, (kh, kw), stride, padding, dilation, groups), each with dead taps.
CONFIGS = [
    (2, 8, 1, 1, 5, (3, 3), (1, 1), (1, 1), (1, 1), 1),  # 1x1 plane: the centre tap only
    (2, 6, 2, 2, 4, (3, 3), (2, 2), (1, 1), (1, 1), 1),  # stride 2 on 2x2: the lower-right 2x2
    (2, 4, 1, 3, 3, (7, 7), (1, 1), (3, 3), (1, 1), 1),  # one axis cropped to 1, the other to 5
    (3, 4, 2, 5, 3, (5, 5), (2, 2), (2, 2), (1, 1), 1),  # stride 2, non-square plane
    (2, 4, 1, 1, 4, (3, 3), (1, 1), (1, 1), (1, 1), 2),  # groups
    (2, 16, 1, 1, 32, (3, 3), (1, 1), (1, 1), (1, 1), 1),  # wide: the channels-last kernels
    (1, 2, 1, 2, 3, (3, 3), (1, 1), (2, 1), (2, 1), 1),  # dilation
]
IDS = [f"cfg{i}" for i in range(len(CONFIGS))]


@pytest.fixture(autouse=True)
def crop_always(monkeypatch):
    """Dead taps are dropped whatever the copy costs, so these small shapes take that path."""
    monkeypatch.setattr(conv_live_taps, "_COPY_MACS", 0)


def _three(x, w, b, gy, cfg):
    _, _, H, W, _, k, s, p, d, g = cfg
    return (
        conv2d_forward(x, w, b, s, p, d, g),
        conv2d_backward_input(gy, w, (H, W), s, p, d, g),
        conv2d_backward_weight(gy, x, k, s, p, d, g),
    )


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_shapes_have_dead_taps(cfg):
    _, _, H, W, _, k, s, p, d, _ = cfg
    y_hw = _make(cfg, np.float64)[3].shape[2:]
    assert live_taps((H, W), k, s, p, d, y_hw) is not None


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_naive_loops(cfg):
    _, _, _, _, _, _, s, p, d, g = cfg
    for dtype in (np.float64, np.float32):
        x, w, b, gy = _make(cfg, dtype, seed=21)
        x64, w64, gy64 = (a.astype(np.float64) for a in (x, w, gy))
        refs = (_naive_forward(x64, w64, b.astype(np.float64), s, p, d, g),) + _naive_backward(
            gy64, x64, w64, s, p, d, g
        )
        for out, ref in zip(_three(x, w, b, gy, cfg), refs):
            assert out.dtype == dtype and out.shape == ref.shape and out.flags.c_contiguous
            assert _rel_err(out, ref) < TOL[dtype]


@pytest.mark.parametrize("cfg", CONFIGS, ids=IDS)
def test_matches_torch(cfg):
    torch = pytest.importorskip("torch")
    _, _, _, _, _, _, s, p, d, g = cfg
    x, w, b, gy = _make(cfg, np.float32, seed=22)
    xt, wt, bt, gyt = (torch.from_numpy(a) for a in (x, w, b, gy))
    refs = (
        torch.nn.functional.conv2d(xt, wt, bt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_input(xt.shape, wt, gyt, s, p, d, g).numpy(),
        torch.nn.grad.conv2d_weight(xt, wt.shape, gyt, s, p, d, g).numpy(),
    )
    for out, ref in zip(_three(x, w, b, gy, cfg), refs):
        assert out.shape == ref.shape and _rel_err(out, ref) < 1e-5


def test_live_taps_of_known_shapes():
    one = (1, 1)
    # ResNet-18's 3x3 convolutions on 1x1 planes read the input with the centre tap only.
    assert live_taps(one, (3, 3), one, one, one, one) == ((slice(1, 2), slice(1, 2)), (0, 0))
    # Its stride-2 convolution from 2x2 to 1x1 with the lower-right 2x2 taps.
    taps = live_taps((2, 2), (3, 3), (2, 2), one, one, one)
    assert taps == ((slice(1, 3), slice(1, 3)), (0, 0))
    # Every tap reads a 2x2 plane at stride 1, and a 4x4 one at stride 2.
    assert live_taps((2, 2), (3, 3), one, one, one, (2, 2)) is None
    assert live_taps((4, 4), (3, 3), (2, 2), one, one, (2, 2)) is None


def test_crop_only_where_it_pays(monkeypatch):
    monkeypatch.undo()
    centre = (slice(1, 2), slice(1, 2))
    corner = (slice(1, 3), slice(1, 3))
    # 1x1 planes: 8 dead taps per output pixel against one copied tap.
    assert worth_cropping(8, (1, 1), (3, 3), centre)
    # 2x2 -> 1x1 at stride 2, 8 images: copying 4 taps costs more than 5 dead taps save.
    assert not worth_cropping(8, (1, 1), (3, 3), corner)
    assert worth_cropping(128, (1, 1), (3, 3), corner)


@pytest.mark.parametrize("cfg", CONFIGS[:3], ids=IDS[:3])
def test_gradcheck_through_conv2d(cfg):
    _, C, H, W, Co, k, s, p, d, g = cfg
    rng = np.random.default_rng(23)
    shapes = ((2, C, H, W), (Co, C // g) + k, (Co,))
    x, w, b = (nl.tensor(rng.standard_normal(sh), requires_grad=True) for sh in shapes)

    def conv(x, w, b):
        return F.conv2d(x, w, b, stride=s, padding=p, dilation=d, groups=g)

    assert nl.autograd.gradcheck(conv, (x, w, b))
    assert nl.autograd.gradgradcheck(conv, (x, w, b))
