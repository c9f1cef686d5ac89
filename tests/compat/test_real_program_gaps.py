"""What public programs (makemore lectures, d2l chapters, PyTorch tutorials) reached for that
nnlite lacked: ``nl.Generator``, numpy's ``axis``/``keepdims`` names, the deprecated alpha-first
``add``/``sub`` overloads, in-place ``unsqueeze_``/``squeeze_``/``transpose_`` and
``nl.histogram``. Expected values come from PyTorch or finite differences."""

import warnings

import numpy as np
import pytest

import nnlite as nl


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


# ------------------------------------------------------------------ Generator
def test_generator_reproduces_its_draws_and_leaves_the_global_one_alone():
    g = nl.Generator().manual_seed(2147483647)
    a = (nl.rand(3, generator=g), nl.randn(2, 2, generator=g))
    state = nl.get_rng_state()
    g.manual_seed(2147483647)
    b = (nl.rand(3, generator=g), nl.randn(2, 2, generator=g))
    assert all(np.array_equal(x.numpy(), y.numpy()) for x, y in zip(a, b))
    assert nl.get_rng_state() == state  # the global generator did not move
    assert g.initial_seed() == 2147483647 and g.device == nl.device("cpu")


def test_generator_drives_multinomial_randint_randperm_and_loaders():
    def draws(seed):
        g = nl.Generator().manual_seed(seed)
        m = nl.multinomial(nl.tensor([0.2, 0.3, 0.5]), 20, replacement=True, generator=g)
        r = nl.randint(0, 10, (5,), generator=g)
        p = nl.randperm(6, generator=g)
        order = [int(i) for i in nl.utils.data.RandomSampler(range(8), generator=g)]
        return [m.tolist(), r.tolist(), p.tolist(), order]

    assert draws(3) == draws(3)
    assert draws(3) != draws(4)


def test_generator_state_round_trip_and_seed():
    g = nl.Generator()
    state = g.get_state()
    first = nl.rand(4, generator=g)
    g.set_state(state)
    assert np.array_equal(nl.rand(4, generator=g).numpy(), first.numpy())
    seed = g.seed()
    assert g.initial_seed() == seed


def test_generator_refuses_other_devices():
    with pytest.raises(RuntimeError, match="CPU only"):
        nl.Generator(device="cuda")


# ------------------------------------------------------------------ axis= / keepdims=
@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("sum", {"axis": 1, "keepdims": True}),
        ("mean", {"axis": 0}),
        ("std", {"axis": 1, "keepdims": True}),
        ("amax", {"axis": 0, "keepdims": True}),
        ("logsumexp", {"axis": 1}),
        ("prod", {"axis": 1, "keepdims": True}),
        ("argmax", {"axis": 1}),
    ],
)
def test_numpy_argument_names_as_pytorch(name, kwargs):
    torch = _torch()
    data = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    expected = getattr(torch.from_numpy(data), name)(**kwargs).numpy()
    method = getattr(nl.from_numpy(data), name)(**kwargs)
    function = getattr(nl, name)(nl.from_numpy(data), **kwargs)
    for got in (method, function):
        assert got.shape == expected.shape
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_numpy_argument_names_max_keeps_indices():
    torch = _torch()
    data = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    values, indices = nl.from_numpy(data).max(axis=1, keepdims=True)
    t_values, t_indices = torch.from_numpy(data).max(axis=1, keepdims=True)
    np.testing.assert_array_equal(values.numpy(), t_values.numpy())
    np.testing.assert_array_equal(indices.numpy(), t_indices.numpy())


def test_numpy_argument_names_clash_with_pytorch_names():
    with pytest.raises(TypeError, match="multiple values for argument 'dim'"):
        nl.ones(2, 2).sum(dim=0, axis=1)


def test_numpy_argument_names_keep_gradients():
    x = nl.randn(3, 4, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: t.sum(axis=1, keepdims=True) ** 2, (x,))
    assert nl.autograd.gradgradcheck(lambda t: t.mean(axis=0) ** 2, (x,))


# ------------------------------------------------------------------ add(alpha, other)
def test_alpha_first_overloads_as_pytorch():
    torch = _torch()
    a = np.array([1.0, 2.0], np.float32)
    b = np.array([3.0, -1.0], np.float32)
    cases = [
        (lambda m, x, y: x.add(-0.5, y), "add"),
        (lambda m, x, y: x.sub(2, y), "sub"),
        (lambda m, x, y: m.add(x, 2, y), "add"),
        (lambda m, x, y: m.sub(x, 2, y), "sub"),
        (lambda m, x, y: x.clone().add_(-0.5, y), "add_"),
        (lambda m, x, y: x.clone().sub_(3, y), "sub_"),
    ]
    for call, name in cases:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # PyTorch's own deprecation warning
            expected = call(torch, torch.from_numpy(a), torch.from_numpy(b)).numpy()
        with pytest.warns(UserWarning, match=f"This overload of {name} is deprecated"):
            got = call(nl, nl.from_numpy(a), nl.from_numpy(b))
        np.testing.assert_array_equal(got.numpy(), expected)


def test_alpha_first_overload_only_for_number_then_tensor():
    x = nl.tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.add(nl.tensor([1.0, 1.0]), alpha=2).tolist() == [3.0, 4.0]
        assert x.add(1).tolist() == [2.0, 3.0]


def test_alpha_first_overload_gradients():
    x = nl.randn(3, dtype=nl.float64, requires_grad=True)
    y = nl.randn(3, dtype=nl.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        assert nl.autograd.gradcheck(lambda a, b: a.sub(0.3, b) * a, (x, y))
        assert nl.autograd.gradgradcheck(lambda a, b: nl.add(a, 1.7, b) * b, (x, y))


# ------------------------------------------------------------------ in-place shape methods
@pytest.mark.parametrize(
    "call",
    [
        lambda t: t.unsqueeze_(-1),
        lambda t: t.unsqueeze_(0),
        lambda t: t.squeeze_(),
        lambda t: t.squeeze_(0),
        lambda t: t.transpose_(0, 2),
        lambda t: t.swapaxes_(1, 2),
        lambda t: t.swapdims_(0, 1),
    ],
)
def test_inplace_shape_methods_as_pytorch(call):
    torch = _torch()
    data = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    t = torch.from_numpy(data.copy())
    n = nl.from_numpy(data.copy())
    t_version, n_version = t._version, n._version
    assert call(n) is n
    call(t)
    assert tuple(n.shape) == tuple(t.shape)
    np.testing.assert_array_equal(n.numpy(), t.numpy())
    assert n._version - n_version == t._version - t_version


def test_inplace_shape_methods_refuse_a_leaf_that_requires_grad():
    x = nl.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        x.unsqueeze_(0)


def _through_inplace_shapes(x):
    y = x * x
    y.transpose_(0, 1)
    y.unsqueeze_(0)
    y.squeeze_(0)
    return y * nl.arange(1.0, 4.0, dtype=nl.float64).unsqueeze(1)


def test_inplace_shape_methods_keep_the_history():
    torch = _torch()
    x = nl.randn(2, 3, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(_through_inplace_shapes, (x,))
    assert nl.autograd.gradgradcheck(_through_inplace_shapes, (x,))
    t = torch.from_numpy(x.detach().numpy().copy()).requires_grad_()
    ty = t * t
    ty.transpose_(0, 1)
    (ty * torch.arange(1.0, 4.0, dtype=torch.float64).unsqueeze(1)).sum().backward()
    _through_inplace_shapes(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())


# ------------------------------------------------------------------ histogram
@pytest.mark.parametrize(
    "args, kwargs",
    [
        ((4,), {"range": (0.0, 3.0)}),
        ((3,), {}),
        ((5,), {"density": True}),
        ((3,), {"weight": [1.0, 2.0, 3.0, 4.0, 0.5, 1.5]}),
        (([0.0, 1.0, 2.0, 5.0],), {"density": True, "weight": [1.0, 2.0, 3.0, 4.0, 0.5, 1.5]}),
    ],
)
def test_histogram_as_pytorch(args, kwargs):
    torch = _torch()
    data = np.array([1.0, 2.0, 1.0, 4.0, 0.25, 3.5], np.float32)

    def convert(module, values):
        return module.tensor(values) if isinstance(values, list) else values

    t = torch.histogram(
        torch.from_numpy(data),
        *[convert(torch, a) for a in args],
        **{k: convert(torch, v) for k, v in kwargs.items()},
    )
    n = nl.histogram(
        nl.from_numpy(data),
        *[convert(nl, a) for a in args],
        **{k: convert(nl, v) for k, v in kwargs.items()},
    )
    for got, expected in zip(n, t):
        assert got.dtype == nl.float32
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    assert repr(n).startswith("nnlite.return_types.histogram(\nhist=tensor(")
    assert np.array_equal(nl.from_numpy(data).histogram(3).hist.numpy(), n.hist.numpy()) or (
        args != (3,) or kwargs
    )


def test_histogram_errors_as_pytorch():
    with pytest.raises(RuntimeError, match="\"histogramdd\" not implemented for 'Long'"):
        nl.histogram(nl.tensor([1, 2]), 2)
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0 for dimension 0"):
        nl.histogram(nl.tensor([1.0, 2.0]), 0)


# ------------------------------------------------------------------ nl.pow(10000, t)
@pytest.mark.parametrize(
    "name", ["pow", "add", "mul", "sub", "div", "true_divide", "remainder", "floor_divide"]
)
@pytest.mark.parametrize("dtype", ["float32", "int64", "int8"])
def test_number_as_first_operand_as_pytorch(name, dtype):
    torch = _torch()
    data = np.array([1, 2, 3], dtype=dtype)
    expected = getattr(torch, name)(3, torch.from_numpy(data))
    got = getattr(nl, name)(3, nl.from_numpy(data))
    assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1]
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


def test_number_as_first_operand_with_alpha_and_gradients():
    torch = _torch()
    t = torch.tensor([1.0, 2.0])
    x = nl.tensor([1.0, 2.0])
    assert nl.add(3, x, alpha=2).tolist() == torch.add(3, t, alpha=2).tolist()
    assert nl.sub(3, x, alpha=2).tolist() == torch.sub(3, t, alpha=2).tolist()
    y = nl.rand(3, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda e: nl.pow(10000, e), (y,))
    assert nl.autograd.gradgradcheck(lambda e: nl.div(2, e + 1), (y,))
