"""Every distribution family of ``tests/distributions/family_cases.py`` against
``torch.distributions`` on the same float64 parameters (shapes, moments, ``log_prob``,
``entropy``, ``cdf``/``icdf``, ``rsample``'s availability), with ``gradcheck`` and
``gradgradcheck`` of ``log_prob`` and ``rsample``, samples inside the support and near the mean,
``expand``, and PyTorch's errors for invalid parameters."""

import numpy as np
import pytest
from family_cases import FAMILIES, GAMMA_BASED, TORCH_FLOAT32

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck

D = nl.distributions
IDS = list(FAMILIES)


def _params(lib, arrays, grad=True, dtype=None):
    dtype = dtype or lib.float64
    return [lib.tensor(x, dtype=dtype, requires_grad=grad) for x in arrays]


def _both(name):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    arrays, build, values, _ = FAMILIES[name]
    ours = build(D, *_params(nl, arrays, grad=False))
    single = name in TORCH_FLOAT32
    dtype = torch.float32 if single else torch.float64
    theirs = build(torch.distributions, *_params(torch, arrays, grad=False, dtype=dtype))
    theirs.single_precision = single
    return torch, ours, theirs, values


def _close(ours, theirs, what, single=False):
    np.testing.assert_allclose(
        np.asarray(ours.detach().numpy(), dtype=float),
        np.asarray(theirs.detach().numpy(), dtype=float),
        rtol=1e-5 if single else 1e-7,
        atol=1e-6 if single else 1e-10,
        err_msg=what,
    )


def _torch_value(torch, fn):
    """PyTorch's result, or None where PyTorch does not define it."""
    try:
        return fn()
    except (NotImplementedError, AttributeError, RuntimeError):
        return None


@pytest.mark.parametrize("name", IDS)
def test_shapes_moments_and_densities_match_torch(name):
    torch, ours, theirs, values = _both(name)
    dtype = torch.float32 if theirs.single_precision else torch.float64

    def close(a, b, what):
        _close(a, b, what, theirs.single_precision)

    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert ours.has_rsample == theirs.has_rsample
    assert repr(ours).replace("nnlite.", "") == repr(theirs).replace("torch.", "")
    for moment in ("mean", "mode", "variance", "stddev"):
        expected = _torch_value(torch, lambda m=moment: getattr(theirs, m))
        if expected is not None:
            close(getattr(ours, moment), expected, moment)
    close(
        ours.log_prob(nl.tensor(values)),
        theirs.log_prob(torch.tensor(values, dtype=dtype)),
        "log_prob",
    )
    expected = _torch_value(torch, theirs.entropy)
    if expected is not None:
        close(ours.entropy(), expected, "entropy")
    expected = _torch_value(torch, lambda: theirs.cdf(torch.tensor(values, dtype=dtype)))
    if expected is not None:
        close(ours.cdf(nl.tensor(values)), expected, "cdf")
    levels = np.full(tuple(theirs.batch_shape), 0.3)
    expected = _torch_value(torch, lambda: theirs.icdf(torch.tensor(levels, dtype=dtype)))
    if expected is not None:
        close(ours.icdf(nl.tensor(levels)), expected, "icdf")


@pytest.mark.parametrize("name", IDS)
def test_samples_have_the_shape_lie_in_the_support_and_expand(name):
    torch, ours, theirs, _ = _both(name)
    nl.manual_seed(0)
    samples = ours.sample((5, 2))
    assert tuple(samples.shape) == tuple(theirs.sample((5, 2)).shape)
    assert not samples.requires_grad
    support = ours.support
    assert np.all(support.check(samples)), f"samples outside {support!r}"
    bigger = (3, *tuple(ours.batch_shape))
    expanded = ours.expand(bigger)
    assert tuple(expanded.batch_shape) == bigger
    assert tuple(expanded.sample().shape) == tuple(theirs.expand(bigger).sample().shape)
    torch.manual_seed(0)


def _finite_mean(dist):
    try:
        mean = dist.mean.detach().numpy()
    except NotImplementedError:
        return None
    return mean if np.all(np.isfinite(mean)) else None


@pytest.mark.parametrize("name", IDS)
def test_sample_mean_is_near_the_mean(name):
    arrays, build, _, _ = FAMILIES[name]
    dist = build(D, *_params(nl, arrays, grad=False))
    mean = _finite_mean(dist)
    if mean is None or name.startswith(("von_mises", "relaxed")):
        pytest.skip("no finite (linear) mean to compare with")
    nl.manual_seed(1)
    draws = dist.sample((4000,)).numpy()
    spread = np.sqrt(np.var(draws, axis=0) / 4000)
    assert np.all(np.abs(draws.mean(0) - mean) < 6 * spread + 1e-9)


def _checked(name, fn, params, second_order=True):
    assert gradcheck(fn, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)
    if second_order:
        assert gradgradcheck(fn, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", IDS)
def test_log_prob_and_entropy_gradcheck_and_gradgradcheck(name):
    arrays, build, values, differentiable = FAMILIES[name]
    fixed = _params(nl, arrays, grad=False)

    def log_prob(*free):
        params = list(fixed)
        for position, value in zip(differentiable, free):
            params[position] = value
        dist = build(D, *params)
        total = dist.log_prob(nl.tensor(values)).sum()
        try:
            return total + dist.entropy().sum()
        except NotImplementedError:
            return total

    free = [_params(nl, [arrays[k]])[0] for k in differentiable]
    _checked(name, log_prob, free)


@pytest.mark.parametrize(
    "name",
    [
        k
        for k in IDS
        if k not in GAMMA_BASED and FAMILIES[k][1](D, *_params(nl, FAMILIES[k][0])).has_rsample
    ],
)
def test_rsample_gradcheck(name):
    arrays, build, _, differentiable = FAMILIES[name]
    fixed = _params(nl, arrays, grad=False)

    def draw(*free):
        params = list(fixed)
        for position, value in zip(differentiable, free):
            params[position] = value
        nl.manual_seed(3)  # the same noise at every evaluation
        return build(D, *params).rsample((2,))

    free = [_params(nl, [arrays[k]])[0] for k in differentiable]
    straight_through = name == "one_hot_straight_through"
    if straight_through:
        # the value is a one-hot vector (constant nearby); only the gradient passes through
        sample = draw(*free)
        sample.sum().backward()
        assert free[0].grad is not None
        return
    _checked(name, draw, free, second_order=name not in {"mixture"})


def test_gamma_rsample_gradient_is_the_implicit_derivative():
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    alpha = nl.tensor([0.3, 1.0, 4.0, 40.0], dtype=nl.float64, requires_grad=True)
    rate = nl.tensor([1.0, 2.0, 0.5, 1.5], dtype=nl.float64, requires_grad=True)
    nl.manual_seed(5)
    x = D.Gamma(alpha, rate).rsample()
    x.sum().backward()
    # dx/dalpha = -(dP/dalpha)(alpha, rate x) / (rate p(rate x)), P from PyTorch's gammainc
    a, r, value = (torch.tensor(t.detach().numpy()) for t in (alpha, rate, x))
    z, h = r * value, 1e-6
    dp = (torch.special.gammainc(a + h, z) - torch.special.gammainc(a - h, z)) / (2 * h)
    density = torch.exp((a - 1) * z.log() - z - torch.lgamma(a))
    np.testing.assert_allclose(alpha.grad.numpy(), (-dp / density / r).numpy(), rtol=1e-5)
    np.testing.assert_allclose(rate.grad.numpy(), (-value / r).numpy(), rtol=1e-10)
    # the samples follow Gamma(alpha, rate)
    nl.manual_seed(6)
    many = D.Gamma(alpha.detach(), rate.detach()).sample((20000,)).numpy()
    np.testing.assert_allclose(many.mean(0), (alpha / rate).detach().numpy(), rtol=0.05)


@pytest.mark.parametrize("name", sorted(GAMMA_BASED))
def test_gamma_based_rsample_has_gradients(name):
    arrays, build, _, differentiable = FAMILIES[name]
    params = _params(nl, arrays)
    nl.manual_seed(2)
    build(D, *params).rsample((3,)).sum().backward()
    for k in differentiable:
        assert params[k].grad is not None and np.all(np.isfinite(params[k].grad.numpy()))


INVALID = [
    lambda d, t: d.Gamma(t([1.0]), t([-1.0])),
    lambda d, t: d.Gamma(t([1.0]), t([1.0])).log_prob(t([-1.0])),
    lambda d, t: d.Exponential(t([0.0])),
    lambda d, t: d.Beta(t([1.0]), t([0.0])),
    lambda d, t: d.Beta(t([1.0]), t([2.0])).log_prob(t([1.5])),
    lambda d, t: d.Dirichlet(t(1.0)),
    lambda d, t: d.Laplace(t([0.0]), t([-1.0])),
    lambda d, t: d.Cauchy(t([0.0]), t([0.0])),
    lambda d, t: d.HalfNormal(t([-1.0])),
    lambda d, t: d.HalfNormal(t([1.0])).log_prob(t([-1.0])),
    lambda d, t: d.LogNormal(t([0.0]), t([-1.0])),
    lambda d, t: d.Pareto(t([1.0]), t([1.0])).log_prob(t([0.5])),
    lambda d, t: d.StudentT(t([-1.0])),
    lambda d, t: d.Poisson(t([-1.0])),
    lambda d, t: d.Poisson(t([1.0])).log_prob(t([0.5])),
    lambda d, t: d.Geometric(probs=t([0.0])),
    lambda d, t: d.Geometric(),
    lambda d, t: d.Binomial(t([3.0]), probs=t([0.5])).log_prob(t([4.0])),
    lambda d, t: d.Binomial(t([3.0]), probs=t([1.5])),
    lambda d, t: d.Multinomial(t(3.0), probs=t([0.5, 0.5])),
    lambda d, t: d.OneHotCategorical(probs=t([0.5, 0.5])).log_prob(t([0.5, 0.5])),
    lambda d, t: d.LowRankMultivariateNormal(
        t([0.0, 0.0]), t([[1.0], [1.0], [1.0]]), t([1.0, 1.0])
    ),
    lambda d, t: d.MixtureSameFamily(d.Normal(t(0.0), t(1.0)), d.Normal(t([0.0]), t([1.0]))),
    lambda d, t: d.TransformedDistribution(d.Normal(t(0.0), t(1.0)), 3),
    lambda d, t: d.VonMises(t([0.0]), t([-1.0])),
    lambda d, t: d.Weibull(t([1.0]), t([0.0])),
    lambda d, t: d.ContinuousBernoulli(probs=t([1.5]), validate_args=True),
    lambda d, t: d.LKJCholesky(1, t(1.0)),
    lambda d, t: d.LKJCholesky(2, t(-1.0)),
    lambda d, t: d.Wishart(t(1.0), t([[1.0, 0.0], [0.0, 1.0]]), t([[1.0, 0.0], [0.0, 1.0]])),
    lambda d, t: d.Wishart(t(0.5), t([[1.0, 0.0], [0.0, 1.0]])),
]


@pytest.mark.parametrize("build", INVALID)
def test_invalid_arguments_raise_pytorchs_errors(build):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    errors = []
    for dists, lib in ((D, nl), (torch.distributions, torch)):
        with pytest.raises(Exception) as caught:
            build(dists, lambda v, lib=lib: lib.tensor(v, dtype=lib.float32))
        errors.append((type(caught.value).__name__, str(caught.value).replace("torch.", "nnlite.")))
    assert errors[0] == errors[1]


def test_wishart_redraws_singular_samples():
    # df just above p - 1 makes singular draws likely; each returned sample is positive definite
    cov = nl.tensor(np.eye(3))
    with pytest.warns(UserWarning):
        dist = D.Wishart(nl.tensor(2.05, dtype=nl.float64), cov)
    nl.manual_seed(0)
    with np.errstate(all="ignore"):
        samples = dist.rsample((200,), max_try_correction=50)
    assert np.all(D.constraints.positive_definite.check(samples))
