"""Fused batch-norm kernels against the numpy formula path they replace, and against PyTorch:
forward, input and parameter gradients, running statistics."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite.autograd.gradcheck import gradcheck
from nnlite.nn.kernels import batch_norm as kernels
from nnlite.nn.ops import normalization

SHAPES = [(4, 3), (3, 2, 5), (5, 4, 3, 3), (2, 6, 1, 1), (3, 64, 4, 4)]
IDS = ["x".join(map(str, s)) for s in SHAPES]


def _inputs(shape, dtype, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.standard_normal(shape) * 3 + 1.5).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    w = rng.uniform(0.5, 1.5, shape[1]).astype(dtype)
    b = rng.standard_normal(shape[1]).astype(dtype)
    return x, g, w, b


def _step(x, g, w, b, training, dtype):
    """One batch norm forward and backward through nnlite: y, gx, gw, gb, running mean and var."""
    C = x.shape[1]
    xt = nl.tensor(x, requires_grad=True)
    wt, bt = nl.tensor(w, requires_grad=True), nl.tensor(b, requires_grad=True)
    rm = nl.tensor(np.linspace(-1, 1, C).astype(dtype))
    rv = nl.tensor(np.linspace(0.5, 2, C).astype(dtype))
    y = F.batch_norm(xt, rm, rv, wt, bt, training=training, momentum=0.2)
    y.backward(nl.tensor(g))
    return [a.detach().numpy() for a in (y, xt.grad, wt.grad, bt.grad, rm, rv)]


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
def test_fused_matches_formula_path(shape, dtype, tol, training, monkeypatch):
    x, g, w, b = _inputs(shape, dtype)
    fused = _step(x, g, w, b, training, dtype)
    monkeypatch.setattr(normalization, "_fused", lambda x: False)
    formula = _step(x, g, w, b, training, dtype)
    for out, ref in zip(fused, formula):
        assert out.dtype == ref.dtype and out.shape == ref.shape
        assert np.abs(out - ref).max() <= tol * max(1.0, np.abs(ref).max())


def test_channel_stats_and_normalize_with_relu():
    x, _, w, b = _inputs((6, 5, 3, 4), np.float64)
    mean, var = kernels.channel_stats(x)
    assert np.allclose(mean, x.mean(axis=(0, 2, 3)), rtol=0, atol=1e-13)
    assert np.allclose(var, x.var(axis=(0, 2, 3)), rtol=0, atol=1e-12)
    y = kernels.normalize(x, w, b, relu=True)
    ref = np.maximum(x * w[:, None, None] + b[:, None, None], 0)
    assert np.allclose(y, ref, rtol=1e-14, atol=1e-14) and np.array_equal(y == 0, ref == 0)
    assert (y == 0).any() and (y > 0).any()


def test_backward_without_weight_or_input_gradient():
    x, g, _, _ = _inputs((4, 3, 2, 2), np.float64)
    mean, var = kernels.channel_stats(x)
    invstd = 1 / np.sqrt(var + 1e-5)
    gx, gw, gb = kernels.backward(g, x, mean, invstd, None, True, False)
    xhat = (x - mean[:, None, None]) * invstd[:, None, None]
    assert gx is None
    assert np.allclose(gw, (g * xhat).sum(axis=(0, 2, 3)), rtol=1e-12, atol=1e-12)
    assert np.allclose(gb, g.sum(axis=(0, 2, 3)), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("training", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("shape", SHAPES, ids=IDS)
def test_fused_matches_torch(shape, training):
    torch = pytest.importorskip("torch")
    x, g, w, b = _inputs(shape, np.float32, seed=4)
    ours = _step(x, g, w, b, training, np.float32)
    C = shape[1]
    xt = torch.tensor(x, requires_grad=True)
    wt, bt = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    rm = torch.tensor(np.linspace(-1, 1, C).astype(np.float32))
    rv = torch.tensor(np.linspace(0.5, 2, C).astype(np.float32))
    y = torch.nn.functional.batch_norm(xt, rm, rv, wt, bt, training=training, momentum=0.2)
    y.backward(torch.tensor(g))
    theirs = [a.detach().numpy() for a in (y, xt.grad, wt.grad, bt.grad, rm, rv)]
    for out, ref in zip(ours, theirs):
        assert out.shape == ref.shape
        assert np.abs(out - ref).max() <= 2e-5 * max(1.0, np.abs(ref).max())


def test_fused_gradcheck_float64():
    x, _, w, b = _inputs((3, 4, 2, 3), np.float64, seed=2)
    args = tuple(nl.tensor(a, requires_grad=True) for a in (x, w, b))
    assert gradcheck(lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True), args)
