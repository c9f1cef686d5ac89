"""Tensor.register_post_accumulate_grad_hook and queue_callback: what gradient-synchronising code
(DistributedDataParallel) builds on. PyTorch is the oracle where it is installed."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd.engine import queue_callback


def test_hook_sees_the_accumulated_grad_and_may_update_the_tensor():
    v = nl.tensor([0.0, 0.0, 0.0], requires_grad=True)
    seen = []

    def sgd(p):
        seen.append(p.grad.tolist())
        p.add_(p.grad * -0.01)  # backward runs under no-grad: in-place on the leaf is allowed

    handle = v.register_post_accumulate_grad_hook(sgd)
    v.backward(nl.tensor([1.0, 2.0, 3.0]))
    assert seen == [[1.0, 2.0, 3.0]]
    np.testing.assert_allclose(v.detach().numpy(), [-0.01, -0.02, -0.03], rtol=1e-6)
    assert repr(v) == "tensor([-0.0100, -0.0200, -0.0300], requires_grad=True)"
    # a second backward: the hook sees the sum, after accumulation
    (v * 2).sum().backward()
    assert seen[-1] == [3.0, 4.0, 5.0]
    handle.remove()
    v.sum().backward()
    assert len(seen) == 2


def test_hook_runs_once_per_backward_for_a_leaf_used_many_times():
    w = nl.tensor([1.0, 2.0], requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda p: calls.append(p.grad.tolist()))
    (w * w + w * 3 + w.exp()).sum().backward()
    assert len(calls) == 1
    np.testing.assert_allclose(
        calls[0], 2 * np.array([1.0, 2.0]) + 3 + np.exp([1.0, 2.0]), rtol=1e-6
    )


def test_hooks_run_in_backward_order_and_after_register_hook():
    a = nl.tensor([1.0], requires_grad=True)
    b = nl.tensor([1.0], requires_grad=True)
    order = []
    a.register_hook(lambda g: order.append("pre a") or g * 10)
    a.register_post_accumulate_grad_hook(lambda p: order.append(("post a", p.grad.item())))
    b.register_post_accumulate_grad_hook(lambda p: order.append(("post b", p.grad.item())))
    ((a * 2).exp() * 0 + b * 3 + a).sum().backward()
    assert order.index("pre a") < order.index(("post a", 10 * (0 + 1.0)))
    assert ("post b", 3.0) in order


def test_not_called_by_autograd_grad_and_only_for_reached_leaves():
    x = nl.tensor([2.0], requires_grad=True)
    unused = nl.tensor([5.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda p: calls.append("x"))
    unused.register_post_accumulate_grad_hook(lambda p: calls.append("unused"))
    nl.autograd.grad((x * x).sum(), x)
    assert calls == [] and x.grad is None
    (x * x).sum().backward()
    assert calls == ["x"]


def test_called_by_backward_with_inputs():
    x = nl.tensor([2.0], requires_grad=True)
    y = nl.tensor([3.0], requires_grad=True)
    calls = []
    x.register_post_accumulate_grad_hook(lambda p: calls.append(("x", p.grad.item())))
    y.register_post_accumulate_grad_hook(lambda p: calls.append(("y", p.grad.item())))
    (x * y).sum().backward(inputs=[x])
    assert calls == [("x", 3.0)] and y.grad is None


def test_registration_errors_match_pytorch():
    with pytest.raises(
        RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"
    ):
        nl.tensor([1.0]).register_post_accumulate_grad_hook(lambda p: None)
    x = nl.tensor([1.0], requires_grad=True)
    with pytest.raises(
        RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"
    ):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)


def test_hooks_survive_garbage_collection_of_the_graph():
    import gc

    w = nl.tensor([1.0], requires_grad=True)
    calls = []
    w.register_post_accumulate_grad_hook(lambda p: calls.append(1))
    gc.collect()
    for _ in range(3):
        (w * 2).sum().backward()
        gc.collect()
    assert calls == [1, 1, 1]


def test_hook_under_create_graph_sees_a_recorded_grad():
    w = nl.tensor([3.0], requires_grad=True)
    grads = []
    w.register_post_accumulate_grad_hook(lambda p: grads.append(p.grad))
    (w**3).sum().backward(create_graph=True)
    assert grads[0].requires_grad
    (g2,) = nl.autograd.grad(grads[0].sum(), w)
    assert g2.item() == pytest.approx(18.0)


# ---------------------------------------------------------------------------------------------
# callbacks at the end of backward


def test_queue_callback_runs_after_every_node_once():
    a = nl.tensor([1.0], requires_grad=True)
    b = nl.tensor([2.0], requires_grad=True)
    events = []

    def on_a(p):
        events.append("a")
        queue_callback(lambda: events.append(("end", a.grad.item(), b.grad.item())))

    a.register_post_accumulate_grad_hook(on_a)
    b.register_post_accumulate_grad_hook(lambda p: events.append("b"))
    (a * 5 + b * 7).sum().backward()
    assert sorted(events[:2]) == ["a", "b"]
    assert events[2:] == [("end", 5.0, 7.0)]
    # nothing left queued for the next backward
    (b * 1).sum().backward()
    assert events[3:] == ["b"]


def test_callbacks_run_in_order_and_may_queue_more():
    w = nl.tensor([1.0], requires_grad=True)
    events = []

    def first():
        events.append(1)
        queue_callback(lambda: events.append(3))

    def hook(p):
        queue_callback(first)
        queue_callback(lambda: events.append(2))

    w.register_post_accumulate_grad_hook(hook)
    w.sum().backward()
    assert events == [1, 2, 3]


def test_callback_error_propagates_out_of_backward_and_state_recovers():
    w = nl.tensor([1.0], requires_grad=True)

    def boom():
        raise ValueError("from the callback")

    h = w.register_post_accumulate_grad_hook(lambda p: queue_callback(boom))
    with pytest.raises(ValueError, match="from the callback"):
        w.sum().backward()
    h.remove()
    with pytest.raises(
        RuntimeError, match="Final callbacks can only be installed during backward pass."
    ):
        queue_callback(lambda: None)
    assert nl.is_grad_enabled()


def test_queue_callback_outside_backward_is_pytorchs_error():
    with pytest.raises(
        RuntimeError, match="^Final callbacks can only be installed during backward pass.$"
    ):
        queue_callback(lambda: None)


# ---------------------------------------------------------------------------------------------
# PyTorch as the oracle


def test_same_calls_and_grads_as_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, x0 = rng.standard_normal((3, 4)), rng.standard_normal((5, 4))

    def run(lib, tensor):
        w = tensor(w0, requires_grad=True)
        b = tensor(np.zeros(3), requires_grad=True)
        log = []
        for name, p in (("w", w), ("b", b)):
            p.register_post_accumulate_grad_hook(
                lambda p, name=name: log.append((name, p.grad.numpy().copy()))
            )
        x = tensor(x0)
        for _ in range(2):
            ((x @ w.T + b).tanh() ** 2).sum().backward()
        return log

    ours = run(nl, nl.tensor)
    theirs = run(torch, torch.tensor)
    assert sorted(n for n, _ in ours) == sorted(n for n, _ in theirs) == ["b", "b", "w", "w"]
    for (n1, g1), (n2, g2) in zip(
        sorted(ours, key=lambda e: e[0]), sorted(theirs, key=lambda e: e[0])
    ):
        assert n1 == n2
        np.testing.assert_allclose(g1, g2, rtol=1e-10)
