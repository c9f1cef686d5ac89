"""Transforms against ``torch.distributions.transforms``: forward, inverse, log-Jacobian,
shapes, ``sign`` and caching; log-Jacobians of square maps against finite differences; the
``biject_to``/``transform_to`` registries; ``TransformedDistribution`` through a chain."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck

D = nl.distributions

RNG = np.random.default_rng(0)
VECTOR = RNG.standard_normal((2, 3))
MATRIX = RNG.standard_normal((2, 3, 3))
POSITIVE = np.abs(VECTOR) + 0.1

# name: (build(d, lib), input array, square: whether log|det J| is that of the whole map)
TRANSFORMS = {
    "exp": (lambda d, t: d.ExpTransform(), VECTOR, True),
    "power": (lambda d, t: d.PowerTransform(t(np.array(2.5))), POSITIVE, True),
    "sigmoid": (lambda d, t: d.SigmoidTransform(), VECTOR, True),
    "tanh": (lambda d, t: d.TanhTransform(), VECTOR, True),
    "softplus": (lambda d, t: d.SoftplusTransform(), VECTOR, True),
    "affine": (lambda d, t: d.AffineTransform(t(np.array([1.0, -2.0, 0.5])), -1.5), VECTOR, True),
    "affine_event": (
        lambda d, t: d.AffineTransform(0.3, t(np.array([1.0, -2.0, 0.5])), event_dim=1),
        VECTOR,
        True,
    ),
    "compose": (
        lambda d, t: d.ComposeTransform([d.AffineTransform(0.5, 2.0), d.TanhTransform()]),
        VECTOR,
        True,
    ),
    "independent": (lambda d, t: d.IndependentTransform(d.SigmoidTransform(), 1), VECTOR, True),
    "reshape": (lambda d, t: d.ReshapeTransform((3,), (3, 1)), VECTOR, False),
    "stick_breaking": (lambda d, t: d.StickBreakingTransform(), VECTOR, False),
    "lower_cholesky": (lambda d, t: d.LowerCholeskyTransform(), MATRIX, False),
    "corr_cholesky": (lambda d, t: d.CorrCholeskyTransform(), VECTOR, False),
    "cat": (
        lambda d, t: d.CatTransform([d.ExpTransform(), d.AffineTransform(1.0, 3.0)], -1, [1, 2]),
        VECTOR,
        True,
    ),
    "stack": (
        lambda d, t: d.StackTransform(
            [d.ExpTransform(), d.identity_transform, d.TanhTransform()], -1
        ),
        VECTOR,
        True,
    ),
    "cdf": (lambda d, t: d.CumulativeDistributionTransform(d.Normal(t(0.5), t(2.0))), VECTOR, True),
}
NO_JACOBIAN = {"lower_cholesky"}
NOT_BIJECTIVE = {"lower_cholesky"}


def _make(lib, name):
    build, x, _ = TRANSFORMS[name]

    def tensor(value):
        return lib.tensor(np.asarray(value, dtype=float), dtype=lib.float64)

    return build(lib.distributions, tensor), tensor(x)


def _array(t):
    return np.asarray(t.detach().numpy(), dtype=float)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_matches_torch(name):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    (ours, x), (theirs, tx) = _make(nl, name), _make(torch, name)
    y, ty = ours(x), theirs(tx)
    np.testing.assert_allclose(_array(y), _array(ty), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(_array(ours.inv(y)), _array(theirs.inv(ty)), rtol=1e-8, atol=1e-10)
    if name not in NOT_BIJECTIVE:
        np.testing.assert_allclose(_array(ours.inv(y)), _array(x), rtol=1e-8, atol=1e-10)
    if name not in NO_JACOBIAN:
        np.testing.assert_allclose(
            _array(ours.log_abs_det_jacobian(x, y)),
            _array(theirs.log_abs_det_jacobian(tx, ty)),
            rtol=1e-9,
            atol=1e-11,
        )
    assert ours.bijective == theirs.bijective
    assert ours.domain.event_dim == theirs.domain.event_dim
    assert ours.codomain.event_dim == theirs.codomain.event_dim
    assert tuple(ours.forward_shape(x.shape)) == tuple(theirs.forward_shape(tx.shape))
    assert tuple(ours.inverse_shape(y.shape)) == tuple(theirs.inverse_shape(ty.shape))
    assert np.all(ours.codomain.check(y))


def _numerical_jacobian(fn, x, eps=1e-6):
    flat = x.reshape(-1)
    columns = []
    for k in range(flat.size):
        step = np.zeros_like(flat)
        step[k] = eps
        plus = fn((flat + step).reshape(x.shape)).reshape(-1)
        minus = fn((flat - step).reshape(x.shape)).reshape(-1)
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, -1)


@pytest.mark.parametrize("name", [k for k, v in TRANSFORMS.items() if v[2]])
def test_log_abs_det_jacobian_is_the_log_determinant(name):
    transform, x = _make(nl, name)
    row = x[0]  # one event (or one batch row of scalar events)

    def forward(values):
        return transform(nl.tensor(values, dtype=nl.float64)).numpy()

    jacobian = _numerical_jacobian(forward, row.numpy())
    expected = np.log(abs(np.linalg.det(jacobian)))
    ladj = transform.log_abs_det_jacobian(row, transform(row)).numpy()
    np.testing.assert_allclose(ladj.sum(), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "stick_breaking", "corr_cholesky"])
def test_transforms_are_differentiable(name):
    transform, x = _make(nl, name)
    x = x.detach().requires_grad_()
    for check in (gradcheck, gradgradcheck):
        assert check(lambda v: transform(v), (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
        if name not in NO_JACOBIAN:
            assert check(
                lambda v: transform.log_abs_det_jacobian(v, transform(v)),
                (x,),
                eps=1e-6,
                atol=1e-5,
                rtol=1e-3,
            )


def test_sign_cache_inverse_and_equality():
    t = D.AffineTransform(0.0, -2.0)
    assert t.sign == -1 and t.inv.sign == -1 and t.inv.inv is t
    assert D.ExpTransform() == D.ExpTransform() and D.ExpTransform() != D.TanhTransform()
    cached = D.ExpTransform(cache_size=1)
    x = nl.tensor([0.5])
    y = cached(x)
    assert cached.inv(y) is x and cached(x) is y
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        D.ExpTransform(cache_size=2)
    assert D.ComposeTransform([D.ExpTransform(), D.AffineTransform(0.0, -1.0)]).sign == -1
    with pytest.raises(ValueError, match="in_shape, out_shape have different numbers"):
        D.ReshapeTransform((2,), (3,))


CONSTRAINTS = [
    lambda c: c.real,
    lambda c: c.positive,
    lambda c: c.nonnegative,
    lambda c: c.greater_than(2.0),
    lambda c: c.greater_than_eq(-1.0),
    lambda c: c.less_than(3.0),
    lambda c: c.unit_interval,
    lambda c: c.interval(-2.0, 5.0),
    lambda c: c.half_open_interval(0.0, 1.0),
    lambda c: c.simplex,
    lambda c: c.corr_cholesky,
    lambda c: c.independent(c.positive, 1),
]


@pytest.mark.parametrize("pick", CONSTRAINTS)
@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_registries_map_onto_the_constraint_as_torch(pick, registry):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    ours = getattr(D, registry)(pick(D.constraints))
    theirs = getattr(torch.distributions, registry)(pick(torch.distributions.constraints))
    assert repr(ours) == repr(theirs)
    x = RNG.standard_normal((2, 3))
    y = ours(nl.tensor(x))
    np.testing.assert_allclose(y.numpy(), theirs(torch.tensor(x)).numpy(), rtol=1e-10)
    assert np.all(pick(D.constraints).check(y))


def test_registries_refuse_unknown_constraints_and_register_new_ones():
    with pytest.raises(NotImplementedError, match="Cannot transform _Boolean constraints"):
        D.biject_to(D.constraints.boolean)
    with pytest.raises(TypeError, match="Expected constraint to be either"):
        D.transform_to.register(3, lambda c: D.ExpTransform())


def test_transformed_distribution_matches_torch():
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")

    def build(lib):
        d = lib.distributions
        base = d.Normal(lib.tensor(np.array([0.3, -1.0])), lib.tensor(np.array([0.5, 2.0])))
        return d.TransformedDistribution(base, [d.AffineTransform(1.0, -2.0), d.ExpTransform()])

    ours, theirs = build(nl), build(torch)
    value = np.array([0.7, 2.5])
    for method in ("log_prob", "cdf"):
        np.testing.assert_allclose(
            getattr(ours, method)(nl.tensor(value, dtype=nl.float64)).numpy(),
            getattr(theirs, method)(torch.tensor(value)).numpy(),
            rtol=1e-10,
        )
    np.testing.assert_allclose(
        ours.icdf(nl.tensor(np.array([0.2, 0.9]))).numpy(),
        theirs.icdf(torch.tensor(np.array([0.2, 0.9]))).numpy(),
        rtol=1e-12,
    )
    assert repr(ours.support) == repr(theirs.support)
    with pytest.raises(ValueError, match="transforms must be a Transform or list"):
        D.TransformedDistribution(ours.base_dist, 3)
