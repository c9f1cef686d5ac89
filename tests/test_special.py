"""``nnlite.special`` against ``torch.special``: values and dtypes, and for the differentiable
functions gradcheck and gradgradcheck in float64."""

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(1)
X = rng.uniform(-2.0, 2.0, 5)
POS = rng.uniform(0.3, 3.0, 5)
PROB = rng.uniform(0.1, 0.9, 5)

# (name, fn(special module, tensor), input array, differentiable)
CASES = [
    ("digamma", lambda S, x: S.digamma(x), POS, True),
    ("psi", lambda S, x: S.psi(x), POS, True),
    ("polygamma", lambda S, x: S.polygamma(2, x), POS, True),
    ("multigammaln", lambda S, x: S.multigammaln(x + 1, 3), POS, True),
    ("gammaln", lambda S, x: S.gammaln(x), POS, True),
    ("erf", lambda S, x: S.erf(x), X, True),
    ("erfc", lambda S, x: S.erfc(x), X, True),
    ("erfcx", lambda S, x: S.erfcx(x), X, True),
    ("erfinv", lambda S, x: S.erfinv(x), PROB, True),
    ("expit", lambda S, x: S.expit(x), X, True),
    ("logit", lambda S, x: S.logit(x, eps=1e-6), PROB, True),
    ("exp2", lambda S, x: S.exp2(x), X, True),
    ("expm1", lambda S, x: S.expm1(x), X, True),
    ("log1p", lambda S, x: S.log1p(x), POS, True),
    ("xlogy", lambda S, x: S.xlogy(x, x * x + 1), X, True),
    ("xlog1py", lambda S, x: S.xlog1py(x, x * x), X, True),
    ("entr", lambda S, x: S.entr(x), POS, True),
    ("ndtr", lambda S, x: S.ndtr(x), X, True),
    ("ndtri", lambda S, x: S.ndtri(x), PROB, True),
    ("log_ndtr", lambda S, x: S.log_ndtr(x), X, True),
    ("i0", lambda S, x: S.i0(x), X, True),
    ("i0e", lambda S, x: S.i0e(x), X, True),
    ("i1", lambda S, x: S.i1(x), X, True),
    ("i1e", lambda S, x: S.i1e(x), X, True),
    ("sinc", lambda S, x: S.sinc(x), X, True),
    ("spherical_bessel_j0", lambda S, x: S.spherical_bessel_j0(x), X, True),
    ("softmax", lambda S, x: S.softmax(x, 0), X, True),
    ("log_softmax", lambda S, x: S.log_softmax(x, dim=0), X, True),
    ("logsumexp", lambda S, x: S.logsumexp(x, 0, keepdim=True), X, True),
    ("round", lambda S, x: S.round(x * 3), X, False),
    ("entr_edges", lambda S, x: S.entr(x * 0 + x.new_tensor([-1.0, 0.0, 1.0, 2.0, 0.5])), X, False),
]
for _kind in "tuvw":
    for _prefix in ("", "shifted_"):
        _name = f"{_prefix}chebyshev_polynomial_{_kind}"
        CASES.append((_name, lambda S, x, n=_name: getattr(S, n)(x / 2, 4), X, False))
for _name in (
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
):
    CASES.append((_name, lambda S, x, n=_name: getattr(S, n)(x, 3), X, False))
CASES.append(("legendre_n0", lambda S, x: S.legendre_polynomial_p(x, 0), X, False))
CASES.append(("hermite_n1", lambda S, x: S.hermite_polynomial_h(x, 1), X, False))


@pytest.mark.parametrize("name,fn,array,differentiable", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch(name, fn, array, differentiable):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for ours_dtype, their_dtype in [(nl.float64, torch.float64), (nl.float32, torch.float32)]:
        ours = fn(nl.special, nl.tensor(array, dtype=ours_dtype))
        theirs = fn(torch.special, torch.tensor(array, dtype=their_dtype))
        tolerance = 1e-10 if ours_dtype == nl.float64 else 1e-5
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tolerance, atol=tolerance)
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]


@pytest.mark.parametrize(
    "name,fn,array,differentiable", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]]
)
def test_gradcheck_and_gradgradcheck(name, fn, array, differentiable):
    x = nl.tensor(array, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: fn(nl.special, t), (x,))
    assert nl.autograd.gradgradcheck(lambda t: fn(nl.special, t), (x,))


def test_multigammaln_refuses_small_inputs():
    with pytest.raises(RuntimeError, match="greater than"):
        nl.special.multigammaln(nl.tensor([0.5]), 3)


def test_erfinv_and_ndtri_float64_accuracy_on_a_dense_grid_with_tails():
    # float64 erfinv / ndtri are exact to a few ulps over the whole domain, tails included
    torch = pytest.importorskip("torch", reason="torch is the reference for erfinv and ndtri")
    tail = np.logspace(-16, -1, 400)
    y = np.concatenate([np.linspace(-1, 1, 20001), 1 - tail, tail - 1, np.logspace(-300, -1, 100)])
    p = np.concatenate([np.linspace(0, 1, 20001), np.logspace(-300, -1, 200), 1 - tail])
    for name, grid, ours in (
        ("erfinv", y, lambda t: t.erfinv()),
        ("erfinv", y, nl.erfinv),
        ("erfinv", y, nl.special.erfinv),
        ("ndtri", p, nl.special.ndtri),
    ):
        expected = getattr(torch.special, name)(torch.tensor(grid)).numpy()
        got = ours(nl.tensor(grid, dtype=nl.float64)).numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=0, err_msg=name)
