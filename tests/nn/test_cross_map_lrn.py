"""nn.CrossMapLRN2d: PyTorch's legacy values and gradients (which are not derivatives of each
other: PyTorch's own gradcheck of the layer fails), its repr and errors."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "args, shape",
    [((3,), (2, 5, 3, 3)), ((2, 0.1, 0.5, 2.0), (1, 6, 2, 4)), ((5, 0.3), (2, 3, 2, 2))],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_as_pytorch(args, shape, dtype):
    torch = _torch()
    rng = np.random.default_rng(0)
    x, g = rng.standard_normal(shape).astype(dtype), rng.standard_normal(shape).astype(dtype)
    m, t = nn.CrossMapLRN2d(*args), torch.nn.CrossMapLRN2d(*args)
    assert repr(m) == repr(t)
    ours, theirs = nl.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    y, ty = m(ours), t(theirs)
    assert y.dtype == nl.tensor(x).dtype and y.grad_fn.name() == ty.grad_fn.name()
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=tol, atol=tol)
    y.backward(nl.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=tol, atol=tol)


def test_errors_as_pytorch():
    torch = _torch()
    with pytest.raises(ValueError) as ours:
        nn.CrossMapLRN2d(3)(nl.ones(2, 3, 3))
    with pytest.raises(ValueError) as theirs:
        torch.nn.CrossMapLRN2d(3)(torch.ones(2, 3, 3))
    assert str(ours.value) == str(theirs.value)
