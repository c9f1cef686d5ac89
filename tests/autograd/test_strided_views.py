"""``as_strided`` and the strided factories (``nnlite/autograd/strided_views.py``), the print
options, the autocast state and the process settings, against PyTorch."""

import warnings

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(4)


def _quiet(call):
    """``call()`` with the deprecation warnings of ``resize``/``resize_as`` silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


# (id, fn(lib, *tensors), input arrays): gradcheck and gradgradcheck in float64, values and
# gradients against PyTorch (registered in tests/op_registry.py's GRADIENT_TABLES)
ROWS = [
    ("as_strided", lambda L, x: L.as_strided(x, (3, 2), (1, 2)), [rng.uniform(-1, 1, 6)]),
    ("as_strided_overlap", lambda L, x: L.as_strided(x[1:], (2, 2), (1, 1)), [rng.uniform(-1, 1, 5)]),
    ("as_strided_offset", lambda L, x: L.as_strided(x.t(), (2,), (3,), 1), [rng.uniform(-1, 1, (2, 3))]),
    ("as_strided_method", lambda L, x: x.as_strided((2, 2), (2, 1)) * 2, [rng.uniform(-1, 1, (2, 2))]),
    ("slice_inverse", lambda L, x: L.slice_inverse(x[1:], x, 0, 1, 3), [rng.uniform(-1, 1, (3, 2))]),
    ("resize", lambda L, x: _quiet(lambda: x.resize(3, 2)), [rng.uniform(-1, 1, (2, 3))]),
    ("resize_as", lambda L, x: _quiet(lambda: x.resize_as(x.t())), [rng.uniform(-1, 1, (2, 3))]),
    ("as_subclass", lambda L, x: x.as_subclass(L.Tensor) * x, [rng.uniform(-1, 1, 3)]),
]  # fmt: skip


@pytest.mark.parametrize("name, fn, arrays", ROWS, ids=[r[0] for r in ROWS])
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name, fn, arrays", ROWS, ids=[r[0] for r in ROWS])
def test_matches_pytorch(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    results = []
    for lib in (nl, torch):
        inputs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
        out = fn(lib, *inputs)
        (out * out).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in inputs])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_as_strided_is_a_view_and_checks_bounds():
    torch = pytest.importorskip("torch", reason="PyTorch's messages are the reference")
    x = nl.arange(6.0)
    view = nl.as_strided(x, (2, 2), (1, 2))
    x[1] = 100.0
    assert view[1, 0].item() == 100.0
    for args in [((3, 3), (1, 2)), ((2,), (1, 2)), ((2,), (-1,)), ((2,), (1,), -1)]:
        with pytest.raises(RuntimeError) as theirs:
            torch.as_strided(torch.arange(6.0), *args)
        with pytest.raises(RuntimeError, match=None) as ours:
            nl.as_strided(nl.arange(6.0), *args)
        assert str(ours.value) == str(theirs.value)
    y = nl.arange(4.0)
    assert nl.as_strided_(y, (2,), (2,)) is y
    assert y.tolist() == [0.0, 2.0]


def test_strided_factories_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for ours, theirs in [
        (nl.empty_strided((2, 3), (1, 2)), torch.empty_strided((2, 3), (1, 2))),
        (nl.empty_strided([2, 0], [0, 1], dtype=nl.int64), torch.empty_strided([2, 0], [0, 1], dtype=torch.int64)),
        (nl.empty_permuted((2, 3, 4), (0, 2, 1)), torch.empty_permuted((2, 3, 4), (0, 2, 1))),
        (nl.empty_permuted([2, 3], physical_layout=[1, 0], dtype=nl.float64), torch.empty_permuted([2, 3], physical_layout=[1, 0], dtype=torch.float64)),
    ]:  # fmt: skip
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    with pytest.raises(RuntimeError, match="Duplicate dim not allowed"):
        nl.empty_permuted((2, 3), (0, 0))


@pytest.mark.parametrize(
    "options, values",
    [
        ({"precision": 2}, [1.12345, 3.0]),
        ({"threshold": 5}, list(range(10))),
        ({"threshold": 5, "edgeitems": 1}, [[1.5, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]),
        ({"sci_mode": True}, [1.5, 2.25]),
        ({"sci_mode": False}, [1e-6, 1e5]),
        ({"linewidth": 20}, [1.5] * 12),
        ({"profile": "short"}, [1.23456] * 8),
        ({"profile": "full"}, [0.5] * 1200),
    ],
)
def test_set_printoptions_prints_as_pytorch(options, values):
    torch = pytest.importorskip("torch", reason="PyTorch's repr is the reference")
    try:
        nl.set_printoptions(**options)
        torch.set_printoptions(**options)
        assert repr(nl.tensor(values)) == repr(torch.tensor(values))
    finally:
        nl.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")


def test_autocast_state_follows_the_region():
    assert not nl.is_autocast_enabled("cpu") and not nl.is_autocast_enabled()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with nl.autocast("cpu", dtype=nl.float16, cache_enabled=False):
            assert nl.is_autocast_enabled("cpu") and nl.is_autocast_cpu_enabled()
            assert nl.get_autocast_dtype("cpu") is nl.float16
            assert not nl.is_autocast_cache_enabled()
        assert not nl.is_autocast_enabled("cpu") and nl.is_autocast_cache_enabled()
        with pytest.warns(DeprecationWarning, match="is_autocast_enabled"):
            nl.is_autocast_cpu_enabled()
    nl.set_autocast_enabled("cpu", True)
    assert nl.is_autocast_enabled("cpu")
    nl.set_autocast_enabled("cpu", False)
    nl.set_autocast_enabled(True)  # the old form: CUDA's state
    assert nl.is_autocast_enabled("cuda")
    nl.set_autocast_enabled(False)
    nl.set_autocast_dtype("cuda", nl.float32)
    assert nl.get_autocast_dtype("cuda") is nl.float32
    nl.set_autocast_dtype("cuda", nl.float16)
    with pytest.raises(RuntimeError, match="device type at start of device string: foo"):
        nl.get_autocast_dtype("foo")
    assert nl.autocast is nl.amp.autocast and nl.GradScaler is nl.amp.GradScaler


def test_process_settings():
    _ = nl.manual_seed(3)
    a = nl.rand(2)
    assert nl.default_generator.manual_seed(3) is nl.default_generator
    assert nl.default_generator.initial_seed() == 3
    assert (nl.rand(2) == a).all()
    assert nl.init_num_threads() is None
    assert nl.is_distributed(nl.zeros(2)) is False
    with pytest.raises(TypeError, match="must be Tensor, not int"):
        nl.is_distributed(3)
    try:
        with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
            nl.set_default_tensor_type("torch.DoubleTensor")
        assert nl.tensor([1.0]).dtype is nl.float64
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            nl.set_default_tensor_type(nl.FloatTensor)
            assert nl.get_default_dtype() is nl.float32
            with pytest.raises(TypeError, match="only floating-point types"):
                nl.set_default_tensor_type(nl.LongTensor)
    finally:
        nl.set_default_dtype(nl.float32)
