"""nnlite.linalg: torch.linalg's norms, against PyTorch."""

import math

import numpy as np
import pytest

import nnlite as nl

CASES = [
    # (shape, kwargs of norm)
    ((5,), {}),
    ((5,), {"ord": 1}),
    ((5,), {"ord": math.inf}),
    ((5,), {"ord": -math.inf}),
    ((5,), {"ord": 3}),
    ((3, 4), {}),
    ((3, 4), {"ord": "fro"}),
    ((3, 4), {"ord": 1, "dim": 1}),
    ((3, 4), {"ord": 2, "dim": 0, "keepdim": True}),
    ((2, 3, 4), {"ord": "fro", "dim": (1, 2)}),
    ((2, 3, 4), {"ord": "fro", "dim": (0, 2), "keepdim": True}),
]


@pytest.mark.parametrize(("shape", "kwargs"), CASES, ids=[f"{s}-{k}" for s, k in CASES])
def test_norm_equals_torch_linalg_norm(shape, kwargs):
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(0).standard_normal(shape)
    ours = nl.linalg.norm(nl.tensor(data), **kwargs)
    theirs = torch.linalg.norm(torch.tensor(data), **kwargs)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_norm_without_ord_is_the_2_norm_of_all_elements():
    x = nl.tensor([[3.0, 0.0], [0.0, 4.0]])
    assert nl.linalg.norm(x).item() == 5.0
    assert nl.linalg.vector_norm(x).item() == 5.0


def test_norm_dtype_computes_in_that_type():
    x = nl.tensor([1.0, 2.0, 2.0])
    assert nl.linalg.vector_norm(x, dtype=nl.float64).dtype == nl.float64
    assert nl.linalg.norm(x, ord=2, dtype=nl.float64).item() == 3.0


def test_matrix_norm_gradient_matches_finite_differences():
    x = nl.tensor(np.random.default_rng(1).standard_normal((3, 4)), requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: nl.linalg.matrix_norm(t), (x,))


@pytest.mark.parametrize("ord", [3, "max"])
def test_matrix_norm_unknown_orders_are_refused_by_name(ord):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=f"Order {ord} not supported"):
        nl.linalg.matrix_norm(nl.ones(2, 2), ord=ord)
    with pytest.raises(RuntimeError, match=f"Order {ord} not supported"):
        torch.linalg.matrix_norm(torch.ones(2, 2), ord=ord)
