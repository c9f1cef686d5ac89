"""LazyConvTranspose1d/2d/3d, LazyInstanceNorm1d/2d/3d and UninitializedBuffer: shapes read from
the first input, the layer becomes its eager class, results as PyTorch's lazy layer given the
same weights; gradients by finite differences."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "name, kwargs, shape",
    [
        ("LazyConvTranspose1d", dict(out_channels=4, kernel_size=3, stride=2), (2, 3, 5)),
        ("LazyConvTranspose2d", dict(out_channels=4, kernel_size=3, groups=2), (1, 6, 4, 4)),
        ("LazyConvTranspose2d", dict(out_channels=2, kernel_size=(2, 3), bias=False), (3, 4, 4)),
        ("LazyConvTranspose3d", dict(out_channels=2, kernel_size=2, padding=1), (1, 2, 3, 3, 3)),
    ],
)
def test_lazy_conv_transpose_as_pytorch(name, kwargs, shape):
    torch = _torch()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    m, t = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(m) == repr(t)
    y, ty = m(nl.from_numpy(x)), t(torch.from_numpy(x))
    assert type(m).__name__ == type(t).__name__ and repr(m) == repr(t)
    assert m.weight.shape == tuple(t.weight.shape)
    with torch.no_grad():
        t.weight.copy_(torch.from_numpy(m.weight.detach().numpy()))
        if t.bias is not None:
            t.bias.copy_(torch.from_numpy(m.bias.detach().numpy()))
        ty = t(torch.from_numpy(x))
    np.testing.assert_allclose(y.detach().numpy(), ty.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    "name, kwargs, shape",
    [
        ("LazyInstanceNorm1d", {}, (2, 3, 6)),
        ("LazyInstanceNorm2d", {}, (2, 3, 4, 4)),
        ("LazyInstanceNorm1d", dict(affine=False, track_running_stats=False), (2, 3, 4)),
        ("LazyInstanceNorm3d", dict(momentum=0.3), (2, 2, 3, 3, 3)),
    ],
)
@pytest.mark.filterwarnings("ignore:input's size")  # PyTorch's, for num_features left at 0
def test_lazy_instance_norm_as_pytorch(name, kwargs, shape):
    torch = _torch()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32) * 2 + 1
    m, t = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(m) == repr(t)
    y, ty = m(nl.from_numpy(x)), t(torch.from_numpy(x))
    assert type(m).__name__ == type(t).__name__ and repr(m) == repr(t)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    assert list(m.state_dict()) == list(t.state_dict())
    for key, value in t.state_dict().items():
        np.testing.assert_allclose(m.state_dict()[key].numpy(), value.numpy(), rtol=1e-5, atol=1e-6)
    m.eval(), t.eval()
    np.testing.assert_allclose(
        m(nl.from_numpy(x)).detach().numpy(),
        t(torch.from_numpy(x)).detach().numpy(),
        rtol=1e-4,
        atol=1e-5,
    )


def test_lazy_variants_gradients():
    c = nn.LazyConvTranspose2d(2, 2, stride=2, dtype=nl.float64)
    x = nl.randn(1, 3, 2, 2, dtype=nl.float64, requires_grad=True)
    c(x)
    assert nl.autograd.gradcheck(lambda t: c(t).tanh(), (x,))
    assert nl.autograd.gradgradcheck(lambda t: c(t).tanh(), (x,))
    n = nn.LazyInstanceNorm1d(dtype=nl.float64)
    xn = nl.randn(2, 2, 5, dtype=nl.float64, requires_grad=True)
    n(xn)
    assert n.weight.dtype == nl.float64 and n.running_mean.dtype == nl.float64
    assert nl.autograd.gradcheck(lambda t: n(t), (xn,))
    assert nl.autograd.gradgradcheck(lambda t: n(t), (xn,))


def test_lazy_conv_transpose_group_error():
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConvTranspose2d(4, 3, groups=2)(nl.ones(1, 3, 5, 5))


def test_uninitialized_buffer_as_pytorch():
    torch = _torch()
    b, tb = nn.UninitializedBuffer(), torch.nn.UninitializedBuffer()
    assert repr(b) == repr(tb) == "<UninitializedBuffer>"
    assert b.requires_grad is tb.requires_grad is False
    b.materialize((2, 3), dtype=nl.float64)
    assert b.shape == (2, 3) and b.dtype == nl.float64
    assert not isinstance(b, nn.UninitializedBuffer)
    module = nn.Module()
    module.stats = nn.UninitializedBuffer(persistent=False)
    assert "stats" in dict(module.named_buffers()) and "stats" not in module.state_dict()
