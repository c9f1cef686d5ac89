"""Rows for the public names no other op table checks (aliases, in-place forms' plain names, the
rounding functions, the ``*_with_indices`` poolings, the dropouts): gradcheck and gradgradcheck in
float64 and, when PyTorch is importable, values and gradients against PyTorch. One row per name:
``fn(lib, *tensors)`` runs the same code on ``nnlite`` and ``torch``."""

import warnings

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(7)


def arr(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


def away(*shape):
    """Values at least 0.2 from zero and from each other's kinks (abs, clamp, rounding)."""
    return rng.choice([-1.0, 1.0], shape) * rng.uniform(0.2, 0.4, shape)


def spd(n):
    a = rng.uniform(-1.0, 1.0, (n, n))
    return a @ a.T + n * np.eye(n)


def _quiet(call):
    """Runs ``call`` with the deprecation warnings of the old forms (upsample, cholesky, qr)
    silenced: the rows check the old forms' values and gradients."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call()


def _f(L):
    return L.nn.functional


def _assigned(x, index, value):
    """``x`` after ``x[index] = value`` (indexed assignment, recorded in the graph)."""
    x[index] = value
    return x


UNIT = dict(low=-0.8, high=0.8)
POS = dict(low=0.5, high=2.0)
# values 0.1-0.4 from the nearest integer and from the halves: floor, ceil, round and trunc are
# flat there, and finite differences see their zero gradient
STEPS = np.array([[0.2, 1.3, -1.7], [2.35, -0.3, 0.65]])

# (name, fn(lib, *tensors), input arrays)
ROWS = [
    # ---------------------------------------------------------------- aliases
    ("absolute", lambda L, x: L.absolute(x), [away(4)]),
    ("arccos", lambda L, x: L.arccos(x), [arr(3, **UNIT)]),
    ("arccosh", lambda L, x: L.arccosh(x), [arr(3, low=1.5, high=3.0)]),
    ("arcsin", lambda L, x: L.arcsin(x), [arr(3, **UNIT)]),
    ("arcsinh", lambda L, x: L.arcsinh(x), [arr(3)]),
    ("arctan", lambda L, x: L.arctan(x), [arr(3)]),
    ("arctan2", lambda L, a, b: L.arctan2(a, b), [arr(3), arr(3, **POS)]),
    ("arctanh", lambda L, x: L.arctanh(x), [arr(3, **UNIT)]),
    ("negative", lambda L, x: L.negative(x), [arr(3)]),
    ("positive", lambda L, x: L.positive(x) * x, [arr(3)]),
    ("subtract", lambda L, a, b: L.subtract(a, b, alpha=2), [arr(3), arr(3)]),
    ("divide", lambda L, a, b: L.divide(a, b), [arr(3), arr(3, **POS)]),
    ("true_divide", lambda L, a, b: L.true_divide(a, b), [arr(3), arr(3, **POS)]),
    ("reciprocal", lambda L, x: L.reciprocal(x), [arr(3, **POS)]),
    ("rsqrt", lambda L, x: L.rsqrt(x), [arr(3, **POS)]),
    ("square", lambda L, x: L.square(x), [arr(3)]),
    ("rad2deg", lambda L, x: L.rad2deg(x), [arr(3)]),
    ("clamp_max", lambda L, x: L.clamp_max(x, 0.0), [away(4)]),
    ("clip", lambda L, x: L.clip(x, -0.3, 0.3), [away(4)]),
    ("fmin", lambda L, a, b: L.fmin(a, b), [arr(4), arr(4)]),
    ("float_power", lambda L, a, b: L.float_power(a, b), [arr(3, **POS), arr(3)]),
    ("concatenate", lambda L, a, b: L.concatenate([a, b], 1), [arr(2, 2), arr(2, 1)]),
    ("concat", lambda L, a, b: L.concat((a, b)), [arr(2), arr(3)]),
    ("row_stack", lambda L, a, b: L.row_stack((a, b)), [arr(3), arr(3)]),
    ("swapdims", lambda L, x: L.swapdims(x, 0, 1), [arr(2, 3)]),
    ("moveaxis", lambda L, x: L.moveaxis(x, 0, -1), [arr(2, 3, 2)]),
    ("adjoint", lambda L, x: L.adjoint(x), [arr(2, 3)]),
    ("flipud", lambda L, x: L.flipud(x), [arr(3, 2)]),
    ("ravel", lambda L, x: L.ravel(x.mT), [arr(2, 3)]),
    ("atleast_1d", lambda L, x: L.atleast_1d(x.sum()), [arr(2)]),
    ("atleast_2d", lambda L, x: L.atleast_2d(x), [arr(3)]),
    ("diagflat", lambda L, x: L.diagflat(x, 1), [arr(2, 2)]),
    ("ger", lambda L, a, b: L.ger(a, b), [arr(3), arr(2)]),
    ("vdot", lambda L, a, b: L.vdot(a, b), [arr(3), arr(3)]),
    ("trapz", lambda L, y: L.trapz(y, dim=0), [arr(4, 2)]),
    ("matrix_exp", lambda L, x: L.matrix_exp(x), [arr(3, 3)]),
    ("cholesky", lambda L, a: _quiet(lambda: L.cholesky((a + a.mT) / 2)), [spd(3)]),
    ("qr", lambda L, a: (lambda q, r: q @ r)(*_quiet(lambda: L.qr(a))), [arr(4, 3)]),
    # ---------------------------------------------------------------- splits and selections
    ("split", lambda L, x: L.split(x, [1, 2], dim=1)[1], [arr(2, 3)]),
    ("split_with_sizes", lambda L, x: L.split_with_sizes(x, [2, 1])[0], [arr(3, 2)]),
    ("chunk", lambda L, x: L.chunk(x, 2, 0)[1], [arr(3, 2)]),
    ("hsplit", lambda L, x: L.hsplit(x, [1, 3])[1], [arr(2, 4)]),
    ("vsplit", lambda L, x: L.vsplit(x, 2)[1], [arr(4, 2)]),
    ("dsplit", lambda L, x: L.dsplit(x, [1])[1], [arr(2, 2, 3)]),
    ("select", lambda L, x: L.select(x, 1, -1), [arr(2, 3)]),
    ("unsqueeze", lambda L, x: L.unsqueeze(x, 1), [arr(3)]),
    ("t", lambda L, x: L.t(x), [arr(2, 3)]),
    ("amax", lambda L, x: L.amax(x, 1), [arr(2, 3)]),
    ("amin", lambda L, x: L.amin(x, dim=(0, 1)), [arr(2, 3)]),
    ("mode", lambda L, x: L.mode(x, 1).values, [arr(2, 3)]),
    ("nanmedian", lambda L, x: L.nanmedian(x, 0).values, [arr(3, 2)]),
    ("nanquantile", lambda L, x: L.nanquantile(x, 0.3, dim=1), [arr(2, 5)]),
    (
        "masked_fill",
        lambda L, x: L.masked_fill(x, L.tensor([True, False, True]), -2.0),
        [arr(2, 3)],
    ),
    # ---------------------------------------------------------------- rounding: zero gradient
    ("floor", lambda L, x: L.floor(x) * x, [STEPS]),
    ("ceil", lambda L, x: L.ceil(x) * x, [STEPS]),
    ("round", lambda L, x: L.round(x) * x, [STEPS]),
    ("trunc", lambda L, x: L.trunc(x) * x, [STEPS]),
    ("fix", lambda L, x: L.fix(x) * x, [STEPS]),
    # ---------------------------------------------------------------- Tensor methods
    ("contiguous", lambda L, x: x.mT.contiguous(), [arr(2, 3)]),
    ("expand_as", lambda L, a, b: a.expand_as(b) * b, [arr(3), arr(2, 3)]),
    ("reshape_as", lambda L, a, b: a.reshape_as(b) * b, [arr(6), arr(2, 3)]),
    ("view_as", lambda L, a, b: a.view_as(b) * b, [arr(6), arr(3, 2)]),
    ("type_as", lambda L, a, b: a.type_as(b) * b, [arr(3), arr(3)]),
    ("sum_to_size", lambda L, x: x.sum_to_size(1, 3), [arr(2, 3)]),
    ("unflatten", lambda L, x: x.unflatten(1, (2, 3)), [arr(2, 6)]),
    ("double", lambda L, x: x.double() * x, [arr(3)]),
    (
        "copy_",
        lambda L, a, b: (a * 1).copy_(b) * a,
        [arr(2, 3), arr(3)],
    ),
    (
        "setitem",
        lambda L, x, v: _assigned(x * 1, (slice(None), L.tensor([2, 0])), v),
        [arr(2, 3), arr(2, 2)],
    ),
    # ---------------------------------------------------------------- nn.functional
    (
        "adaptive_max_pool1d_with_indices",
        lambda L, x: _f(L).adaptive_max_pool1d_with_indices(x, 3)[0],
        [rng.permutation(16).reshape(1, 2, 8) * 0.1],
    ),
    (
        "adaptive_max_pool2d_with_indices",
        lambda L, x: _f(L).adaptive_max_pool2d_with_indices(x, (2, 3))[0],
        [rng.permutation(40).reshape(1, 2, 4, 5) * 0.1],
    ),
    (
        "adaptive_max_pool3d_with_indices",
        lambda L, x: _f(L).adaptive_max_pool3d_with_indices(x, 2)[0],
        [rng.permutation(54).reshape(1, 2, 3, 3, 3) * 0.1],
    ),
    (
        "max_pool2d_with_indices",
        lambda L, x: _f(L).max_pool2d_with_indices(x, 2, 1)[0],
        [rng.permutation(32).reshape(2, 1, 4, 4) * 0.1],
    ),
    (
        "native_channel_shuffle",
        lambda L, x: _f(L).native_channel_shuffle(x, 2),
        [arr(1, 4, 2, 2)],
    ),
    ("hardsigmoid", lambda L, x: _f(L).hardsigmoid(x * 4), [away(5)]),
    (
        "upsample",
        lambda L, x: _quiet(
            lambda: _f(L).upsample(x, scale_factor=2, mode="bilinear", align_corners=False)
        ),
        [arr(1, 1, 2, 3)],
    ),
    (
        "upsample_bilinear",
        lambda L, x: _quiet(lambda: _f(L).upsample_bilinear(x, scale_factor=2)),
        [arr(1, 2, 2, 3)],
    ),
    (
        "upsample_nearest",
        lambda L, x: _quiet(lambda: _f(L).upsample_nearest(x, size=(3, 4))),
        [arr(1, 2, 2, 3)],
    ),
]


def _seeded(call):
    """``call`` after reseeding: every evaluation draws the same mask (finite differences)."""
    nl.manual_seed(0)
    return call()


# Random ops: the same draw at every evaluation, but not PyTorch's draw: finite differences only
GRADCHECK_ONLY = [
    (
        "dropout1d",
        lambda L, x: _seeded(lambda: _f(L).dropout1d(x, 0.5, training=True)),
        [arr(2, 4, 3)],
    ),
    (
        "dropout2d",
        lambda L, x: _seeded(lambda: _f(L).dropout2d(x, 0.5, training=True)),
        [arr(2, 4, 2, 2)],
    ),
    (
        "dropout3d",
        lambda L, x: _seeded(lambda: _f(L).dropout3d(x, 0.5, training=True)),
        [arr(2, 4, 2, 1, 2)],
    ),
    (
        "alpha_dropout",
        lambda L, x: _seeded(lambda: _f(L).alpha_dropout(x, 0.4, training=True)),
        [arr(3, 4)],
    ),
    (
        "feature_alpha_dropout",
        lambda L, x: _seeded(lambda: _f(L).feature_alpha_dropout(x, 0.4, training=True)),
        [arr(2, 4, 3)],
    ),
    (
        "gumbel_softmax",
        lambda L, x: _seeded(lambda: _f(L).gumbel_softmax(x, tau=0.7)),
        [arr(2, 3)],
    ),
]


# PyTorch has no backward for these: values compared, gradients by finite differences only
TORCH_BACKWARD_REFUSES = {"native_channel_shuffle"}


def _run(lib, fn, arrays):
    tensors = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    return fn(lib, *tensors), tensors


@pytest.mark.parametrize(
    "name,fn,arrays", ROWS + GRADCHECK_ONLY, ids=[r[0] for r in ROWS + GRADCHECK_ONLY]
)
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name,fn,arrays", ROWS, ids=[r[0] for r in ROWS])
def test_matches_pytorch(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours, our_in = _run(nl, fn, arrays)
    theirs, their_in = _run(torch, fn, arrays)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-7, atol=1e-9)
    if name in TORCH_BACKWARD_REFUSES:
        return
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    for a, b in zip(our_in, their_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name,fn,arrays", GRADCHECK_ONLY, ids=[r[0] for r in GRADCHECK_ONLY])
def test_random_rows_draw_a_mask(name, fn, arrays):
    """The seeded rows really drop (or, for gumbel_softmax, really sample): not an identity."""
    x = nl.tensor(arrays[0], dtype=nl.float64)
    assert not np.allclose(fn(nl, x).numpy(), x.numpy())
