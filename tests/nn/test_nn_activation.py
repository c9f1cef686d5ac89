"""Activations beyond the op table: values at the kink and in-place forms."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn


def test_leaky_relu_gradient_at_zero_is_the_slope():
    # PyTorch's rule: x > 0 takes the identity, everything else the slope
    x = nl.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    F.leaky_relu(x, 0.1).sum().backward()
    assert x.grad.tolist() == pytest.approx([0.1, 0.1, 1.0])


def test_leaky_relu_default_slope_and_in_place():
    x = nl.tensor([-1.0, 2.0])
    y = F.leaky_relu(x, inplace=True)
    assert y is x and x.tolist() == pytest.approx([-0.01, 2.0])
    layer = nn.LeakyReLU()
    assert layer.negative_slope == 0.01 and not layer.inplace
    assert repr(layer) == "LeakyReLU(negative_slope=0.01)"
    assert repr(nn.LeakyReLU(0.2, inplace=True)) == "LeakyReLU(negative_slope=0.2, inplace=True)"


def test_leaky_relu_in_place_on_a_leaf_that_requires_grad_raises():
    with pytest.raises(
        RuntimeError,
        match="a leaf Variable that requires grad is being used in an in-place operation",
    ):
        F.leaky_relu(nl.ones(2, requires_grad=True), inplace=True)


def test_leaky_relu_in_place_keeps_the_graph():
    x = nl.tensor([-2.0, 3.0], requires_grad=True)
    h = x * 1.0
    F.leaky_relu_(h, 0.5)
    h.sum().backward()
    assert x.grad.tolist() == [0.5, 1.0]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_float32_matches_pytorch_over_a_wide_range(approximate):
    # float32 has its own (faster) erf; values and gradients must stay at float32's resolution
    torch = pytest.importorskip("torch")
    x = np.linspace(-12, 12, 4001, dtype=np.float32)
    ours = nl.tensor(x, requires_grad=True)
    theirs = torch.tensor(x, requires_grad=True)
    out_ours = F.gelu(ours, approximate=approximate)
    out_theirs = torch.nn.functional.gelu(theirs, approximate=approximate)
    (out_ours * nl.tensor(x)).sum().backward()
    (out_theirs * torch.tensor(x)).sum().backward()
    assert out_ours.dtype == nl.float32
    np.testing.assert_allclose(
        out_ours.detach().numpy(), out_theirs.detach().numpy(), rtol=1e-6, atol=2e-6
    )
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6, atol=2e-5)
