"""``kl_divergence`` of the families' registered pairs against ``torch.distributions`` (float64),
with ``gradcheck`` and ``gradgradcheck`` with respect to both distributions' parameters."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck

D = nl.distributions


def a(*values):
    return np.array(values, dtype=float)


# name: (p's params, q's params, build(d, *p_params, *q_params), second order checked)
PAIRS = {
    "beta": ([a(0.5, 2.0), a(1.5, 3.0)], [a(1.5, 1.0), a(0.7, 2.0)], "Beta"),
    "cauchy": ([a(0.5, -1.0), a(1.5, 3.0)], [a(0.0, 1.0), a(0.7, 2.0)], "Cauchy"),
    "dirichlet": ([np.array([[0.5, 2.0, 1.5]])], [np.array([[1.5, 1.0, 0.7]])], "Dirichlet"),
    "exponential": ([a(0.5, 2.0)], [a(1.5, 0.3)], "Exponential"),
    "gamma": ([a(0.5, 2.0), a(1.5, 3.0)], [a(1.5, 1.0), a(0.7, 2.0)], "Gamma"),
    "gumbel": ([a(0.5, -1.0), a(1.5, 3.0)], [a(0.0, 1.0), a(0.7, 2.0)], "Gumbel"),
    "half_normal": ([a(0.5, 2.0)], [a(1.5, 0.3)], "HalfNormal"),
    "laplace": ([a(0.5, -1.0), a(1.5, 3.0)], [a(0.0, 1.0), a(0.7, 2.0)], "Laplace"),
    "pareto": ([a(1.5, 1.0), a(1.5, 3.0)], [a(1.0, 0.5), a(0.7, 2.0)], "Pareto"),
    "poisson": ([a(0.5, 2.0)], [a(1.5, 0.3)], "Poisson"),
    "geometric": ([a(0.2, 0.7)], [a(0.5, 0.4)], "Geometric"),
    "continuous_bernoulli": ([a(0.2, 0.7)], [a(0.5001, 0.4)], "ContinuousBernoulli"),
    "one_hot": ([a(0.2, 0.3, 0.5)], [a(0.4, 0.4, 0.2)], "OneHotCategorical"),
    "binomial": ([a(5.0, 5.0), a(0.2, 0.7)], [a(5.0, 3.0), a(0.5, 0.4)], "Binomial"),
    "log_normal": ([a(0.5, -1.0), a(1.5, 3.0)], [a(0.0, 1.0), a(0.7, 2.0)], "LogNormal"),
    "exponential_gamma": ([a(0.5, 2.0)], [a(1.5, 1.0), a(0.7, 2.0)], ("Exponential", "Gamma")),
    "gamma_exponential": ([a(0.5, 2.0), a(1.5, 3.0)], [a(1.5, 0.3)], ("Gamma", "Exponential")),
    "normal_laplace": (
        [a(0.5, -1.0), a(1.5, 3.0)],
        [a(0.0, 1.0), a(0.7, 2.0)],
        ("Normal", "Laplace"),
    ),
    "low_rank": (
        [a(0.2, 1.0), np.array([[1.0], [0.5]]), a(0.5, 1.0)],
        [a(0.0, 0.5), np.array([[0.3], [0.2]]), a(1.5, 0.7)],
        "LowRankMultivariateNormal",
    ),
}
# the binary families take probabilities by keyword
KEYWORD = {"Geometric", "ContinuousBernoulli", "OneHotCategorical"}
NOT_DIFFERENTIABLE = {"binomial": {0, 2}}


def _build(dists, kind, params):
    cls = getattr(dists, kind)
    if kind in KEYWORD:
        return cls(probs=params[0])
    if kind == "Binomial":
        return cls(params[0], probs=params[1])
    return cls(*params)


def _kinds(name):
    kinds = PAIRS[name][2]
    return (kinds, kinds) if isinstance(kinds, str) else kinds


def _kl(lib, dists, name, tensors):
    p_arrays = PAIRS[name][0]
    kind_p, kind_q = _kinds(name)
    p = _build(dists, kind_p, tensors[: len(p_arrays)])
    q = _build(dists, kind_q, tensors[len(p_arrays) :])
    return dists.kl_divergence(p, q)


def _tensors(lib, name, grad):
    p_arrays, q_arrays, _ = PAIRS[name]
    return [lib.tensor(x, dtype=lib.float64, requires_grad=grad) for x in p_arrays + q_arrays]


@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_matches_torch(name):
    torch = pytest.importorskip("torch", reason="torch is the reference (pip install torch)")
    ours = _kl(nl, D, name, _tensors(nl, name, False))
    theirs = _kl(torch, torch.distributions, name, _tensors(torch, name, False))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7, atol=1e-10)


@pytest.mark.parametrize("name", [k for k in PAIRS if k != "binomial"])
def test_kl_gradcheck_and_gradgradcheck(name):
    tensors = _tensors(nl, name, True)

    def fn(*params):
        return _kl(nl, D, name, list(params))

    assert gradcheck(fn, tuple(tensors), eps=1e-6, atol=1e-5, rtol=1e-3)
    assert gradgradcheck(fn, tuple(tensors), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_binomial_kl_with_more_trials_in_q_is_refused_as_in_torch():
    with pytest.raises(NotImplementedError, match="q.total_count > p.total_count"):
        D.kl_divergence(
            D.Binomial(nl.tensor(2.0), probs=nl.tensor(0.5)),
            D.Binomial(nl.tensor(3.0), probs=nl.tensor(0.5)),
        )


def test_pareto_kl_outside_the_support_is_infinite():
    kl = D.kl_divergence(
        D.Pareto(nl.tensor(1.0), nl.tensor(2.0)), D.Pareto(nl.tensor(2.0), nl.tensor(2.0))
    )
    assert kl.item() == float("inf")
