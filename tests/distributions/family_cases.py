"""The table of distribution families the parity tests run over: float64 parameters, how to
build the distribution from a distributions module (nnlite's or torch's) and the parameter
tensors, values to score, and which parameters are differentiable."""

import numpy as np


def a(*values):
    return np.array(values, dtype=float)


# name: (params, build(d, *params), values, differentiable parameter positions)
FAMILIES = {
    "gamma": (
        [a(0.5, 2.0, 3.0), a(1.0, 0.5, 2.0)],
        lambda d, c, r: d.Gamma(c, r),
        a(0.3, 1.2, 2.0),
        (0, 1),
    ),
    "exponential": ([a(0.5, 2.0)], lambda d, r: d.Exponential(r), a(0.3, 1.2), (0,)),
    "chi2": ([a(1.5, 4.0)], lambda d, df: d.Chi2(df), a(0.3, 1.2), (0,)),
    "beta": ([a(0.5, 2.0), a(1.5, 3.0)], lambda d, c1, c0: d.Beta(c1, c0), a(0.3, 0.6), (0, 1)),
    "dirichlet": (
        [np.array([[0.5, 2.0, 1.2], [1.5, 3.0, 2.0]])],
        lambda d, c: d.Dirichlet(c),
        a(0.2, 0.3, 0.5),
        (0,),
    ),
    "laplace": ([a(0.5, -1.0), a(1.5, 3.0)], lambda d, m, s: d.Laplace(m, s), a(0.3, 0.6), (0, 1)),
    "cauchy": ([a(0.5, -1.0), a(1.5, 3.0)], lambda d, m, s: d.Cauchy(m, s), a(0.3, 0.6), (0, 1)),
    "half_normal": ([a(0.5, 2.0)], lambda d, s: d.HalfNormal(s), a(0.3, 0.6), (0,)),
    "half_cauchy": ([a(0.5, 2.0)], lambda d, s: d.HalfCauchy(s), a(0.3, 0.6), (0,)),
    "log_normal": (
        [a(0.5, -1.0), a(1.5, 0.3)],
        lambda d, m, s: d.LogNormal(m, s),
        a(0.3, 0.6),
        (0, 1),
    ),
    "gumbel": ([a(0.5, -1.0), a(1.5, 0.3)], lambda d, m, s: d.Gumbel(m, s), a(0.3, 0.6), (0, 1)),
    "weibull": ([a(0.5, 1.0), a(1.5, 0.7)], lambda d, s, k: d.Weibull(s, k), a(0.3, 0.6), (0, 1)),
    "pareto": ([a(0.5, 1.0), a(1.5, 3.7)], lambda d, s, al: d.Pareto(s, al), a(0.7, 1.6), (1,)),
    "kumaraswamy": (
        [a(0.5, 2.0), a(1.5, 3.0)],
        lambda d, c1, c0: d.Kumaraswamy(c1, c0),
        a(0.3, 0.6),
        (0, 1),
    ),
    "student_t": (
        [a(0.5, 2.5, 5.0), a(0.0, 1.0, 2.0), a(1.0, 2.0, 0.5)],
        lambda d, df, m, s: d.StudentT(df, m, s),
        a(0.3, 0.6, 1.0),
        (0, 1, 2),
    ),
    "fisher_snedecor": (
        [a(1.5, 5.0), a(3.0, 7.0)],
        lambda d, d1, d2: d.FisherSnedecor(d1, d2),
        a(0.3, 1.6),
        (0, 1),
    ),
    "inverse_gamma": (
        [a(1.5, 5.0), a(3.0, 7.0)],
        lambda d, c, r: d.InverseGamma(c, r),
        a(0.3, 1.6),
        (0, 1),
    ),
    "generalized_pareto": (
        [a(0.0, 1.0, 0.0), a(1.0, 2.0, 0.5), a(0.3, 0.0, -0.2)],
        lambda d, m, s, c: d.GeneralizedPareto(m, s, c),
        a(0.3, 1.6, 0.5),
        (0, 1),
    ),
    "logistic_normal": (
        [a(0.0, 1.0), a(1.0, 2.0)],
        lambda d, m, s: d.LogisticNormal(m, s),
        a(0.2, 0.3, 0.5),
        (0, 1),
    ),
    "von_mises": (
        [a(0.2, 1.0), a(0.5, 3.0)],
        lambda d, m, k: d.VonMises(m, k),
        a(0.3, 0.6),
        (0, 1),
    ),
    "continuous_bernoulli": (
        [a(0.2, 0.5, 0.9)],
        lambda d, p: d.ContinuousBernoulli(probs=p),
        a(0.3, 0.6, 0.1),
        (0,),
    ),
    "continuous_bernoulli_logits": (
        [a(0.2, -3.0, 1.0)],
        lambda d, logits: d.ContinuousBernoulli(logits=logits),
        a(0.3, 0.6, 0.1),
        (0,),
    ),
    "relaxed_bernoulli": (
        [a(0.5), a(0.2, 0.7)],
        lambda d, t, p: d.RelaxedBernoulli(t[0], probs=p),
        a(0.3, 0.6),
        (0, 1),
    ),
    "relaxed_one_hot": (
        [a(0.5), a(0.2, 0.3, 0.5)],
        lambda d, t, p: d.RelaxedOneHotCategorical(t[0], probs=p),
        a(0.2, 0.3, 0.5),
        (0, 1),
    ),
    "low_rank_mvn": (
        [a(0.2, 1.0, 0.0), np.array([[1.0, 0.0], [0.5, 0.2], [0.0, 1.0]]), a(0.5, 1.0, 2.0)],
        lambda d, m, w, diag: d.LowRankMultivariateNormal(m, w, diag),
        np.array([[0.3, 0.6, 0.1], [1.0, -1.0, 0.0]]),
        (0, 1, 2),
    ),
    "mixture": (
        [
            np.array([[0.3, 0.7], [0.6, 0.4]]),
            np.array([[0.2, 1.0], [0.0, 1.0]]),
            np.array([[0.5, 1.0], [2.0, 1.0]]),
        ],
        lambda d, w, m, s: d.MixtureSameFamily(d.Categorical(probs=w), d.Normal(m, s)),
        a(0.3, 0.6),
        (0, 1, 2),
    ),
    "poisson": ([a(0.5, 2.0, 3.0)], lambda d, r: d.Poisson(r), a(0.0, 1.0, 4.0), (0,)),
    "geometric": ([a(0.2, 0.7)], lambda d, p: d.Geometric(probs=p), a(0.0, 3.0), (0,)),
    "geometric_logits": (
        [a(0.2, -0.7)],
        lambda d, logits: d.Geometric(logits=logits),
        a(0.0, 3.0),
        (0,),
    ),
    "binomial": (
        [a(5.0, 5.0), a(0.2, 0.7)],
        lambda d, n, p: d.Binomial(n, probs=p),
        a(0.0, 3.0),
        (1,),
    ),
    "binomial_logits": (
        [a(4.0, 6.0), a(0.2, -0.7)],
        lambda d, n, logits: d.Binomial(n, logits=logits),
        a(0.0, 3.0),
        (1,),
    ),
    "negative_binomial": (
        [a(2.5, 4.0), a(0.2, 0.7)],
        lambda d, n, p: d.NegativeBinomial(n, probs=p),
        a(0.0, 3.0),
        (0, 1),
    ),
    "multinomial": (
        # not 0.5: the binomial normaliser, as PyTorch's, has no curvature at logit 0 exactly
        [a(0.2, 0.35, 0.45)],
        lambda d, p: d.Multinomial(4, probs=p),
        a(1.0, 1.0, 2.0),
        (0,),
    ),
    "one_hot": (
        [np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])],
        lambda d, p: d.OneHotCategorical(probs=p),
        a(0.0, 1.0, 0.0),
        (0,),
    ),
    "one_hot_straight_through": (
        [a(0.2, 0.3, 0.5)],
        lambda d, logits: d.OneHotCategoricalStraightThrough(logits=logits),
        a(0.0, 1.0, 0.0),
        (0,),
    ),
    "lkj_cholesky": (
        [a(0.5, 2.0)],
        lambda d, c: d.LKJCholesky(3, c),
        np.linalg.cholesky(np.array([[1.0, 0.3, -0.2], [0.3, 1.0, 0.1], [-0.2, 0.1, 1.0]])),
        (0,),
    ),
    "wishart": (
        [a(4.5, 6.0), np.array([[2.0, 0.3, 0.1], [0.3, 1.0, -0.2], [0.1, -0.2, 1.5]])],
        lambda d, df, cov: d.Wishart(df, cov),
        np.array([[3.0, 0.5, 0.2], [0.5, 2.0, -0.1], [0.2, -0.1, 2.5]]),
        (0, 1),
    ),
}

# families whose rsample goes through the gamma sampler: their samples are not smooth functions
# of the concentrations under a fixed seed, so their reparameterised gradient is checked against
# the implicit derivative instead of finite differences of samples
GAMMA_BASED = {
    "gamma",
    "chi2",
    "beta",
    "dirichlet",
    "student_t",
    "fisher_snedecor",
    "inverse_gamma",
    "wishart",
}

# PyTorch 2.13's GeneralizedPareto compares float64 parameters with a float32 zero and fails:
# the reference values of these families come from float32 parameters
TORCH_FLOAT32 = {"generalized_pareto"}
