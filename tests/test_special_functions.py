"""The Bessel, Airy, incomplete gamma and Hurwitz zeta functions of ``nnlite.special``: values over
dense grids and at the edges against PyTorch, accuracy against mpmath's arbitrary precision where
PyTorch's own float64 values are less exact, dtypes, and gradients where PyTorch has them (and
PyTorch's refusal where it has none)."""

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(7)
A_CONST = np.array([0.5, 1.5, 3.0, 12.0, 40.0])
X_POS = rng.uniform(0.3, 30.0, 5)
Q_POS = rng.uniform(0.2, 4.0, 5)

# (name, fn(special, tensor), input array, differentiable): as tests/test_special.py's table
CASES = [
    ("gammainc", lambda S, x: S.gammainc(x.new_tensor(A_CONST), x), X_POS, True),
    ("gammaincc", lambda S, x: S.gammaincc(x.new_tensor(A_CONST), x), X_POS, True),
    ("gammainc_broadcast", lambda S, x: S.gammainc(x.new_tensor([[1.0], [2.5]]), x), X_POS, True),
    ("zeta", lambda S, x: S.zeta(x.new_tensor(A_CONST) + 1.5, x), Q_POS, True),
    ("zeta_scalar", lambda S, x: S.zeta(3.0, x), Q_POS, True),
]
for _name in (
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
):
    CASES.append((_name, lambda S, x, n=_name: getattr(S, n)(x), X_POS, False))

# (name, fn(lib, *tensors), arrays): the torch-level names and Tensor methods
TENSOR_FORMS = [
    ("igamma", lambda L, x: L.igamma(x.new_tensor(A_CONST), x), [X_POS]),
    ("igammac", lambda L, x: x.new_tensor(A_CONST).igammac(x), [X_POS]),
    ("igamma_inplace", lambda L, x: x.new_tensor(A_CONST).igamma_(x), [X_POS]),
    ("igammac_inplace", lambda L, x: x.new_tensor(A_CONST).igammac_(x), [X_POS]),
]


@pytest.mark.parametrize(
    "name,fn,array,differentiable", [c for c in CASES if c[3]], ids=[c[0] for c in CASES if c[3]]
)
def test_gradcheck_and_gradgradcheck(name, fn, array, differentiable):
    x = nl.tensor(array, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: fn(nl.special, t), (x,))
    assert nl.autograd.gradgradcheck(lambda t: fn(nl.special, t), (x,))


@pytest.mark.parametrize("name,fn,arrays", TENSOR_FORMS, ids=[c[0] for c in TENSOR_FORMS])
def test_tensor_forms(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    x = nl.tensor(arrays[0], requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: fn(nl, t), (x,))
    assert nl.autograd.gradgradcheck(lambda t: fn(nl, t), (x,))
    t = torch.tensor(arrays[0], requires_grad=True)
    ours, theirs = fn(nl, x), fn(torch, t)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-8)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-8)


@pytest.mark.parametrize("name,fn,array,differentiable", CASES, ids=[c[0] for c in CASES])
def test_values_gradients_and_dtypes_match_pytorch(name, fn, array, differentiable):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for ours_dtype, their_dtype in [(nl.float64, torch.float64), (nl.float32, torch.float32)]:
        x = nl.tensor(array, dtype=ours_dtype, requires_grad=differentiable)
        t = torch.tensor(array, dtype=their_dtype, requires_grad=differentiable)
        ours, theirs = fn(nl.special, x), fn(torch.special, t)
        # PyTorch's float64 J, Y and Ai are good to 4e-7 in places (see the dense grids below)
        loose = name.startswith(("bessel_j", "bessel_y", "airy"))
        tolerance = 1e-5 if ours_dtype == nl.float32 else 1e-6 if loose else 1e-10
        np.testing.assert_allclose(
            ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance, atol=tolerance
        )
        assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
        assert ours.requires_grad == theirs.requires_grad
        if differentiable and ours_dtype == nl.float64:
            ours.sum().backward()
            theirs.sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-7)


# ----------------------------------------------------------------------- dense grids and edges
# PyTorch's float64 Bessel J and Y and Airy Ai are its float-accurate rational fits in part of
# the range (errors up to 4e-7 absolute between 2 and 8); K, I, zeta are exact to 1e-14.
GRID = np.concatenate(
    [np.linspace(-60.0, 60.0, 4001), np.geomspace(1e-12, 1e3, 600), -np.geomspace(1e-12, 1e3, 600)]
)
UNARY = [
    ("airy_ai", 5e-6),
    ("bessel_j0", 1e-6),
    ("bessel_j1", 1e-6),
    ("bessel_y0", 1e-6),
    ("bessel_y1", 1e-6),
    ("modified_bessel_i0", 1e-13),
    ("modified_bessel_i1", 1e-13),
    ("modified_bessel_k0", 1e-13),
    ("modified_bessel_k1", 1e-13),
    ("scaled_modified_bessel_k0", 1e-13),
    ("scaled_modified_bessel_k1", 1e-13),
]
EDGES = np.array([0.0, -0.0, -1.0, 1.0, np.inf, -np.inf, np.nan, 1e-300, 700.0, 1e10, -1e10])


@pytest.mark.parametrize("name,tolerance", UNARY, ids=[u[0] for u in UNARY])
def test_unary_functions_over_a_dense_grid(name, tolerance):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    with np.errstate(all="ignore"):
        ours = getattr(nl.special, name)(nl.tensor(GRID)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(GRID)).numpy()
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(theirs))
    np.testing.assert_array_equal(np.isinf(ours), np.isinf(theirs))
    finite = np.isfinite(theirs)
    scale = np.maximum(np.abs(theirs[finite]), 1.0)  # absolute near zeros, relative elsewhere
    assert np.max(np.abs(ours[finite] - theirs[finite]) / scale) < tolerance


@pytest.mark.parametrize("name", [u[0] for u in UNARY])
def test_unary_functions_at_the_edges(name):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    values = EDGES[np.abs(EDGES) < 1e9]  # PyTorch's phase is inexact far out (mpmath: nnlite's is)
    ours = getattr(nl.special, name)(nl.tensor(values)).numpy()
    theirs = getattr(torch.special, name)(torch.tensor(values)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", [u[0] for u in UNARY])
def test_unary_dtypes_are_pytorchs(name):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    fn, reference = getattr(nl.special, name), getattr(torch.special, name)
    assert fn(nl.tensor([1, 2])).dtype == nl.float32
    assert str(reference(torch.tensor([1, 2])).dtype) == "torch.float32"
    with pytest.raises(NotImplementedError) as ours:
        fn(nl.tensor([1.0], dtype=nl.float16))
    with pytest.raises(NotImplementedError) as theirs:
        reference(torch.tensor([1.0], dtype=torch.float16))
    assert str(ours.value) == str(theirs.value)


def test_incomplete_gamma_over_a_dense_grid():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.concatenate([np.geomspace(1e-3, 1e3, 60), [0.5, 1.0, 2.0, 10.0]])
    x = np.concatenate([np.geomspace(1e-4, 2e3, 70), [0.5, 1.0, 2.0, 10.0]])
    A, X = np.meshgrid(a, x)
    for ours_fn, their_fn in [
        (nl.special.gammainc, torch.special.gammainc),
        (nl.special.gammaincc, torch.special.gammaincc),
    ]:
        ours = ours_fn(nl.tensor(A), nl.tensor(X)).numpy()
        theirs = their_fn(torch.tensor(A), torch.tensor(X)).numpy()
        shown = np.abs(theirs) > 1e-280
        # PyTorch's asymptotic series for large a is good to about 2e-9 (mpmath: nnlite's to 1e-12)
        np.testing.assert_allclose(ours[shown], theirs[shown], rtol=1e-8, atol=1e-12)


def test_incomplete_gamma_edges_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    edges = [0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, 2.0, 1e-300]
    A, X = np.meshgrid(edges[:-1], edges)
    for name in ("gammainc", "gammaincc"):
        ours = getattr(nl.special, name)(nl.tensor(A), nl.tensor(X)).numpy()
        theirs = getattr(torch.special, name)(torch.tensor(A), torch.tensor(X)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0)
    # Q(a, x) for a tiny a is a * E1(x) to first order (E1(1) = 0.21938393439552...,
    # E1(1e-300) = -euler - log(1e-300)); PyTorch's values there are off, so a = 1e-300 is
    # checked against these instead
    a, x = nl.tensor(np.array([1e-300, 1e-300])), nl.tensor(np.array([1.0, 1e-300]))
    tiny = nl.special.gammaincc(a, x).numpy()
    np.testing.assert_allclose(tiny, [0.21938393439552029e-300, 6.901983122333122e-298], rtol=1e-12)


def test_zeta_over_a_grid_and_at_the_edges():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    s = np.concatenate([np.linspace(1.01, 30.0, 40), [1.0, 2.0, 3.0, 50.0, 100.0, 0.5, np.inf]])
    q = np.concatenate(
        [np.geomspace(1e-3, 1e4, 30), -np.linspace(0.25, 20.25, 12), [0, -1, 1, np.inf, np.nan]]
    )
    S, Q = np.meshgrid(s, q)
    ours = nl.special.zeta(nl.tensor(S), nl.tensor(Q)).numpy()
    theirs = torch.special.zeta(torch.tensor(S), torch.tensor(Q)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)


def test_accuracy_against_arbitrary_precision():
    mpmath = pytest.importorskip("mpmath", reason="mpmath gives reference values")
    mpmath.mp.dps = 30
    points = np.concatenate([np.linspace(0.05, 40.0, 24), [2.5, 7.3, 26.0, 80.0]])
    checks = [
        ("bessel_j0", lambda v: mpmath.besselj(0, v)),
        ("bessel_j1", lambda v: mpmath.besselj(1, v)),
        ("bessel_y0", lambda v: mpmath.bessely(0, v)),
        ("bessel_y1", lambda v: mpmath.bessely(1, v)),
        ("modified_bessel_k0", lambda v: mpmath.besselk(0, v)),
        ("modified_bessel_k1", lambda v: mpmath.besselk(1, v)),
    ]
    for name, exact in checks:
        ours = getattr(nl.special, name)(nl.tensor(points)).numpy()
        reference = np.array([float(exact(v)) for v in points])
        scale = np.maximum(np.abs(reference), 1.0)
        assert np.max(np.abs(ours - reference) / scale) < 1e-14, name
    airy_points = np.linspace(-30.0, 30.0, 41)
    ours = nl.special.airy_ai(nl.tensor(airy_points)).numpy()
    reference = np.array([float(mpmath.airyai(v)) for v in airy_points])
    assert np.max(np.abs(ours - reference) / np.maximum(np.abs(reference), 1e-3)) < 1e-12
    a = np.array([0.01, 0.5, 3.0, 25.0, 300.0])
    x = np.array([0.02, 2.0, 2.5, 27.0, 310.0])
    ours = nl.special.gammainc(nl.tensor(a), nl.tensor(x)).numpy()
    reference = np.array(
        [float(mpmath.gammainc(ai, 0, xi, regularized=True)) for ai, xi in zip(a, x)]
    )
    np.testing.assert_allclose(ours, reference, rtol=1e-12)


def test_gradient_refusals_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for name in ("gammainc", "gammaincc", "zeta"):
        messages = []
        for lib in (nl, torch):
            a = lib.tensor([2.5], dtype=lib.float64, requires_grad=True)
            x = lib.tensor([0.7], dtype=lib.float64)
            with pytest.raises(NotImplementedError) as caught:
                getattr(lib.special, name)(a, x).sum().backward()
            messages.append(str(caught.value))
        assert messages[0] == messages[1]


def test_argument_errors_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    calls = [
        (lambda L: L.special.gammainc(L.tensor([1.0]), 2.0), TypeError),
        (lambda L: L.special.gammaincc(L.tensor([1, 2]), L.tensor([1, 2])), NotImplementedError),
    ]
    for call, kind in calls:
        with pytest.raises(kind) as ours:
            call(nl)
        with pytest.raises(kind) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)
    assert nl.special.zeta(nl.tensor([2, 3]), nl.tensor([1, 1])).dtype == nl.float32
    assert nl.special.gammainc(nl.tensor([1.0]), nl.tensor([1.0], dtype=nl.float64)).dtype == (
        nl.float64
    )
