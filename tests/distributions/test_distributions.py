"""``nnlite.distributions`` against ``torch.distributions``: the same parameters (float64) give
the same shapes, ``repr``, log densities, entropies, moments and gradients; gradients and
second-order gradients of ``log_prob``, ``entropy``, ``rsample`` and ``kl_divergence`` agree with
finite differences; samples follow the distribution; bad arguments raise PyTorch's errors."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck

D = nl.distributions


def _torch():
    return pytest.importorskip("torch")


def _params(lib, arrays):
    return [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]


def _spd(seed, d=3, batch=()):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal(batch + (d, d))
    return a @ np.swapaxes(a, -1, -2) + d * np.eye(d)


def _tril(seed, d=3):
    return np.linalg.cholesky(_spd(seed, d))


# name: (params as float64 arrays, build(lib's distributions module, param tensors), values)
CASES = {
    "normal": (
        [np.array([0.3, -1.0, 2.0]), np.array([0.5, 1.5, 2.0])],
        lambda d, loc, scale: d.Normal(loc, scale),
        np.array([0.1, 0.7, -2.0]),
    ),
    "normal_broadcast": (
        [np.array([[0.3], [-1.0]]), np.array([0.5, 1.5, 2.0])],
        lambda d, loc, scale: d.Normal(loc, scale),
        np.array([0.1, 0.7, -2.0]),
    ),
    "uniform": (
        [np.array([0.0, -1.0]), np.array([1.0, 3.0])],
        lambda d, low, high: d.Uniform(low, high),
        np.array([0.5, 2.5]),
    ),
    "bernoulli_probs": (
        [np.array([0.2, 0.7, 0.5])],
        lambda d, p: d.Bernoulli(probs=p),
        np.array([1.0, 0.0, 1.0]),
    ),
    "bernoulli_logits": (
        [np.array([-1.0, 0.3, 2.0])],
        lambda d, logits: d.Bernoulli(logits=logits),
        np.array([1.0, 0.0, 1.0]),
    ),
    "categorical_probs": (
        [np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])],
        lambda d, p: d.Categorical(probs=p),
        np.array([2, 0]),
    ),
    "categorical_logits": (
        [np.array([[0.2, -1.3, 0.5, 1.0]])],
        lambda d, logits: d.Categorical(logits=logits),
        np.array([[3], [1]]),
    ),
    "mvn_covariance": (
        [np.array([0.5, -1.0, 0.2]), _spd(0)],
        lambda d, loc, cov: d.MultivariateNormal(loc, covariance_matrix=cov),
        np.array([[0.1, 0.3, -0.4], [1.0, -2.0, 0.5]]),
    ),
    "mvn_precision": (
        [np.array([0.5, -1.0, 0.2]), _spd(2)],
        lambda d, loc, precision: d.MultivariateNormal(loc, precision_matrix=precision),
        np.array([[0.1, 0.3, -0.4], [1.0, -2.0, 0.5]]),
    ),
    "mvn_scale_tril_batch": (
        [np.array([[0.5, -1.0, 0.2], [0.0, 1.0, 2.0]]), _tril(1)],
        lambda d, loc, tril: d.MultivariateNormal(loc, scale_tril=tril.tril()),
        np.array([0.1, 0.3, -0.4]),
    ),
    "independent_normal": (
        [np.array([[0.3, -1.0, 2.0], [0.0, 0.5, 1.0]]), np.array([0.5, 1.5, 2.0])],
        lambda d, loc, scale: d.Independent(d.Normal(loc, scale), 1),
        np.array([0.1, 0.7, -2.0]),
    ),
}
IDS = list(CASES)
_CONTINUOUS = [k for k in IDS if not k.startswith(("bernoulli", "categorical"))]


def _both(name):
    torch = _torch()
    arrays, build, values = CASES[name]
    ours_p, theirs_p = _params(nl, arrays), _params(torch, arrays)
    return (build(D, *ours_p), ours_p), (build(torch.distributions, *theirs_p), theirs_p), values


def _value(lib, values):
    return lib.tensor(values, dtype=lib.int64 if values.dtype.kind == "i" else lib.float64)


def _close(a, b, what):
    np.testing.assert_allclose(
        np.asarray(a.detach().numpy(), dtype=float),
        np.asarray(b.detach().numpy(), dtype=float),
        rtol=1e-9,
        atol=1e-12,
        err_msg=what,
    )


@pytest.mark.parametrize("name", IDS)
def test_shapes_repr_and_moments_match_torch(name):
    torch = _torch()
    (ours, _), (theirs, _), _ = _both(name)
    assert tuple(ours.batch_shape) == tuple(theirs.batch_shape)
    assert tuple(ours.event_shape) == tuple(theirs.event_shape)
    assert repr(ours) == repr(theirs).replace("torch.", "nnlite.")
    for moment in ("mean", "variance", "stddev"):
        _close(getattr(ours, moment), getattr(theirs, moment), moment)
    shape = (4, 2)
    assert tuple(ours.sample(shape).shape) == tuple(theirs.sample(shape).shape)
    assert ours.has_rsample == theirs.has_rsample
    del torch


@pytest.mark.parametrize("name", IDS)
def test_log_prob_and_entropy_and_their_gradients_match_torch(name):
    torch = _torch()
    (ours, ours_p), (theirs, theirs_p), values = _both(name)
    lp_ours, lp_theirs = ours.log_prob(_value(nl, values)), theirs.log_prob(_value(torch, values))
    _close(lp_ours, lp_theirs, "log_prob")
    ent_ours, ent_theirs = ours.entropy(), theirs.entropy()
    _close(ent_ours, ent_theirs, "entropy")
    (lp_ours.sum() + ent_ours.sum()).backward()
    (lp_theirs.sum() + ent_theirs.sum()).backward()
    for k, (a, b) in enumerate(zip(ours_p, theirs_p)):
        _close(a.grad, b.grad, f"gradient of parameter {k}")


@pytest.mark.parametrize("name", IDS)
def test_log_prob_and_entropy_gradcheck(name):
    arrays, build, values = CASES[name]
    params = _params(nl, arrays)

    def fn(*p):
        dist = build(D, *p)
        return dist.log_prob(_value(nl, values)).sum() + dist.entropy().sum()

    assert gradcheck(fn, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)


@pytest.mark.parametrize("name", [k for k in _CONTINUOUS])
def test_rsample_is_reparameterised(name):
    arrays, build, _ = CASES[name]
    params = _params(nl, arrays)

    def draw(*p):
        nl.manual_seed(3)  # the same noise at every evaluation
        return build(D, *p).rsample((2,))

    assert gradcheck(draw, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(draw, tuple(params), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert not build(D, *params).sample((2,)).requires_grad


def test_samples_follow_the_distributions():
    nl.manual_seed(0)
    normal = D.Normal(nl.tensor([1.0, -2.0]), nl.tensor([0.5, 2.0])).sample((20_000,)).numpy()
    np.testing.assert_allclose(normal.mean(0), [1.0, -2.0], atol=0.05)
    np.testing.assert_allclose(normal.std(0), [0.5, 2.0], rtol=0.03)
    categorical = D.Categorical(probs=nl.tensor([0.2, 0.3, 0.5])).sample((20_000,)).numpy()
    np.testing.assert_allclose(
        np.bincount(categorical, minlength=3) / 20_000, [0.2, 0.3, 0.5], atol=0.015
    )
    coins = D.Bernoulli(probs=nl.tensor([0.1, 0.8])).sample((20_000,)).numpy()
    np.testing.assert_allclose(coins.mean(0), [0.1, 0.8], atol=0.015)
    uniform = D.Uniform(-1.0, 3.0).sample((20_000,)).numpy()
    assert uniform.min() >= -1.0 and uniform.max() < 3.0 and abs(uniform.mean() - 1.0) < 0.05
    cov = _spd(4, 2)
    mvn = D.MultivariateNormal(nl.zeros(2, dtype=nl.float64), nl.tensor(cov)).sample((40_000,))
    np.testing.assert_allclose(np.cov(mvn.numpy().T), cov, rtol=0.05)


KL_PAIRS = {
    "normal": ("normal", "normal"),
    "bernoulli": ("bernoulli_probs", "bernoulli_logits"),
    "categorical": ("categorical_probs", "categorical_probs"),
    "mvn": ("mvn_covariance", "mvn_scale_tril_batch"),
    "independent": ("independent_normal", "independent_normal"),
}


def _shifted(name, shift):
    arrays, build, _ = CASES[name]
    moved = [
        a + shift * (a.ndim == 1 and name.startswith(("normal", "mvn", "independent")))
        for a in arrays
    ]
    return moved, build


@pytest.mark.parametrize("pair", list(KL_PAIRS), ids=list(KL_PAIRS))
def test_kl_divergence_matches_torch_and_gradchecks(pair):
    torch = _torch()
    first, second = KL_PAIRS[pair]
    p_arrays, p_build = CASES[first][:2]
    q_arrays, q_build = _shifted(second, 0.3)
    ours = D.kl_divergence(p_build(D, *_params(nl, p_arrays)), q_build(D, *_params(nl, q_arrays)))
    theirs = torch.distributions.kl_divergence(
        p_build(torch.distributions, *_params(torch, p_arrays)),
        q_build(torch.distributions, *_params(torch, q_arrays)),
    )
    _close(ours, theirs, "kl")

    def fn(*params):
        p = p_build(D, *params[: len(p_arrays)])
        q = q_build(D, *params[len(p_arrays) :])
        return D.kl_divergence(p, q)

    params = tuple(_params(nl, p_arrays) + _params(nl, q_arrays))
    assert gradcheck(fn, params, eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, params, eps=1e-6, atol=1e-5, rtol=1e-3)


def test_kl_of_uniforms_and_uniform_normal_match_torch():
    torch = _torch()
    for lib_p, lib_q in (
        (
            lambda d, t: d.Uniform(t([0.0, 0.5]), t([1.0, 2.0])),
            lambda d, t: d.Uniform(t([-1.0, 1.0]), t([2.0, 3.0])),
        ),
        (
            lambda d, t: d.Uniform(t([0.0, 0.5]), t([1.0, 2.0])),
            lambda d, t: d.Normal(t([0.2, 0.0]), t([1.0, 3.0])),
        ),
    ):

        def tensor_of(lib):
            return lambda v: lib.tensor(v, dtype=lib.float64)

        ours = D.kl_divergence(lib_p(D, tensor_of(nl)), lib_q(D, tensor_of(nl)))
        theirs = torch.distributions.kl_divergence(
            lib_p(torch.distributions, tensor_of(torch)),
            lib_q(torch.distributions, tensor_of(torch)),
        )
        _close(ours, theirs, "kl")


def test_kl_without_a_closed_form_raises_and_register_kl_adds_one():
    with pytest.raises(NotImplementedError, match="No KL"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(probs=nl.tensor(0.3)))

    class Shifted(D.Normal):
        pass

    @D.register_kl(Shifted, D.Bernoulli)
    def _kl(p, q):
        return p.loc * 0 + 7.0

    assert D.kl_divergence(Shifted(0.0, 1.0), D.Bernoulli(probs=nl.tensor(0.3))).item() == 7.0
    # a subclass without its own entry uses its base class's
    assert D.kl_divergence(Shifted(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 0.0


@pytest.mark.parametrize(
    "build",
    [
        lambda d, t: d.Normal(t(0.0), t(-1.0)),
        lambda d, t: d.Normal(t(0.0), t(1.0)).log_prob(1.0),
        lambda d, t: d.Bernoulli(probs=t([0.2])).log_prob(t([0.5])),
        lambda d, t: d.Bernoulli(probs=t(1.5)),
        lambda d, t: d.Bernoulli(),
        lambda d, t: d.Categorical(probs=t([1.0, 1.0, 1.0])).log_prob(t(5.0)),
        lambda d, t: d.Uniform(t(2.0), t(1.0)),
        lambda d, t: d.MultivariateNormal(t([0.0, 0.0])),
        lambda d, t: d.Independent(d.Normal(t([0.0]), t([1.0])), 2),
    ],
)
def test_invalid_arguments_raise_pytorchs_errors(build):
    torch = _torch()
    errors = []
    for dists, lib in ((D, nl), (torch.distributions, torch)):
        with pytest.raises(Exception) as caught:
            build(dists, lambda v, lib=lib: lib.tensor(v, dtype=lib.float32))
        errors.append((type(caught.value).__name__, str(caught.value).replace("torch.", "nnlite.")))
    assert errors[0] == errors[1]


def test_validation_can_be_turned_off():
    dist = D.Normal(nl.tensor(0.0), nl.tensor(-1.0), validate_args=False)
    assert np.isnan(dist.log_prob(nl.tensor(0.0)).item())
