"""Tensor creation, dtypes, conversions, repr and errors."""

import numpy as np
import pytest

import nnlite as nl


@pytest.mark.parametrize(
    "data,dtype",
    [
        ([1.0, 2.0], nl.float32),
        ([1, 2], nl.int64),
        ([True, False], nl.bool),
        (3.5, nl.float32),
        (7, nl.int64),
        (np.array([1.0, 2.0]), nl.float64),
        (np.array([1, 2], dtype=np.int32), nl.int32),
        (np.array([1, 2], dtype=np.uint8), nl.uint8),
    ],
)
def test_tensor_dtype_inference(data, dtype):
    assert nl.tensor(data).dtype == dtype


@pytest.mark.parametrize(
    "make,dtype",
    [
        (lambda: nl.zeros(2, 3), nl.float32),
        (lambda: nl.ones((2, 3)), nl.float32),
        (lambda: nl.rand(2), nl.float32),
        (lambda: nl.randn(nl.Size([2, 2])), nl.float32),
        (lambda: nl.arange(5), nl.int64),
        (lambda: nl.arange(0, 1, 0.25), nl.float32),
        (lambda: nl.full((2,), 7), nl.int64),
        (lambda: nl.full((2,), 0.5), nl.float32),
        (lambda: nl.eye(3), nl.float32),
        (lambda: nl.randint(0, 10, (3,)), nl.int64),
        (lambda: nl.zeros(2, dtype=nl.float64), nl.float64),
        (lambda: nl.ones_like(nl.tensor([1, 2])), nl.int64),
        (lambda: nl.empty(3), nl.float32),
    ],
)
def test_creation_dtypes(make, dtype):
    assert make().dtype == dtype


# 0.7 is inexact in float32; 1 + 2**-11 + 2**-30 rounds to 1 through float32 but up in float16
_PRECISE = [0.7, 1 + 2**-11 + 2**-30, 1e-310]


@pytest.mark.parametrize(
    "make",
    [
        lambda L, dt: L.tensor(_PRECISE, dtype=dt),
        lambda L, dt: L.tensor(_PRECISE[0], dtype=dt),
        lambda L, dt: L.tensor([[1, _PRECISE[0]], [2, _PRECISE[1]]], dtype=dt),
        lambda L, dt: L.as_tensor(_PRECISE, dtype=dt),
        lambda L, dt: L.asarray(_PRECISE, dtype=dt),
        lambda L, dt: L.zeros(1, dtype=dt).new_tensor(_PRECISE),
        lambda L, dt: L.zeros(1).new_tensor(_PRECISE, dtype=dt),
        lambda L, dt: L.full((2,), _PRECISE[1], dtype=dt),
    ],
)
@pytest.mark.parametrize("dtype", ["float64", "float16"])
def test_python_floats_convert_straight_to_the_requested_dtype(make, dtype):
    torch = pytest.importorskip("torch", reason="torch is the reference for creation")
    expected = make(torch, getattr(torch, dtype)).numpy()
    got = make(nl, getattr(nl, dtype)).numpy()
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)


def test_legacy_constructor_and_float64_default_keep_python_float_precision():
    torch = pytest.importorskip("torch", reason="torch is the reference for creation")
    np.testing.assert_array_equal(nl.DoubleTensor(_PRECISE).numpy(), torch.DoubleTensor(_PRECISE))
    np.testing.assert_array_equal(nl.HalfTensor(_PRECISE).numpy(), torch.HalfTensor(_PRECISE))
    old = nl.get_default_dtype()
    nl.set_default_dtype(nl.float64)
    try:
        np.testing.assert_array_equal(nl.tensor(_PRECISE).numpy(), np.array(_PRECISE))
        np.testing.assert_array_equal(nl.full((1,), 0.7).numpy(), np.array([0.7]))
    finally:
        nl.set_default_dtype(old)


def test_from_numpy_shares_memory_both_ways():
    n = np.zeros(3)
    t = nl.from_numpy(n)
    t.add_(1)
    assert n.tolist() == [1.0, 1.0, 1.0]
    n[0] = 5
    assert t[0].item() == 5.0
    assert t.numpy() is n


def test_numpy_refuses_tensors_that_require_grad():
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        nl.ones(2, requires_grad=True).numpy()


def test_manual_seed_reproduces():
    nl.manual_seed(3)
    a = nl.randn(4)
    nl.manual_seed(3)
    assert nl.randn(4).equal(a)


def test_device_and_to():
    t = nl.ones(2)
    assert t.to("cpu") is t and t.cpu() is t and str(t.device) == "cpu"
    with pytest.raises(RuntimeError, match="cuda"):
        t.to("cuda")
    assert t.to(nl.float64).dtype == nl.float64
    assert t.double().dtype == nl.float64 and t.long().dtype == nl.int64 and t.float() is t


@pytest.mark.parametrize(
    "value,text",
    [
        (nl.tensor(3.5), "tensor(3.5000)"),
        (nl.tensor(2.0), "tensor(2.)"),
        (nl.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
        (nl.tensor([]), "tensor([])"),
        (nl.zeros(0, 3), "tensor([], size=(0, 3))"),
        (nl.tensor([True, False]), "tensor([ True, False])"),
        (nl.tensor([-1, 10]), "tensor([-1, 10])"),
        (nl.tensor([1.5, float("nan"), float("inf")]), "tensor([1.5000,    nan,    inf])"),
        (
            nl.tensor([0.5, 1.25], dtype=nl.float64, requires_grad=True),
            "tensor([0.5000, 1.2500], dtype=nnlite.float64, requires_grad=True)",
        ),
        (
            nl.arange(1500).float(),
            "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.4970e+03, 1.4980e+03,\n        1.4990e+03])",
        ),
    ],
)
def test_repr_matches_pytorch_format(value, text):
    assert repr(value) == text


def test_repr_against_pytorch():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    cases = [
        rng.standard_normal((3, 4)).astype(np.float32),
        rng.standard_normal(20).astype(np.float32) * 1000,
        np.arange(12).reshape(2, 2, 3),
        rng.standard_normal((2, 3, 2)),
        np.array([[1e-8, 1.0]], np.float32),
    ]
    for a in cases:
        assert repr(nl.tensor(a)) == repr(torch.tensor(a)).replace("torch.", "nnlite.")


@pytest.mark.parametrize(
    "fn,error,message",
    [
        (
            lambda: nl.ones(2, 3) @ nl.ones(2, 3),
            RuntimeError,
            r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)",
        ),
        (lambda: nl.ones(2, 3) + nl.ones(4), ValueError, "operands could not be broadcast"),
        (
            lambda: nl.ones(6).view(4, -1),
            RuntimeError,
            r"shape '\[4, -1\]' is invalid for input of size 6",
        ),
        (lambda: nl.ones(2).sum(3), IndexError, "Dimension out of range"),
        (
            lambda: bool(nl.ones(2)),
            RuntimeError,
            "Boolean value of Tensor with more than one value is ambiguous",
        ),
        (
            lambda: nl.ones(2).item(),
            RuntimeError,
            "a Tensor with 2 elements cannot be converted to Scalar",
        ),
        (lambda: nl.ones(2, 3).t().view(6), RuntimeError, "view size is not compatible"),
        (
            lambda: nl.stack([nl.ones(2), nl.ones(3)]),
            RuntimeError,
            "stack expects each tensor to be equal size",
        ),
    ],
)
def test_errors_name_the_problem(fn, error, message):
    with pytest.raises(error, match=message):
        fn()


def test_views_share_data_and_version():
    x = nl.zeros(2, 3)
    row = x[0]
    row.add_(1)
    assert x.sum().item() == 3.0 and x._version == 1
    y = x.view(3, 2)
    y.mul_(2)
    assert x[0, 0].item() == 2.0


def test_max_with_dim_returns_values_and_indices():
    x = nl.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    values, indices = x.max(1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert x.max(dim=0).indices.tolist() == [1, 0, 1]
    assert x.argmax().item() == 3


def test_size_and_scalars_on_both_sides():
    x = nl.tensor([1.0, 2.0])
    assert x.size() == nl.Size([2]) and x.size(0) == 2 and repr(x.size()) == "nnlite.Size([2])"
    assert (
        (2 - x).tolist() == [1.0, 0.0]
        and (1 / x).tolist() == [1.0, 0.5]
        and (2**x).tolist() == [2.0, 4.0]
    )
    assert (np.float32(3) * x).tolist() == [3.0, 6.0]
    assert (nl.tensor([1, 2]) * 0.5).dtype == nl.float32  # PyTorch's promotion
    assert (nl.tensor([1, 2]) / nl.tensor([2, 2])).dtype == nl.float32


def test_custom_function_features():
    class SplitSign(nl.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.scale = scale
            ctx.save_for_backward(x)
            positive = (x > 0).float()
            ctx.mark_non_differentiable(positive)
            return x * scale, positive

        @staticmethod
        def backward(ctx, grad, grad_positive):
            assert ctx.needs_input_grad == (True, False)
            return grad * ctx.scale, None

    x = nl.tensor([1.0, -2.0], requires_grad=True)
    out, positive = SplitSign.apply(x, 3.0)
    assert out.grad_fn.name() == "SplitSignBackward" and not positive.requires_grad
    out.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]

    class WrongCount(nl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad, grad

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        WrongCount.apply(nl.ones(2, requires_grad=True)).sum().backward()

    class WrongShape(nl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return nl.ones(3)

    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
        WrongShape.apply(nl.ones(2, requires_grad=True)).sum().backward()


def test_set_num_threads_round_trip():
    before = nl.get_num_threads()
    nl.set_num_threads(1)
    try:
        assert nl.get_num_threads() == 1
        from threadpoolctl import threadpool_info

        assert all(
            pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas"
        )
    finally:
        nl.set_num_threads(before)
    with pytest.raises(ValueError, match="positive integer"):
        nl.set_num_threads(0)
