"""FractionalMaxPool2d/3d and their functions: the same windows as PyTorch for the same
_random_samples (values and indices), fresh windows per call without them, PyTorch's errors."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "name, kwargs, shape",
    [
        ("FractionalMaxPool2d", dict(kernel_size=3, output_ratio=(0.5, 0.7)), (2, 3, 10, 9)),
        (
            "FractionalMaxPool2d",
            dict(kernel_size=(2, 3), output_size=4, return_indices=True),
            (3, 8, 9),
        ),
        (
            "FractionalMaxPool3d",
            dict(kernel_size=2, output_size=(2, 3, 4), return_indices=True),
            (2, 2, 5, 6, 7),
        ),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_modules_as_pytorch(name, kwargs, shape, dtype):
    torch = _torch()
    dims = 2 if name.endswith("2d") else 3
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    batch = shape[0] if len(shape) == dims + 2 else 1
    samples = rng.random((batch, shape[-dims - 1], dims)).astype(dtype)
    m = getattr(nn, name)(**kwargs, _random_samples=nl.tensor(samples))
    t = getattr(torch.nn, name)(**kwargs, _random_samples=torch.tensor(samples))
    assert repr(m) == repr(t)
    ours, theirs = m(nl.tensor(x)), t(torch.tensor(x))
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours, theirs):
        assert a.dtype == getattr(nl, str(b.dtype).split(".")[-1])
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_fresh_windows_per_call_and_gradient_through_the_indices():
    nl.manual_seed(0)
    x = nl.randn(1, 1, 20, 20, requires_grad=True)
    pool = nn.FractionalMaxPool2d(2, output_size=9, return_indices=True)
    draws = {tuple(pool(x)[1].flatten().tolist()) for _ in range(5)}
    assert len(draws) > 1
    out, idx = pool(x)
    out.sum().backward()
    expected = np.zeros(400)
    expected[idx.flatten().numpy()] = 1.0  # each maximum once (windows may overlap)
    np.testing.assert_array_equal(x.grad.flatten().numpy() > 0, expected > 0)


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.fractional_max_pool2d(t.ones(1, 2, 5, 5), 3, output_size=4),
        lambda F, t: F.fractional_max_pool2d(t.ones(1, 2, 5, 5), 2, output_size=(2, 5)),
        lambda F, t: F.fractional_max_pool2d(t.ones(1, 2, 5, 5), 2),
        lambda F, t: F.fractional_max_pool2d(t.ones(1, 2, 5, 5), 2, output_ratio=(0.5, 0.5, 0.5)),
        lambda F, t: F.fractional_max_pool2d(t.ones(1, 2, 5, 5), 2, output_ratio=0.5),
        lambda F, t: F.fractional_max_pool2d(
            t.ones(1, 2, 5, 5), 2, output_size=2, _random_samples=t.rand(1, 3, 2)
        ),
        lambda F, t: F.fractional_max_pool2d(
            t.ones(1, 2, 5, 5), 2, output_size=2, _random_samples=t.rand(1, 2, 3)
        ),
        lambda F, t: F.fractional_max_pool3d(t.ones(1, 1, 3, 5, 5), 2, output_size=(3, 2, 2)),
        lambda F, t: t.nn.FractionalMaxPool2d(2),
        lambda F, t: t.nn.FractionalMaxPool2d(2, output_size=2, output_ratio=0.5),
        lambda F, t: t.nn.FractionalMaxPool3d(2, output_ratio=1.5),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(F, nl))
    assert ours is not None
    assert ours == _error(lambda: call(torch.nn.functional, torch))
