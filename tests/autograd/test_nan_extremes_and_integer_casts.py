"""Gradients of max/min/amax/amin over data holding NaN, and integer or bool casts of a tensor
that requires grad, against PyTorch (and hand-derived values)."""

import math

import numpy as np
import pytest

import nnlite as nl

NAN = float("nan")


def test_max_and_min_over_all_elements_give_the_gradient_to_the_nan_elements():
    # the result is NaN because of the two NaN elements: they share the gradient evenly
    for reduce in ("max", "min"):
        x = nl.tensor([1.0, NAN, 3.0, NAN], requires_grad=True)
        getattr(x, reduce)().backward()
        assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    x = nl.tensor([1.0, NAN, 3.0, 2.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0, 0.0]


def test_ties_without_nan_still_share_the_gradient():
    x = nl.tensor([3.0, 1.0, 3.0], requires_grad=True)
    x.max().backward()
    assert x.grad.tolist() == [0.5, 0.0, 0.5]


@pytest.mark.parametrize(
    "data",
    [
        [[1.0, NAN], [3.0, 4.0]],
        [[NAN, NAN], [3.0, 3.0]],
        [[2.0, 2.0], [5.0, -1.0]],
    ],
    ids=["one-nan", "nan-row-and-tie", "tie"],
)
@pytest.mark.parametrize(
    "reduce",
    [
        lambda x: x.max(),
        lambda x: x.min(),
        lambda x: x.max(1)[0].sum(),
        lambda x: x.min(0)[0].sum(),
        lambda x: x.amax(),
        lambda x: x.amin(),
        lambda x: x.amax(1).sum(),
        lambda x: x.amin(dim=0, keepdim=True).sum(),
        lambda x: x.amax(dim=(0, 1)),
    ],
    ids=[
        "max",
        "min",
        "max-dim",
        "min-dim",
        "amax",
        "amin",
        "amax-dim",
        "amin-keepdim",
        "amax-dims",
    ],
)
def test_gradients_over_nan_and_ties_match_pytorch(data, reduce):
    torch = pytest.importorskip("torch", reason="the expected gradients come from PyTorch")
    x = nl.tensor(data, requires_grad=True)
    reduce(x).backward()
    tx = torch.tensor(data, requires_grad=True)
    reduce(tx).backward()
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_amax_gradient_of_gradient():
    x = nl.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]], dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: (t * t).amax(1), (x,))


@pytest.mark.parametrize("cast", ["long", "int", "bool", "byte"])
def test_an_integer_or_bool_cast_leaves_the_graph(cast):
    x = nl.tensor([1.5, 2.5], requires_grad=True)
    y = getattr(x, cast)()
    assert y.requires_grad is False and y.grad_fn is None and y.is_leaf
    assert x.to(nl.int64).requires_grad is False
    assert x.float().requires_grad and x.double().grad_fn is not None
    with pytest.raises(RuntimeError, match="does not require grad"):
        y.float().sum().backward()  # PyTorch's error, not a silent grad=None


def test_an_integer_cast_matches_pytorch():
    torch = pytest.importorskip("torch", reason="the expected flags come from PyTorch")
    for cast in ("long", "int", "bool", "half", "double"):
        ours = getattr(nl.tensor([1.5], requires_grad=True), cast)()
        theirs = getattr(torch.tensor([1.5], requires_grad=True), cast)()
        assert ours.requires_grad == theirs.requires_grad, cast
    assert math.isnan(nl.tensor([NAN]).max().item())
