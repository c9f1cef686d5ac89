"""nn.init: PyTorch's gains, fans and bounds; in place, outside the graph, reproducible with
``nl.manual_seed``; and the default initialisation of the layers."""

import math

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import init


@pytest.mark.parametrize(
    "args",
    [
        ("linear",),
        ("conv2d",),
        ("sigmoid",),
        ("tanh",),
        ("relu",),
        ("leaky_relu",),
        ("leaky_relu", 0.2),
        ("leaky_relu", math.sqrt(5)),
        ("selu",),
    ],
)
def test_calculate_gain_matches_torch(args):
    torch = pytest.importorskip("torch")
    assert init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope"):
        init.calculate_gain("leaky_relu", "x")


def _std(t):
    return float(t.detach().numpy().std())


@pytest.mark.parametrize(
    "fn,kwargs,expected_std",
    [
        (init.kaiming_uniform_, dict(a=math.sqrt(5)), 1 / math.sqrt(400) / math.sqrt(3)),
        (init.kaiming_uniform_, dict(nonlinearity="relu"), math.sqrt(2 / 400)),
        (init.kaiming_normal_, dict(mode="fan_out", nonlinearity="relu"), math.sqrt(2 / 300)),
        (init.xavier_uniform_, dict(), math.sqrt(2 / 700)),
        (init.xavier_normal_, dict(gain=2.0), 2 * math.sqrt(2 / 700)),
        (init.normal_, dict(std=0.02), 0.02),
        (init.uniform_, dict(a=-1, b=1), 1 / math.sqrt(3)),
    ],
)
def test_initialisers_have_the_right_spread(fn, kwargs, expected_std):
    w = nn.Parameter(nl.empty(300, 400))
    out = fn(w, **kwargs)
    assert out is w and w.requires_grad and w.grad_fn is None
    assert _std(w) == pytest.approx(expected_std, rel=0.03)


def test_uniform_bounds_and_constants():
    w = nl.empty(50, 60)
    init.kaiming_uniform_(w, a=math.sqrt(5))
    assert np.abs(w.numpy()).max() <= 1 / math.sqrt(60)
    init.trunc_normal_(w, mean=0.5, std=1.0, a=-0.1, b=0.3)
    assert w.numpy().min() >= -0.1 and w.numpy().max() <= 0.3
    init.trunc_normal_(w, std=0.02)
    assert np.abs(w.numpy()).max() <= 2.0 and _std(w) == pytest.approx(0.02, rel=0.1)
    assert init.constant_(w, 0.25).numpy().tolist()[0][0] == 0.25
    assert not init.zeros_(w).numpy().any()
    assert (init.ones_(w).numpy() == 1).all()
    assert init.eye_(nl.empty(2, 3)).tolist() == [[1, 0, 0], [0, 1, 0]]
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        init.xavier_uniform_(nl.empty(3))
    with pytest.raises(ValueError, match="Mode fan_up not supported"):
        init.kaiming_normal_(nl.empty(3, 3), mode="fan_up")


def test_reproducible_with_manual_seed():
    nl.manual_seed(42)
    a = nn.Linear(10, 5).weight.detach().numpy().copy()
    b = nn.Conv2d(3, 4, 3).weight.detach().numpy().copy()
    nl.manual_seed(42)
    assert np.array_equal(nn.Linear(10, 5).weight.detach().numpy(), a)
    assert np.array_equal(nn.Conv2d(3, 4, 3).weight.detach().numpy(), b)
    nl.manual_seed(43)
    assert not np.array_equal(nn.Linear(10, 5).weight.detach().numpy(), a)


def test_in_place_init_bumps_version_and_records_nothing():
    w = nn.Parameter(nl.empty(3, 3))
    y = w * nl.ones(3, 3, requires_grad=True)  # saves w for the other factor's gradient
    init.normal_(w)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        (y * w).sum().backward()


@pytest.mark.parametrize(
    "make,bound_of",
    [
        (lambda: nn.Linear(400, 120), lambda m: 1 / math.sqrt(400)),
        (lambda: nn.Conv2d(6, 16, 5), lambda m: 1 / math.sqrt(6 * 25)),
        (lambda: nn.Conv2d(4, 8, 3, groups=2), lambda m: 1 / math.sqrt(2 * 9)),
    ],
)
def test_default_layer_initialisation_is_pytorchs(make, bound_of):
    m = make()
    bound = bound_of(m)
    w, b = m.weight.detach().numpy(), m.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound  # uniform over the whole range
    assert w.dtype == np.float32


def test_batchnorm_default_initialisation():
    bn = nn.BatchNorm2d(4)
    assert bn.weight.tolist() == [1.0] * 4 and bn.bias.tolist() == [0.0] * 4
    assert bn.running_mean.tolist() == [0.0] * 4 and bn.running_var.tolist() == [1.0] * 4
    assert bn.num_batches_tracked.item() == 0 and bn.num_batches_tracked.dtype == nl.int64


def test_layer_dtype_argument():
    assert nn.Linear(2, 3, dtype=nl.float64).weight.dtype == nl.float64
    assert nn.Conv2d(1, 1, 1, dtype=nl.float64).bias.dtype == nl.float64
    with pytest.raises(RuntimeError, match="cuda"):
        nn.Linear(2, 3, device="cuda")


@pytest.mark.parametrize("shape", [(3, 5), (6, 4), (8, 2, 3, 3)])
def test_orthogonal_gives_orthonormal_rows_or_columns_times_gain(shape):
    w = nl.empty(*shape)
    assert nn.init.orthogonal_(w, gain=2.0) is w
    flat = w.numpy().reshape(shape[0], -1).astype(np.float64)
    small = min(flat.shape)
    product = flat @ flat.T if flat.shape[0] <= flat.shape[1] else flat.T @ flat
    np.testing.assert_allclose(product, 4.0 * np.eye(small), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        nn.init.orthogonal_(nl.empty(3))
