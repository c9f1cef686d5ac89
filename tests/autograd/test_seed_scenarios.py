"""The autograd edge cases of the seed list, with PyTorch's numbers and messages."""

import warnings

import numpy as np
import pytest

import nnlite as nl

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


@pytest.fixture
def k():
    return nl.tensor([10.0, 20.0])


def test_leaf_gets_grad_constant_and_intermediate_do_not(k):
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    h = w * k
    loss = h.sum()
    loss.backward()
    assert repr(w.grad) == "tensor([10., 20.])"
    assert k.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert h.grad is None


def test_second_backward_raises_pytorch_message(k):
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * k).sum()
    loss.backward()
    with pytest.raises(RuntimeError) as info:
        loss.backward()
    assert str(info.value).splitlines()[0] == SECOND_BACKWARD


def test_retain_graph_accumulates(k):
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * k).sum()
    loss.backward(retain_graph=True)
    loss.backward()
    assert repr(w.grad) == "tensor([20., 40.])"


def test_retain_grad(k):
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    h = w * k
    h.retain_grad()
    (h * h).sum().backward()
    assert repr(h.grad) == "tensor([20., 80.])"
    assert repr(w.grad) == "tensor([ 200., 1600.])"


def test_non_scalar_backward(k):
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="^grad can be implicitly created only for scalar outputs$"
    ):
        (w * k).backward()


def test_integer_tensor_cannot_require_grad():
    with pytest.raises(
        RuntimeError,
        match="^Only Tensors of floating point and complex dtype can require gradients$",
    ):
        nl.tensor([1, 2], requires_grad=True)


def test_non_leaf_grad_stays_none_with_warning(k):
    w = nl.ones(2, requires_grad=True) * 0.5
    (w * k).sum().backward()
    assert w.is_leaf is False
    with pytest.warns(
        UserWarning,
        match="The .grad attribute of a Tensor that is not a leaf Tensor is being accessed",
    ):
        assert w.grad is None


def test_optimizer_rejects_non_leaf(k):
    optim = pytest.importorskip("nnlite.optim")
    w = nl.ones(2, requires_grad=True) * 0.5
    with pytest.raises(ValueError, match="^can't optimize a non-leaf Tensor$"):
        optim.SGD([w], lr=0.1)


def test_requires_grad_returns_same_object():
    t = nl.tensor([1.0, 2.0])
    p = t.requires_grad_()
    assert p is t and t.requires_grad


def _mlp(lib, params, x, y):
    w1, b1, w2, b2 = params
    h = (x @ w1.T + b1).relu()
    out = h @ w2.T + b2
    return ((out - y) ** 2).mean()


def test_two_layer_mlp_matches_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    shapes = [(16, 8), (16,), (4, 16), (4,)]
    values = [rng.standard_normal(s).astype(np.float32) * 0.5 for s in shapes]
    x = rng.standard_normal((32, 8)).astype(np.float32)
    y = rng.standard_normal((32, 4)).astype(np.float32)
    ours = [nl.tensor(v, requires_grad=True) for v in values]
    theirs = [torch.tensor(v, requires_grad=True) for v in values]
    loss = _mlp(nl, ours, nl.tensor(x), nl.tensor(y))
    ref = _mlp(torch, theirs, torch.tensor(x), torch.tensor(y))
    loss.backward()
    ref.backward()
    # the seed reports "loss diff 2.4e-07, grad worst 4.5e-08": float32 rounding
    assert abs(loss.item() - ref.item()) < 1e-6
    worst = max(np.abs(a.grad.numpy() - b.grad.numpy()).max() for a, b in zip(ours, theirs))
    assert worst < 1e-6
