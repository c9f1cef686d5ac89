"""``kl_divergence`` between different families, under PyTorch's registered pairs, against
``torch.distributions`` (float64; infinite where ``q`` cannot cover ``p``), and ``gradcheck`` of
the finite ones."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck

D = nl.distributions

# parameters of a batch of two members per family, chosen so most pairs have a finite value
PARAMS = {
    "Bernoulli": ([np.array([0.3, 0.6])], lambda d, p: d.Bernoulli(probs=p)),
    "Beta": ([np.array([1.5, 2.0]), np.array([2.5, 0.8])], lambda d, a, b: d.Beta(a, b)),
    "Binomial": (
        [np.array([3.0, 5.0]), np.array([0.4, 0.6])],
        lambda d, n, p: d.Binomial(n, probs=p),
    ),
    "ContinuousBernoulli": ([np.array([0.3, 0.8])], lambda d, p: d.ContinuousBernoulli(probs=p)),
    "Exponential": ([np.array([0.7, 2.0])], lambda d, r: d.Exponential(r)),
    "Gamma": ([np.array([1.5, 3.0]), np.array([0.8, 2.0])], lambda d, c, r: d.Gamma(c, r)),
    "Gumbel": ([np.array([0.3, -0.5]), np.array([1.2, 0.7])], lambda d, m, s: d.Gumbel(m, s)),
    "Laplace": ([np.array([0.3, -0.5]), np.array([1.2, 0.7])], lambda d, m, s: d.Laplace(m, s)),
    "Normal": ([np.array([0.3, -0.5]), np.array([1.2, 0.7])], lambda d, m, s: d.Normal(m, s)),
    "Pareto": ([np.array([0.5, 1.0]), np.array([2.5, 3.5])], lambda d, s, a: d.Pareto(s, a)),
    "Poisson": ([np.array([0.7, 2.0])], lambda d, r: d.Poisson(r)),
    "Uniform": ([np.array([0.2, 1.1]), np.array([0.7, 1.6])], lambda d, lo, hi: d.Uniform(lo, hi)),
}
PAIRS = [
    ("Bernoulli", "Poisson"),
    ("Beta", "ContinuousBernoulli"),
    ("Beta", "Exponential"),
    ("Beta", "Gamma"),
    ("Beta", "Normal"),
    ("Beta", "Pareto"),
    ("Beta", "Uniform"),
    ("ContinuousBernoulli", "Exponential"),
    ("ContinuousBernoulli", "Normal"),
    ("ContinuousBernoulli", "Pareto"),
    ("ContinuousBernoulli", "Uniform"),
    ("Exponential", "Beta"),
    ("Exponential", "ContinuousBernoulli"),
    ("Exponential", "Gamma"),
    ("Exponential", "Gumbel"),
    ("Exponential", "Normal"),
    ("Exponential", "Pareto"),
    ("Exponential", "Uniform"),
    ("Gamma", "Beta"),
    ("Gamma", "ContinuousBernoulli"),
    ("Gamma", "Exponential"),
    ("Gamma", "Gumbel"),
    ("Gamma", "Normal"),
    ("Gamma", "Pareto"),
    ("Gamma", "Uniform"),
    ("Gumbel", "Beta"),
    ("Gumbel", "ContinuousBernoulli"),
    ("Gumbel", "Exponential"),
    ("Gumbel", "Gamma"),
    ("Gumbel", "Normal"),
    ("Gumbel", "Pareto"),
    ("Gumbel", "Uniform"),
    ("Laplace", "Beta"),
    ("Laplace", "ContinuousBernoulli"),
    ("Laplace", "Exponential"),
    ("Laplace", "Gamma"),
    ("Laplace", "Normal"),
    ("Laplace", "Pareto"),
    ("Laplace", "Uniform"),
    ("Normal", "Beta"),
    ("Normal", "ContinuousBernoulli"),
    ("Normal", "Exponential"),
    ("Normal", "Gamma"),
    ("Normal", "Gumbel"),
    ("Normal", "Laplace"),
    ("Normal", "Pareto"),
    ("Normal", "Uniform"),
    ("Pareto", "Beta"),
    ("Pareto", "ContinuousBernoulli"),
    ("Pareto", "Exponential"),
    ("Pareto", "Gamma"),
    ("Pareto", "Normal"),
    ("Pareto", "Uniform"),
    ("Poisson", "Bernoulli"),
    ("Poisson", "Binomial"),
    ("Uniform", "Beta"),
    ("Uniform", "ContinuousBernoulli"),
    ("Uniform", "Exponential"),
    ("Uniform", "Gamma"),
    ("Uniform", "Gumbel"),
    ("Uniform", "Normal"),
    ("Uniform", "Pareto"),
]
# Uniform members inside (0, 1) for the pairs whose q lives on the unit interval
UNIT_UNIFORM = [np.array([0.2, 0.1]), np.array([0.7, 0.6])]


def _arrays(kind, other):
    if kind == "Uniform" and other in ("Beta", "ContinuousBernoulli"):
        return UNIT_UNIFORM
    return PARAMS[kind][0]


def _kl(lib, pair, tensors):
    kind_p, kind_q = pair
    n = len(_arrays(kind_p, kind_q))
    p = PARAMS[kind_p][1](lib.distributions, *tensors[:n])
    q = PARAMS[kind_q][1](lib.distributions, *tensors[n:])
    return lib.distributions.kl_divergence(p, q)


def _tensors(lib, pair, grad=False):
    arrays = _arrays(pair[0], pair[1]) + _arrays(pair[1], pair[0])
    return [lib.tensor(a, dtype=lib.float64, requires_grad=grad) for a in arrays]


@pytest.mark.parametrize("pair", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_cross_family_kl_matches_torch(pair):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    ours = _kl(nl, pair, _tensors(nl, pair)).numpy()
    theirs = _kl(torch, pair, _tensors(torch, pair)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-7, atol=1e-10)


FINITE = [
    ("Beta", "Normal"),
    ("Exponential", "Gumbel"),
    ("Gamma", "Normal"),
    ("Gumbel", "Normal"),
    ("Laplace", "Normal"),
    ("Normal", "Gumbel"),
    ("Pareto", "Gamma"),
    ("Uniform", "Beta"),
]


@pytest.mark.parametrize("pair", FINITE, ids=["-".join(p) for p in FINITE])
def test_cross_family_kl_gradcheck(pair):
    tensors = _tensors(nl, pair, grad=True)

    def fn(*params):
        return _kl(nl, pair, list(params))

    assert np.all(np.isfinite(fn(*tensors).detach().numpy()))
    assert gradcheck(fn, tuple(tensors), eps=1e-6, atol=1e-5, rtol=1e-3)
