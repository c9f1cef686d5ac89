"""The backward engine: ordering, accumulation, graph freeing, autograd.grad, grad modes."""

import gc
import sys
import weakref

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd.function import Node


def test_long_chain_has_no_recursion_limit():
    # ten times Python's recursion limit: a recursive backward (or graph teardown) would fail
    x = nl.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(10 * sys.getrecursionlimit()):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_diamond_accumulates_in_dependency_order():
    x = nl.tensor([2.0], requires_grad=True)
    a = x * 3
    b = a * a + a  # a used twice: its node must run after both uses deliver gradients
    c = b + a.exp()
    c.backward()
    expected = (2 * 6 + 1) * 3 + np.exp(6.0) * 3
    np.testing.assert_allclose(x.grad.item(), expected, rtol=1e-6)


def test_shared_gradient_is_not_corrupted_by_accumulation():
    # Add passes the same gradient to both inputs; later accumulation must not alias it
    a = nl.tensor([1.0], requires_grad=True)
    b = nl.tensor([1.0], requires_grad=True)
    (a + b).backward()
    (a * 5).backward()
    assert a.grad.item() == 6.0 and b.grad.item() == 1.0


def test_grad_leaves_dot_grad_untouched_and_checks_unused():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    y = nl.tensor([3.0], requires_grad=True)
    out = (x * x).sum()
    (gx,) = nl.autograd.grad(out, x, retain_graph=True)
    assert repr(gx) == "tensor([2., 4.])" and x.grad is None
    with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
        nl.autograd.grad(out, [x, y], retain_graph=True)
    gx, gy = nl.autograd.grad(out, [x, y], allow_unused=True)
    assert gy is None


def test_grad_with_respect_to_an_intermediate():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    out = (h * h).sum()
    (gh,) = nl.autograd.grad(out, h)
    assert repr(gh) == "tensor([ 6., 12.])"


def test_grad_of_grad_with_create_graph():
    x = nl.tensor([3.0], requires_grad=True)
    (g,) = nl.autograd.grad(x**3, x, create_graph=True)
    assert g.requires_grad
    (gg,) = nl.autograd.grad(g, x, create_graph=True)
    (ggg,) = nl.autograd.grad(gg, x)
    assert (g.item(), gg.item(), ggg.item()) == (27.0, 18.0, 6.0)


def test_backward_create_graph_accumulates_differentiable_grad():
    x = nl.tensor([2.0], requires_grad=True)
    (x**2).backward(create_graph=True)
    assert x.grad.requires_grad
    g = x.grad
    x.grad = None
    g.backward()
    assert x.grad.item() == 2.0


def test_retain_graph_defaults_to_create_graph():
    x = nl.tensor([2.0], requires_grad=True)
    y = x * x
    y.backward(create_graph=True)
    y.backward()  # graph kept because create_graph was set
    assert x.grad.item() == 8.0


def test_graph_without_saved_tensors_may_be_traversed_again():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert repr(x.grad) == "tensor([2., 2.])"


def test_gradient_argument_shape_is_checked():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(nl.ones(3))


def test_backward_on_tensor_without_grad():
    with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
        nl.ones(2).sum().backward()


@pytest.mark.parametrize("mode", ["context", "decorator", "set_false"])
def test_no_grad_records_nothing(mode):
    x = nl.ones(2, requires_grad=True)
    if mode == "context":
        with nl.no_grad():
            y = x * 2
    elif mode == "decorator":
        y = nl.no_grad()(lambda t: t * 2)(x)
    else:
        with nl.set_grad_enabled(False):
            y = x * 2
    assert y.requires_grad is False and y.grad_fn is None
    assert nl.is_grad_enabled()


def test_enable_grad_inside_no_grad_and_set_grad_enabled_as_function():
    x = nl.ones(2, requires_grad=True)
    with nl.no_grad():
        with nl.enable_grad():
            assert (x * 2).requires_grad
        assert not (x * 2).requires_grad
    nl.set_grad_enabled(False)
    try:
        assert not nl.is_grad_enabled()
    finally:
        nl.set_grad_enabled(True)

    @nl.set_grad_enabled(False)
    def f(t):
        return t * 2

    assert nl.is_grad_enabled() and not f(x).requires_grad


def test_grad_fn_names_and_next_functions():
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    k = nl.tensor([10.0, 20.0])
    loss = (w * k).sum()
    assert loss.grad_fn.name() == "SumBackward0"
    mul = loss.grad_fn.next_functions[0][0]
    assert mul.name() == "MulBackward0"
    acc, none = mul.next_functions
    assert acc[0].name() == "AccumulateGrad" and acc[0].variable is w
    assert none == (None, 0)
    assert "grad_fn=<MulBackward0>" in repr(w * k)


@pytest.mark.parametrize(
    "reduce",
    [
        lambda L, x: x.sum(),
        lambda L, x: x.sum(0),
        lambda L, x: L.sum(x, (0, 1), keepdim=True),
        lambda L, x: x.sum(dtype=L.float64),
        lambda L, x: x.mean(),
        lambda L, x: L.mean(x, 1),
        lambda L, x: x.mean(dim=(0, 1)),
    ],
)
def test_sum_and_mean_name_their_node_by_overload_as_pytorch(reduce):
    # PyTorch: ...Backward0 for the reduction of all elements, ...Backward1 for given dims
    torch = pytest.importorskip("torch", reason="torch is the reference for node names")
    names = [reduce(L, L.ones(2, 3, requires_grad=True)).grad_fn.name() for L in (torch, nl)]
    assert names[1] == names[0]


def test_detach_shares_data_and_leaves_graph():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    d = (x * 2).detach()
    assert d.requires_grad is False and d.grad_fn is None and d.is_leaf
    d2 = x.detach()
    d2.zero_()
    assert x.tolist() == [0.0, 0.0]


def test_inplace_change_of_saved_tensor_raises():
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1
    c = b * b
    b.add_(1)
    with pytest.raises(
        RuntimeError,
        match=r"modified by an inplace operation: \[nnlite.FloatTensor \[2\]\], "
        r"which is output 0 of Add, is at version 1; expected version 0",
    ):
        c.sum().backward()


def test_inplace_change_of_saved_output_raises():
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    y = a.exp()
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises_but_not_under_no_grad():
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(
        RuntimeError,
        match="^a leaf Variable that requires grad is being used in an in-place operation.$",
    ):
        w.add_(1)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w[0] = 5.0
    with nl.no_grad():
        w.add_(1)
        w[0] = 5.0
    assert w.tolist() == [5.0, 3.0]


def test_inplace_on_non_leaf_is_recorded():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.add_(3)
    y.mul_(2)
    assert y.grad_fn.name() == "MulBackward0"
    y.sum().backward()
    assert repr(x.grad) == "tensor([4., 4.])"


def test_setitem_records_gradients():
    x = nl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = nl.tensor([10.0], requires_grad=True)
    y = x * 1
    y[1] = v * 2
    (y * nl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert repr(x.grad) == "tensor([1., 0., 3.])"
    assert repr(v.grad) == "tensor([4.])"


def test_advanced_index_backward_accumulates_repeats():
    x = nl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[nl.tensor([0, 0, 2, 0])].sum().backward()
    assert repr(x.grad) == "tensor([3., 0., 1.])"


def test_bool_mask_get_and_set():
    x = nl.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = x * 1
    y[y < 0] = 0.0
    y.sum().backward()
    assert repr(x.grad) == "tensor([1., 0., 1.])"


def test_tensor_hooks_see_and_replace_gradients():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    y = x * 3
    y.register_hook(lambda g: seen.append(g.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[1.0, 1.0]] and x.grad.tolist() == [30.0, 30.0]
    handle.remove()


def _live_nodes():
    gc.collect()
    # type(), not isinstance(): a dead weakref proxy left by another library raises on __class__
    return sum(1 for o in gc.get_objects() if issubclass(type(o), Node))


def test_graph_is_freed_after_backward():
    w = nl.randn(8, 8, requires_grad=True)
    x = nl.randn(4, 8)
    baseline = _live_nodes()
    refs = []
    # a node kept per step would leave 60 behind, far over the allowance of 2
    for i in range(60):
        h = (x @ w).tanh()
        loss = (h * h).mean()
        if i % 10 == 0:
            refs.append(weakref.ref(loss.grad_fn))
        loss.backward()
    del h, loss
    assert all(r() is None for r in refs)  # freed by reference counting, without gc
    assert _live_nodes() <= baseline + 2


def test_saved_tensors_are_released_after_backward():
    x = nl.randn(1000, requires_grad=True)
    y = x.exp()
    z = y * y
    node = z.grad_fn
    ref = weakref.ref(y)
    del y
    assert ref() is not None  # held by the graph for backward
    z.sum().backward()
    assert ref() is None
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _ = node.saved_tensors


def test_leaf_grad_owns_writable_memory():
    # sum's backward broadcasts a scalar; the stored .grad must still be an ordinary array
    x = nl.ones(3, requires_grad=True)
    x.sum().backward()
    assert x.grad._data.flags.writeable and x.grad._data.flags.c_contiguous
    x.grad.zero_()
    w = nl.ones(2, 3, requires_grad=True)
    (w.T * 2).sum().backward()
    assert w.grad._data.flags.c_contiguous and w.grad.tolist() == [[2.0] * 3] * 2
