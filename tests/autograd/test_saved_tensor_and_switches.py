"""``SavedTensor`` (hooks on what a custom Function saved) and the engine switches
(``set_multithreading_enabled``, ``enforce_grad_layout_policy``, view replay), against PyTorch."""

import threading

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import engine_switches


def _cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    return Cube


def _hooked_run(lib, leaf, log):
    x = lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64, requires_grad=True)
    y = _cube(lib).apply(x if leaf else x * 1)
    (saved,) = y.grad_fn._raw_saved_tensors
    assert saved.unpack_hook is None

    def pack(t):
        log.append(("pack", t.requires_grad, lib.is_grad_enabled()))
        return t.detach() * 4

    def unpack(t):
        log.append(("unpack", lib.is_grad_enabled()))
        return t / 4

    saved.register_hooks(pack, unpack)
    assert saved.unpack_hook is unpack
    stored = saved.data.detach().numpy().copy()
    (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = lib.autograd.grad(g.sum(), x)
    return stored, g.detach().numpy(), gg.numpy()


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non-leaf"])
def test_saved_tensor_hooks_match_torch(leaf):
    torch = pytest.importorskip("torch", reason="compares with torch")
    ours_log, theirs_log = [], []
    ours = _hooked_run(nl, leaf, ours_log)
    theirs = _hooked_run(torch, leaf, theirs_log)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-12)
    assert ours_log == theirs_log


def test_second_order_through_hooks_is_the_derivative():
    # d/dx 3x^2 = 6x, whatever the hooks did to the stored value
    stored, g, gg = _hooked_run(nl, True, [])
    x = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(stored, 4 * x)
    np.testing.assert_allclose(g, 3 * x * x)
    np.testing.assert_allclose(gg, 6 * x)


def test_saved_tensor_errors_match_torch():
    torch = pytest.importorskip("torch", reason="compares with torch")
    messages = []
    for lib in (nl, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        found = []
        with pytest.raises(RuntimeError) as info:
            lib.autograd.SavedTensor()
        found.append(str(info.value))
        y = _cube(lib).apply(x)
        (saved,) = y.grad_fn._raw_saved_tensors
        assert saved.unpack() is not None
        saved.register_hooks(lambda t: t, lambda t: t)
        with pytest.raises(RuntimeError) as info:
            saved.register_hooks(lambda t: t, lambda t: t)
        found.append(str(info.value))
        with pytest.raises(TypeError):
            _cube(lib).apply(x).grad_fn._raw_saved_tensors[0].register_hooks(1, lambda t: t)
        z = _cube(lib).apply(x)
        z.grad_fn._raw_saved_tensors[0].register_hooks(lambda t: t, lambda t: 1)
        with pytest.raises(TypeError) as info:
            _ = z.grad_fn.saved_tensors
        found.append(str(info.value))
        w = _cube(lib).apply(x)
        w.sum().backward()
        with pytest.raises(RuntimeError) as info:
            _ = w.grad_fn._raw_saved_tensors
        found.append(str(info.value))
        messages.append(found)
    assert messages[0] == messages[1]


SWITCHES = [
    # (is_..., setter, default)
    ("is_multithreading_enabled", "set_multithreading_enabled", True),
    ("is_view_replay_enabled", "_force_original_view_tracking", False),
]


def _switch_trace(lib, getter, setter, default):
    """What the flag reads as the setter is used as a context manager, a function and a
    decorator."""
    get, set_ = getattr(lib.autograd, getter), getattr(lib.autograd, setter)
    trace = [get()]
    with set_(not default):
        trace.append(get())
    trace.append(get())

    @set_(not default)
    def inside():
        return get()

    trace += [get(), inside(), get()]
    set_(not default)  # as a function: stays switched
    trace.append(get())
    set_(default)
    trace.append(get())
    return trace


@pytest.mark.parametrize("getter,setter,default", SWITCHES)
def test_switches_behave_like_torch(getter, setter, default):
    torch = pytest.importorskip("torch", reason="compares with torch")
    ours = _switch_trace(nl, getter, setter, default)
    theirs = _switch_trace(torch, getter, setter, default)
    assert ours == theirs
    assert ours[0] is default


def _layout_trace(lib, read):
    trace = [read()]
    with lib.autograd.enforce_grad_layout_policy(False):
        trace.append(read())
    trace.append(read())

    @lib.autograd.enforce_grad_layout_policy(False)
    def inside():
        return read()

    trace += [read(), inside(), read()]
    lib.autograd.enforce_grad_layout_policy(False)
    trace.append(read())
    lib.autograd.enforce_grad_layout_policy()
    trace.append(read())
    return trace


def test_grad_layout_policy_behaves_like_torch():
    torch = pytest.importorskip("torch", reason="compares with torch")
    ours = _layout_trace(nl, engine_switches._is_grad_layout_enforcement_enabled)
    theirs = _layout_trace(torch, torch._C._is_grad_layout_enforcement_enabled)
    assert ours == theirs == [True, False, True, True, False, True, False, True]


def test_switches_are_per_thread():
    seen = []
    with nl.autograd.set_multithreading_enabled(False):
        worker = threading.Thread(
            target=lambda: seen.append(nl.autograd.is_multithreading_enabled())
        )
        worker.start()
        worker.join()
        assert nl.autograd.is_multithreading_enabled() is False
    assert seen == [True]


def test_switches_change_no_gradient():
    x = nl.tensor([1.0, 2.0], requires_grad=True)
    with (
        nl.autograd.set_multithreading_enabled(False),
        nl.autograd.enforce_grad_layout_policy(False),
    ):
        (x * x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 4.0])


@pytest.mark.parametrize(
    "name",
    [
        "set_multithreading_enabled",
        "enforce_grad_layout_policy",
        "_force_original_view_tracking",
        "is_multithreading_enabled",
        "is_view_replay_enabled",
    ],
)
def test_signatures_match_torch(name):
    import inspect

    torch = pytest.importorskip("torch", reason="compares with torch")
    try:
        theirs = inspect.signature(getattr(torch.autograd, name))
    except ValueError:  # a C function: no arguments
        theirs = inspect.Signature()
    ours = inspect.signature(getattr(nl.autograd, name))
    assert [(p.name, p.kind, p.default) for p in ours.parameters.values()] == [
        (p.name, p.kind, p.default) for p in theirs.parameters.values()
    ]
