"""log(0), x/0, sqrt(-1), overflow: the same inf and nan as PyTorch, and no numpy
RuntimeWarning (PyTorch prints none), in forward and in backward."""

import warnings

import numpy as np
import pytest

import nnlite as nl

torch = pytest.importorskip("torch")

CASES = [
    ("log", lambda m, x: m.log(x), [0.0, -1.0, 2.0]),
    ("div", lambda m, x: x / (x - x), [0.0, 1.0, -2.0]),
    ("rdiv", lambda m, x: 1.0 / x, [0.0, 1.0, -2.0]),
    ("sqrt", lambda m, x: m.sqrt(x), [-1.0, 0.0, 4.0]),
    ("rsqrt", lambda m, x: x.rsqrt(), [0.0, 4.0, 1.0]),
    ("exp", lambda m, x: (x * 1000.0).exp(), [1.0, -1.0, 0.0]),
    ("pow", lambda m, x: x**-1.0, [0.0, 2.0, -1.0]),
    ("rpow", lambda m, x: 0.0**x, [-1.0, 2.0, 0.5]),
    ("softmax of -inf", lambda m, x: m.log(x * 0.0).softmax(0), [1.0, 2.0, 3.0]),
    ("log_softmax of -inf", lambda m, x: m.log(x * 0.0).log_softmax(0), [1.0, 2.0, 3.0]),
]


@pytest.mark.parametrize("name, fn, values", CASES, ids=[c[0] for c in CASES])
def test_quiet_inf_and_nan_like_torch(name, fn, values):
    ours = nl.tensor(values, dtype=nl.float64, requires_grad=True)
    theirs = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning fails the test
        out = fn(nl, ours)
        out.sum().backward()
    expected = fn(torch, theirs)
    expected.sum().backward()
    np.testing.assert_array_equal(out.detach().numpy(), expected.detach().numpy())
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_floor_division_and_remainder_by_zero_are_quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = [(nl.tensor([1.0, -1.0, 0.0]) // 0).tolist(), (nl.tensor([1.0, -1.0]) % 0).tolist()]
    theirs = [
        (torch.tensor([1.0, -1.0, 0.0]) // 0).tolist(),
        (torch.tensor([1.0, -1.0]) % 0).tolist(),
    ]
    np.testing.assert_array_equal(np.array(ours[0]), np.array(theirs[0]))
    np.testing.assert_array_equal(np.array(ours[1]), np.array(theirs[1]))


def test_numpy_outside_nnlite_keeps_its_warnings():
    nl.log(nl.tensor([0.0]))
    with pytest.warns(RuntimeWarning, match="divide by zero"):
        np.log(np.array([0.0]))
