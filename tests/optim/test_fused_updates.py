"""The one-pass optimizer kernels give numpy's results bit for bit, on one thread and split."""

import importlib
import itertools

import numpy as np
import pytest

import nnlite as nl
from nnlite.optim import _fused


def numpy_sgd_momentum(p, g, buf, lr, momentum, dampening, weight_decay, nesterov, maximize):
    """SGD's momentum step written as separate numpy passes (the order PyTorch's rule gives)."""
    if maximize:
        g = -g
    if weight_decay != 0:
        g = g + weight_decay * p
    buf *= momentum
    buf += g if dampening == 0 else (1 - dampening) * g
    g = g + momentum * buf if nesterov else buf
    p -= lr * g


OPTIONS = list(itertools.product([0.0, 0.3], [0.0, 1e-2], [False, True], [False, True]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [7, _fused.MIN_PARALLEL_ELEMENTS + 5])
@pytest.mark.parametrize(("dampening", "weight_decay", "nesterov", "maximize"), OPTIONS)
def test_sgd_momentum_kernel_equals_numpy_passes(
    dtype, size, dampening, weight_decay, nesterov, maximize
):
    rng = np.random.default_rng(size)
    p, g, buf = (rng.standard_normal(size).astype(dtype) for _ in range(3))
    options = dict(lr=0.1, momentum=0.9, dampening=dampening, weight_decay=weight_decay)
    flags = dict(nesterov=nesterov, maximize=maximize)
    p_ref, buf_ref = p.copy(), buf.copy()
    numpy_sgd_momentum(p_ref, g, buf_ref, **options, **flags)
    assert _fused.fusable(p, g, buf)
    _fused.sgd_momentum_(p, g, buf, **options, **flags)
    np.testing.assert_array_equal(p, p_ref)
    np.testing.assert_array_equal(buf, buf_ref)


def test_split_over_threads_equals_one_thread():
    before = nl.get_num_threads()
    rng = np.random.default_rng(0)
    p, g, buf = (
        rng.standard_normal(_fused.MIN_PARALLEL_ELEMENTS * 2, np.float32) for _ in range(3)
    )
    results = []
    try:
        for threads in (1, 2):
            nl.set_num_threads(threads)
            p1, b1 = p.copy(), buf.copy()
            _fused.sgd_momentum_(
                p1,
                g,
                b1,
                lr=0.01,
                momentum=0.9,
                dampening=0.0,
                weight_decay=1e-4,
                nesterov=True,
                maximize=False,
            )
            results.append((p1, b1))
    finally:
        nl.set_num_threads(before)
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])


@pytest.mark.parametrize(
    "arrays",
    [
        lambda: (np.ones(4, np.float32), np.ones(4, np.float64), np.ones(4, np.float32)),
        lambda: (
            np.ones((4, 4), np.float32).T,
            np.ones((4, 4), np.float32),
            np.ones((4, 4), np.float32),
        ),
        lambda: (np.ones(4, np.int64), np.ones(4, np.int64), np.ones(4, np.int64)),
        lambda: (np.ones(4, np.float32), np.ones(5, np.float32), np.ones(4, np.float32)),
    ],
    ids=["mixed dtypes", "transposed", "integers", "sizes differ"],
)
def test_arrays_the_kernel_does_not_take_go_through_numpy(arrays):
    assert not _fused.fusable(*arrays())


def test_sgd_optimizer_uses_the_kernel_and_matches_numpy_over_steps(monkeypatch):
    sgd_module = importlib.import_module("nnlite.optim.sgd")

    calls = []
    kernel = sgd_module.sgd_momentum_
    monkeypatch.setattr(
        sgd_module, "sgd_momentum_", lambda *a, **k: calls.append(1) or kernel(*a, **k)
    )
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((256, 64)).astype(np.float32)
    grads = [rng.standard_normal((256, 64)).astype(np.float32) for _ in range(4)]
    w = nl.nn.Parameter(nl.tensor(w0.copy()))
    opt = nl.optim.SGD([w], lr=0.05, momentum=0.9, weight_decay=1e-3, nesterov=True)
    p_ref, buf_ref = w0.copy(), None
    for g in grads:
        w.grad = nl.tensor(g)
        opt.step()
        g_eff = g + np.float32(1e-3) * p_ref
        if buf_ref is None:
            buf_ref = g_eff.copy()
        else:
            buf_ref *= np.float32(0.9)
            buf_ref += g_eff
        p_ref -= np.float32(0.05) * (g_eff + np.float32(0.9) * buf_ref)
    np.testing.assert_array_equal(w.detach().numpy(), p_ref)
    assert len(calls) == len(grads) - 1  # the first step creates the buffer


def strided(a):
    """A copy of ``a`` that is not contiguous (so the optimizers take their numpy passes)."""
    wide = np.zeros((a.size, 2), a.dtype)
    wide[:, 0] = a
    return wide[:, 0]


ADAM_OPTIONS = list(
    itertools.product(
        [(0.9, 0.999), (0.3, 0.5)], [0.0, 1e-2], [False, True], [False, True], [False, True]
    )
)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [_fused.ADAM_MIN_ELEMENTS + 9, _fused.MIN_PARALLEL_ELEMENTS + 3])
@pytest.mark.parametrize(
    ("betas", "weight_decay", "amsgrad", "maximize", "decoupled"), ADAM_OPTIONS
)
def test_adam_kernel_equals_numpy_passes(
    dtype, size, betas, weight_decay, amsgrad, maximize, decoupled
):
    rng = np.random.default_rng(size)
    p0 = rng.standard_normal(size).astype(dtype)
    grads = [rng.standard_normal(size).astype(dtype) for _ in range(3)]
    grads[1][:2] = np.nan if amsgrad else grads[1][:2]  # numpy's maximum lets NaN win
    options = dict(
        lr=0.01,
        betas=betas,
        eps=1e-8,
        weight_decay=weight_decay,
        amsgrad=amsgrad,
        maximize=maximize,
        decoupled_weight_decay=decoupled,
    )
    fused_p, fused_state = [p0.copy()], [{}]
    numpy_p, numpy_state = [strided(p0)], [{}]
    for g in grads:
        nl.optim.adam(fused_p, [g], fused_state, **options)
        nl.optim.adam(numpy_p, [strided(g)], numpy_state, **options)
        numpy_state[0] = {k: strided(v) if v.ndim else v for k, v in numpy_state[0].items()}
    np.testing.assert_array_equal(fused_p[0], numpy_p[0])
    for key, value in fused_state[0].items():
        np.testing.assert_array_equal(value, numpy_state[0][key])


def test_adam_optimizer_uses_the_kernel(monkeypatch):
    adam_module = importlib.import_module("nnlite.optim.adam")
    calls = []
    kernel = adam_module.adam_
    monkeypatch.setattr(adam_module, "adam_", lambda *a, **k: calls.append(1) or kernel(*a, **k))
    w = nl.nn.Parameter(nl.randn(64, 32))
    opt = nl.optim.AdamW([w], lr=0.01)
    for _ in range(2):
        w.grad = nl.randn(64, 32)
        opt.step()
    assert len(calls) == 2


def test_adam_kernel_divides_as_numpy_does():
    # eps=0 and a zero gradient: 0/0 is NaN in numpy, not an exception
    size = _fused.ADAM_MIN_ELEMENTS
    options = dict(
        lr=0.1,
        betas=(0.9, 0.999),
        eps=0.0,
        weight_decay=0.0,
        amsgrad=False,
        maximize=False,
        decoupled_weight_decay=False,
    )
    g = np.zeros(size, np.float32)
    g[1] = 1.0
    fused_p, numpy_p = [np.ones(size, np.float32)], [strided(np.ones(size, np.float32))]
    nl.optim.adam(fused_p, [g], [{}], **options)
    with np.errstate(invalid="ignore"):
        nl.optim.adam(numpy_p, [strided(g)], [{}], **options)
    assert np.isnan(fused_p[0][0]) and not np.isnan(fused_p[0][1])
    np.testing.assert_array_equal(fused_p[0], numpy_p[0])
