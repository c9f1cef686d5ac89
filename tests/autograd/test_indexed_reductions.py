"""``index_reduce``, ``segment_reduce``, ``nonzero_static`` (``nnlite/autograd/indexed_reductions.py``),
``gradient``, ``histogramdd``, ``binomial`` and the Tensor methods of
``nnlite/autograd/tensor_op_methods.py`` and ``tensor_storage_methods.py``, against PyTorch."""

import warnings

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(8)
_IDX = np.array([0, 0, 2])
_LENGTHS = np.array([2, 0, 3])


def _quiet(call):
    """``call()`` with the beta warning of ``index_reduce`` silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _index_reduce(reduce, include_self=True):
    def fn(L, x, s):
        index = L.tensor(_IDX)
        return _quiet(lambda: L.index_reduce(x, 0, index, s, reduce, include_self=include_self))

    return fn


# (id, fn(lib, *tensors), input arrays): gradcheck and gradgradcheck in float64, values and
# gradients against PyTorch (registered in tests/op_registry.py's GRADIENT_TABLES)
ROWS = [
    ("index_reduce_prod", _index_reduce("prod"), [rng.uniform(0.5, 1.5, (3, 2)), rng.uniform(0.5, 1.5, (3, 2))]),
    ("index_reduce_mean", _index_reduce("mean", False), [rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (3, 2))]),
    ("index_reduce_amax", _index_reduce("amax"), [rng.uniform(-1, 1, (3, 2)), rng.uniform(-1, 1, (3, 2))]),
    ("index_reduce_method", lambda L, x, s: _quiet(lambda: x.index_reduce(1, L.tensor([1, 0]), s, "amin")), [rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (2, 2))]),
    ("segment_reduce_sum", lambda L, x: L.segment_reduce(x, "sum", lengths=L.tensor(_LENGTHS)), [rng.uniform(-1, 1, (5, 2))]),
    ("segment_reduce_mean", lambda L, x: L.segment_reduce(x, "mean", offsets=L.tensor([0, 2, 5]), initial=1.5), [rng.uniform(-1, 1, 5)]),
    ("segment_reduce_max", lambda L, x: L.segment_reduce(x, "max", lengths=L.tensor([1, 4]), initial=-0.5), [rng.uniform(-1, 1, 5)]),
    ("segment_reduce_prod", lambda L, x: L.segment_reduce(x, "prod", lengths=L.tensor([3, 2])), [rng.uniform(0.5, 1.5, (5, 3))]),
    ("gradient", lambda L, x: L.gradient(x)[1], [rng.uniform(-1, 1, (3, 4))]),
    ("gradient_edge_order_2", lambda L, x: L.gradient(x, spacing=[2.0], dim=[1], edge_order=2)[0], [rng.uniform(-1, 1, (2, 4))]),
    ("gradient_coordinates", lambda L, x: L.gradient(x, spacing=(L.tensor([0.0, 1.0, 3.0, 7.0], dtype=L.float64),), dim=0, edge_order=2)[0], [rng.uniform(-1, 1, 4)]),
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
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.fixture
def torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference")


def _int_index_reduce(L, reduce, include_self):
    x, index, source = L.tensor([-1, 2, 3]), L.tensor([0, 0, 2]), L.tensor([-4, -6, 5])
    return _quiet(lambda: x.index_reduce(0, index, source, reduce, include_self=include_self))


def _same(ours, theirs):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def test_values_and_errors_match_pytorch(torch):
    points = rng.uniform(0, 3, (20, 2)).astype(np.float32)
    for kwargs in [{"bins": [2, 3]}, {"bins": 3, "range": [0.0, 3.0, 0.0, 3.0], "density": True}]:
        ours = nl.histogramdd(nl.tensor(points), **kwargs)
        theirs = torch.histogramdd(torch.tensor(points), **kwargs)
        _same(ours.hist, theirs.hist)
        for a, b in zip(ours.bin_edges, theirs.bin_edges):
            _same(a, b)
    weight = rng.uniform(0, 1, 20).astype(np.float32)
    ours = nl.histogramdd(nl.tensor(points), [2, 2], weight=nl.tensor(weight))
    _same(ours[0], torch.histogramdd(torch.tensor(points), [2, 2], weight=torch.tensor(weight))[0])
    for size, fill in [(3, -1), (1, 5), (0, -1)]:
        data = np.array([[0, 2], [3, 0]])
        _same(
            nl.nonzero_static(nl.tensor(data), size=size, fill_value=fill),
            torch.nonzero_static(torch.tensor(data), size=size, fill_value=fill),
        )
    for lengths, reduce in [([2, 0, 3], "min"), ([5], "mean"), ([0, 5], "prod")]:
        data = np.arange(1.0, 6.0)
        _same(
            nl.segment_reduce(nl.tensor(data), reduce, lengths=nl.tensor(lengths)),
            torch.segment_reduce(torch.tensor(data), reduce, lengths=torch.tensor(lengths)),
        )
    _same(nl.gradient(nl.tensor([1, 2, 4, 8]))[0], torch.gradient(torch.tensor([1, 2, 4, 8]))[0])
    for reduce, include_self in [("mean", True), ("mean", False), ("amin", True), ("prod", False)]:
        ours, theirs = (_int_index_reduce(L, reduce, include_self) for L in (nl, torch))
        _same(ours, theirs)
    for call in [
        lambda L: L.gradient(L.tensor([1.0, 2.0]), edge_order=2),
        lambda L: L.segment_reduce(L.tensor([1.0, 2.0]), "sum", lengths=L.tensor([1, 2])),
        lambda L: L.tensor([1, 2]).split_with_sizes([1, 2]),
        lambda L: L.zeros(2, requires_grad=True).resize_(3),
        lambda L: _quiet(lambda: L.ones(2, 3).index_reduce(0, L.tensor([0]), L.ones(1, 2), "prod")),
    ]:
        with pytest.raises(RuntimeError) as theirs:
            call(torch)
        with pytest.raises(RuntimeError) as ours:
            call(nl)
        assert str(ours.value) == str(theirs.value)
    with pytest.warns(UserWarning, match="index_reduce\\(\\) is in beta"):
        nl.autograd.indexed_reductions._warned[0] = False
        nl.index_reduce(nl.ones(2), 0, nl.tensor([0]), nl.tensor([2.0]), "prod")


@pytest.mark.parametrize(
    "array, dim, keepdim",
    [
        (np.array([1.0, 2.0, 3.0], dtype=np.float32), None, False),
        (np.array([[1, 2], [3, 4]]), 1, False),
        (np.array([True, False, True]), None, False),
        (np.array([1.0, -2.5]), 0, True),
        (np.array([-1, 5], dtype=np.int8), None, False),
        (np.array([1.5, 2.0], dtype=np.float16), None, False),
        (np.ones((2, 3)), (0, 1), True),
        (np.zeros((0, 2)), 1, False),
    ],
)
def test_hash_tensor_matches_pytorch(torch, array, dim, keepdim):
    ours = nl.hash_tensor(nl.tensor(array), dim, keepdim=keepdim)
    theirs = torch.hash_tensor(torch.tensor(array), dim, keepdim=keepdim)
    assert ours.dtype is nl.uint64 and ours.shape == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()
    assert nl.tensor(array).hash_tensor(dim, keepdim=keepdim).tolist() == theirs.tolist()
    for call in [
        lambda L: L.hash_tensor(L.ones(2), mode=1),
        lambda L: L.hash_tensor(L.zeros(0)),
    ]:
        with pytest.raises(RuntimeError) as expected:
            call(torch)
        with pytest.raises(RuntimeError) as got:
            call(nl)
        assert str(got.value) == str(expected.value)


def test_binomial_draws():
    _ = nl.manual_seed(0)
    draws = nl.binomial(nl.full((4000,), 10.0), nl.full((4000,), 0.3))
    assert draws.dtype is nl.float32
    assert abs(draws.mean().item() - 3.0) < 0.15
    assert draws.min().item() >= 0 and draws.max().item() <= 10
    assert nl.binomial(nl.tensor([5.0, 0.0]), nl.tensor([1.0, 0.5])).tolist() == [5.0, 0.0]


def test_tensor_methods_match_pytorch(torch):
    for lib_call in [
        lambda L: L.tensor([-1.0, 0.2, 1.0]).hardshrink(0.5),
        lambda L: L.tensor([[-1.0, 1.0]]).prelu(L.tensor([0.25, 0.5])),
        lambda L: L.ones(2, 1, 1).baddbmm_(L.ones(2, 1, 3), L.ones(2, 3, 1), beta=0.5, alpha=2),
        lambda L: L.tensor([5, 6]).bitwise_and_(L.tensor([3, 3])),
        lambda L: L.tensor([5, 6]).bitwise_or_(1),
        lambda L: L.tensor([5, 6], dtype=L.int32).bitwise_xor_(L.tensor([1, 1])),
        lambda L: L.tensor([2.0, 0.0]).logical_not_(),
        lambda L: L.tensor([1, 0], dtype=L.int64).logical_not_(),
        lambda L: L.arange(6.0).reshape(2, 3).split_with_sizes([2, 1], 1)[1],
        lambda L: L.zeros(2).module_load(L.ones(2)),
        lambda L: L.zeros(2).module_load(L.ones(2), assign=True),
        lambda L: L.arange(6.0).resize_(2, 2),
        lambda L: L.zeros(1, dtype=L.int64).new([1, 2]),
        lambda L: L.zeros(1).new(2, 3).zero_(),
    ]:
        _same(lib_call(nl), lib_call(torch))
    x, tx = nl.zeros(2, 3), torch.zeros(2, 3)
    assert x.dim_order() == tx.dim_order() and x.t().dim_order() == tx.t().dim_order()
    assert x.dense_dim() == tx.dense_dim() and x.is_distributed() is tx.is_distributed()
    assert x.const_data_ptr() == x.data_ptr() and x.name is None and tx.name is None
    assert x.grad_dtype is nl.float32 and str(tx.grad_dtype) == "torch.float32"
    with pytest.warns(UserWarning, match="volatile was removed"):
        assert x.volatile is False
    with pytest.raises(RuntimeError) as theirs:
        tx.reinforce(1)
    with pytest.raises(RuntimeError) as ours:
        x.reinforce(1)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type Bool"):
        nl.tensor([True]).bitwise_and_(nl.tensor([3]))


def test_memory_methods():
    x = nl.arange(6.0)
    y = nl.zeros(2)
    assert y.set_(x) is y and y.is_set_to(x) and not y.is_set_to(x.clone())
    y.set_(x, 2, (2,), (2,))
    assert y.tolist() == [2.0, 4.0]
    x[4] = 40.0
    assert y.tolist() == [2.0, 40.0]  # a view of x's memory
    assert y.set_().shape == (0,)
    z = nl.zeros(3)
    assert z.resize_as_(nl.zeros(2, 2)).shape == (2, 2)
    assert nl.resize_as_(nl.zeros(3), nl.zeros(1)).shape == (1,)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        assert x.resize(3, 2).shape == (3, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(RuntimeError, match="autograd's resize can only change the shape"):
            x.resize(4)
    assert nl.zeros(1, dtype=nl.float64).new_empty_strided((2, 2), (1, 2)).dtype is nl.float64

    class Tagged(nl.Tensor):
        pass

    leaf = nl.ones(2, requires_grad=True)
    tagged = leaf.as_subclass(Tagged)
    assert type(tagged) is Tagged and tagged.data_ptr() == leaf.data_ptr()
    (tagged * 3).sum().backward()
    assert leaf.grad.tolist() == [3.0, 3.0]
    with pytest.raises(TypeError, match="subclass of Tensor"):
        leaf.as_subclass(int)
