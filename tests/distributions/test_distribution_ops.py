"""The built-in ops of ``nnlite.distributions`` as a gradient table of the completeness registry
(``tests/op_registry.py``): ``gradcheck``, ``gradgradcheck`` and values against PyTorch."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck
from nnlite.distributions.incomplete_gamma import gammainc

CONCENTRATIONS = np.array([0.5, 2.0, 7.5, 30.0])


def _gammainc_of(x):
    return gammainc(nl.tensor(CONCENTRATIONS, dtype=x.dtype), x)


# (name, input arrays, function of tensors, second_order)
OPS = [
    ("gammainc", [np.array([0.3, 1.7, 9.0, 26.0])], _gammainc_of, True),
    ("gammainc_upper_tail", [np.array([2.5, 6.0, 20.0, 45.0])], _gammainc_of, True),
]


@pytest.mark.parametrize("name,arrays,fn,second", OPS, ids=[row[0] for row in OPS])
def test_gradcheck(name, arrays, fn, second):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert gradcheck(fn, inputs)
    if second:
        assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name,arrays,fn,second", OPS, ids=[row[0] for row in OPS])
def test_values_match_torch(name, arrays, fn, second):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    ours = fn(*[nl.tensor(a, dtype=nl.float64) for a in arrays]).numpy()
    theirs = torch.special.gammainc(torch.tensor(CONCENTRATIONS), torch.tensor(arrays[0]))
    # PyTorch's own value is good to about 1e-9 near a = x = 30 (0.2407381659013928 exactly)
    np.testing.assert_allclose(ours, theirs.numpy(), rtol=1e-8, atol=1e-14)


def test_gammainc_against_exact_values():
    # P(1, x) = 1 - exp(-x), P(2, x) = 1 - (1 + x) exp(-x), in both the series and the fraction
    x = nl.tensor(np.array([0.4, 3.0, 25.0]))
    for a, exact in ((1.0, lambda v: 1 - np.exp(-v)), (2.0, lambda v: 1 - (1 + v) * np.exp(-v))):
        ours = gammainc(nl.tensor(np.full(3, a)), x).numpy()
        np.testing.assert_allclose(ours, exact(x.numpy()), rtol=1e-13)


def test_the_gamma_sample_derivative_is_not_differentiated_twice():
    alpha = nl.tensor(np.array([1.5, 3.0]), requires_grad=True)
    nl.manual_seed(0)
    sample = nl.distributions.Gamma(alpha, 1.0).rsample()
    (first,) = nl.autograd.grad(sample.sum(), alpha, create_graph=True)
    nl.manual_seed(0)
    nl.distributions.Gamma(alpha, 1.0).rsample().sum().backward()
    np.testing.assert_allclose(first.detach().numpy(), alpha.grad.numpy(), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="_standard_gamma_grad"):
        first.sum().backward()
