"""Lazy layers: shapes read from the first input, parameters shaped in place (an optimizer built
before forward trains them), the layer becomes its eager class; results compared with PyTorch's
eager layer given the same weights, gradients checked by finite differences."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


def test_lazy_linear_infers_in_features_and_becomes_linear():
    m = nn.LazyLinear(3)
    assert isinstance(m.weight, nn.UninitializedParameter)
    assert repr(m.weight) == "<UninitializedParameter>"
    assert m.has_uninitialized_params()
    y = m(nl.ones(2, 5))
    assert y.shape == (2, 3)
    assert type(m) is nn.Linear and type(m.weight) is nn.Parameter
    assert m.in_features == 5 and m.weight.shape == (3, 5) and m.bias.shape == (3,)
    assert repr(m) == "Linear(in_features=5, out_features=3, bias=True)"
    bound = 1 / np.sqrt(5)  # PyTorch's initialisation bound for fan-in 5
    assert np.abs(m.weight.detach().numpy()).max() <= bound
    assert np.abs(m.weight.detach().numpy()).max() > 0


def test_optimizer_built_before_the_first_forward_trains_the_parameters():
    m = nn.LazyLinear(1)
    opt = nl.optim.SGD(m.parameters(), lr=0.1)
    x = nl.randn(8, 4)
    m(x)  # materialises
    before = m.weight.detach().clone()
    loss = (m(x) ** 2).mean()
    loss.backward()
    opt.step()
    assert not np.array_equal(before.numpy(), m.weight.detach().numpy())


@pytest.mark.parametrize(
    "lazy, eager, shape",
    [
        (lambda: nn.LazyConv1d(4, 3, padding=1), "Conv1d", (2, 3, 7)),
        (lambda: nn.LazyConv2d(4, 3, stride=2, groups=1), "Conv2d", (2, 3, 7, 7)),
        (lambda: nn.LazyConv2d(4, (3, 1), groups=2), "Conv2d", (2, 6, 5, 5)),
        (lambda: nn.LazyConv3d(2, 2), "Conv3d", (1, 3, 4, 4, 4)),
    ],
)
def test_lazy_conv_as_the_eager_pytorch_conv(lazy, eager, shape):
    torch = _torch()
    m = lazy()
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    y = m(nl.from_numpy(x))
    assert type(m).__name__ == eager and m.in_channels == shape[1]
    t = getattr(torch.nn, eager)(
        shape[1],
        m.out_channels,
        m.kernel_size,
        stride=m.stride,
        padding=m.padding,
        groups=m.groups,
    )
    with torch.no_grad():
        t.weight.copy_(torch.from_numpy(m.weight.detach().numpy()))
        t.bias.copy_(torch.from_numpy(m.bias.detach().numpy()))
    np.testing.assert_allclose(
        y.detach().numpy(), t(torch.from_numpy(x)).detach().numpy(), rtol=1e-4, atol=1e-5
    )


def test_lazy_conv_unbatched_input_and_group_error():
    m = nn.LazyConv2d(2, 3)
    assert m(nl.ones(3, 5, 5)).shape == (2, 3, 3)
    with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
        nn.LazyConv2d(4, 3, groups=2)(nl.ones(1, 3, 5, 5))


@pytest.mark.parametrize(
    "lazy, eager, shape",
    [
        (nn.LazyBatchNorm1d, "BatchNorm1d", (6, 3)),
        (nn.LazyBatchNorm1d, "BatchNorm1d", (6, 3, 4)),
        (nn.LazyBatchNorm2d, "BatchNorm2d", (4, 3, 5, 5)),
        (nn.LazyBatchNorm3d, "BatchNorm3d", (2, 3, 2, 2, 2)),
    ],
)
def test_lazy_batch_norm_as_pytorch(lazy, eager, shape):
    torch = _torch()
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    m = lazy()
    y = m(nl.from_numpy(x))
    t = getattr(torch.nn, eager)(shape[1])
    ty = t(torch.from_numpy(x))
    assert type(m).__name__ == eager and m.num_features == shape[1]
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-4, atol=1e-5)
    for name in ("running_mean", "running_var"):
        np.testing.assert_allclose(
            getattr(m, name).numpy(), getattr(t, name).numpy(), rtol=1e-5, atol=1e-6
        )
    assert sorted(m.state_dict()) == sorted(t.state_dict())


def test_lazy_batch_norm_without_affine():
    m = nn.LazyBatchNorm2d(affine=False)
    m(nl.randn(2, 3, 2, 2))
    assert m.weight is None and m.running_mean.shape == (3,)


def test_lazy_layers_gradients():
    m = nn.LazyLinear(2, dtype=nl.float64)
    x = nl.randn(3, 4, dtype=nl.float64, requires_grad=True)
    m(x)
    assert m.weight.dtype == nl.float64
    assert nl.autograd.gradcheck(lambda t: m(t).tanh(), (x,))
    assert nl.autograd.gradgradcheck(lambda t: m(t).tanh(), (x,))
    c = nn.LazyConv2d(2, 2, dtype=nl.float64)
    xc = nl.randn(1, 2, 3, 3, dtype=nl.float64, requires_grad=True)
    c(xc)
    assert nl.autograd.gradcheck(lambda t: c(t).tanh(), (xc,))


def test_uninitialized_parameter_materialize():
    p = nn.UninitializedParameter()
    p.materialize((2, 3))
    assert type(p) is nn.Parameter and p.shape == (2, 3) and p.requires_grad
