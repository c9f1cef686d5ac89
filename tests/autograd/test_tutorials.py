"""The seeds' tensor tutorial, autograd tutorial and Simple Grad notebook, with nl for torch."""

import numpy as np
import pytest

import nnlite as nl


def test_tensor_tutorial_cells():
    data = [[1, 2], [3, 4]]
    x_data = nl.tensor(data)
    assert repr(x_data) == "tensor([[1, 2],\n        [3, 4]])"
    np_array = np.array(data, dtype=np.int32)
    assert repr(nl.from_numpy(np_array)) == "tensor([[1, 2],\n        [3, 4]], dtype=nnlite.int32)"
    x_ones = nl.ones_like(x_data)
    assert x_ones.dtype == nl.int64 and repr(x_ones) == "tensor([[1, 1],\n        [1, 1]])"
    x_rand = nl.rand_like(x_data, dtype=nl.float32)
    assert x_rand.dtype == nl.float32 and x_rand.shape == (2, 2)
    assert ((x_rand.numpy() >= 0) & (x_rand.numpy() < 1)).all()
    shape = (
        2,
        3,
    )
    assert repr(nl.ones(shape)) == "tensor([[1., 1., 1.],\n        [1., 1., 1.]])"
    assert repr(nl.zeros(shape)) == "tensor([[0., 0., 0.],\n        [0., 0., 0.]])"
    tensor = nl.rand(3, 4)
    assert f"{tensor.shape}" == "nnlite.Size([3, 4])"
    assert f"{tensor.dtype}" == "nnlite.float32"
    assert f"{tensor.device}" == "cpu"

    tensor = nl.ones(4, 4)
    tensor[:, 1] = 0
    row = "[1., 0., 1., 1.]"
    assert repr(tensor) == "tensor([" + ",\n        ".join([row] * 4) + "])"
    t1 = nl.cat([tensor, tensor, tensor], dim=1)
    assert repr(t1).splitlines()[0] == "tensor([[1., 0., 1., 1., 1., 0., 1., 1., 1., 0., 1., 1.],"
    assert repr(tensor.mul(tensor)) == repr(tensor * tensor) == repr(tensor)
    assert repr(tensor.matmul(tensor.T)) == repr(tensor @ tensor.T) == repr(nl.full((4, 4), 3.0))
    tensor.add_(5)
    assert repr(tensor).splitlines()[0] == "tensor([[6., 5., 6., 6.],"

    t = nl.ones(5)
    n = t.numpy()
    t.add_(1)
    assert repr(t) == "tensor([2., 2., 2., 2., 2.])" and n.tolist() == [2.0] * 5
    n = np.ones(5)
    t = nl.from_numpy(n)
    np.add(n, 1, out=n)
    assert repr(t) == "tensor([2., 2., 2., 2., 2.], dtype=nnlite.float64)"


def test_autograd_tutorial_external_gradient():
    a = nl.tensor([2.0, 3.0], requires_grad=True)
    b = nl.tensor([6.0, 4.0], requires_grad=True)
    Q = 3 * a**3 - b**2
    external_grad = nl.tensor([1.0, 1.0])
    Q.backward(gradient=external_grad)
    assert (9 * a**2 == a.grad).all()
    assert (-2 * b == b.grad).all()
    assert repr(a.grad) == "tensor([36., 81.])" and repr(b.grad) == "tensor([-12.,  -8.])"


def test_autograd_tutorial_requires_grad_propagates():
    x = nl.rand(5, 5)
    y = nl.rand(5, 5)
    z = nl.rand((5, 5), requires_grad=True)
    assert (x + y).requires_grad is False
    assert (x + z).requires_grad is True


def _simple_grad_values(lib, use_function=None):
    a = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64, requires_grad=True)
    simple = use_function or (lambda a, b: (a + b) * b)
    L0 = simple(a, b).sum()
    dL0_da, dL0_db = lib.autograd.grad(L0, [a, b], create_graph=True)
    L1 = (dL0_da * dL0_da + dL0_db * dL0_db).sum()
    dL1_da, dL1_db = lib.autograd.grad(L1, [a, b])
    return [t.detach().numpy().copy() for t in (L0, dL0_da, dL0_db, L1, dL1_da, dL1_db)]


class Simple(nl.autograd.Function):
    """The notebook's aggregate op ``simple(a, b) = (a + b) * b`` with a hand-written backward.

    The backward uses differentiable Tensor ops (the notebook's ``simple_variable`` lesson), so
    second-order gradients through it are right.
    """

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return (a + b) * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * (a + 2 * b)


def test_simple_grad_higher_order_matches_hand_values():
    L0, da, db, L1, dL1_da, dL1_db = _simple_grad_values(nl)
    # dL0/da = b, dL0/db = a + 2b; L1 = sum(b^2 + (a + 2b)^2)
    a, b = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    np.testing.assert_array_equal(da, b)
    np.testing.assert_array_equal(db, a + 2 * b)
    np.testing.assert_array_equal(dL1_da, 2 * (a + 2 * b))
    np.testing.assert_array_equal(dL1_db, 2 * b + 4 * (a + 2 * b))
    assert L1 == np.sum(b**2 + (a + 2 * b) ** 2)


def test_simple_grad_equals_pytorch():
    torch = pytest.importorskip("torch")
    for ours, theirs in zip(_simple_grad_values(nl), _simple_grad_values(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=0)


def test_custom_function_second_order_equals_composed():
    composed = _simple_grad_values(nl)
    custom = _simple_grad_values(nl, use_function=Simple.apply)
    for c, f in zip(composed, custom):
        np.testing.assert_array_equal(c, f)


def test_custom_function_gradgradcheck():
    a = nl.tensor([1.0, -2.0, 0.5], dtype=nl.float64, requires_grad=True)
    b = nl.tensor([0.3, 2.0, -1.5], dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(Simple.apply, (a, b))
    assert nl.autograd.gradgradcheck(Simple.apply, (a, b))


def test_simple_grad_none_means_zero():
    # the notebook's zero rule: a value not on the path to L gets no gradient at all
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    b = nl.tensor([3.0, 4.0], requires_grad=True)
    unused = (b * 2).sum()
    L = (a * a).sum()
    ga, gb = nl.autograd.grad(L, [a, b], allow_unused=True)
    assert gb is None and repr(ga) == "tensor([2., 4.])"
    del unused
