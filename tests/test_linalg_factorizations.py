"""LU, LDL and Householder factorizations, the low-rank decompositions, torch's older
linear-algebra forms, and QR/SVD/pinv/lstsq on rank-deficient matrices: values, pivots, info
codes, dtypes and errors against PyTorch; gradcheck and gradgradcheck in float64 for everything
PyTorch differentiates."""

import warnings

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(24)

SQUARE = rng.standard_normal((3, 3)) + np.eye(3)
BATCH = rng.standard_normal((2, 3, 3))
WIDE = rng.standard_normal((3, 5))
TALL = rng.standard_normal((5, 3))
RHS = rng.standard_normal((3, 2))
REFLECTORS = rng.standard_normal((4, 3))
TAU = rng.uniform(0.5, 1.5, 3)
LOW_RANK = rng.standard_normal((6, 2)) @ rng.standard_normal((2, 5))
SYMMETRIC = (lambda a: a @ a.T)(rng.standard_normal((6, 6)))


def _quiet(fn):
    """``fn`` without the deprecation warnings that PyTorch's older forms (and nnlite's) give."""

    def run(*args):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)

    return run


def _sign_free_svd(L, a):
    u, s, vh = L.linalg.svd(a, full_matrices=False)
    return (u * u) @ (s.unsqueeze(-1) * vh * vh)


# (name, fn(lib, *tensors), arrays): torch.linalg names, gradchecked and compared with PyTorch
CASES = [
    ("lu_factor", lambda L, a: L.linalg.lu_factor(a).LU, [SQUARE]),
    ("lu_factor_batch", lambda L, a: L.linalg.lu_factor(a).LU, [BATCH]),
    ("lu_factor_wide", lambda L, a: L.linalg.lu_factor(a).LU, [WIDE]),
    ("lu_factor_tall", lambda L, a: L.linalg.lu_factor(a).LU, [TALL]),
    ("lu_factor_ex", lambda L, a: L.linalg.lu_factor_ex(a).LU, [SQUARE]),
    ("lu_L", lambda L, a: L.linalg.lu(a).L, [TALL]),
    ("lu_U", lambda L, a: L.linalg.lu(a).U, [WIDE]),
    ("lu_solve", lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b), [SQUARE, RHS]),
    (
        "lu_solve_adjoint",
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, adjoint=True),
        [SQUARE, RHS],
    ),
    (
        "lu_solve_right",
        lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b, left=False),
        [SQUARE, RHS.T],
    ),
    ("householder_product", lambda L, a, t: L.linalg.householder_product(a, t), [REFLECTORS, TAU]),
    ("qr_wide", lambda L, a: (lambda q, r: q @ r + r[..., :1, :])(*L.linalg.qr(a)), [WIDE]),
    ("qr_complete", lambda L, a: L.linalg.qr(a, mode="complete").R, [SQUARE]),
    ("svd_factors", _sign_free_svd, [TALL]),
    ("pinv_square", lambda L, a: L.linalg.pinv(a), [SQUARE]),
]

# (name, fn(lib, *tensors), arrays): the torch-level names and Tensor methods
TORCH_FORMS = [
    ("lu", _quiet(lambda L, a: L.lu(a)[0]), [SQUARE]),
    ("lu_solve", _quiet(lambda L, a, b: L.lu_solve(b, *L.lu(a))), [SQUARE, RHS]),
    ("lu_unpack", lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)).L, [TALL]),
    ("orgqr", lambda L, a, t: L.orgqr(a, t), [REFLECTORS, TAU]),
    ("ormqr", lambda L, a, t, c: L.ormqr(a, t, c), [REFLECTORS, TAU, TALL[:4, :2]]),
    (
        "ormqr_right_transposed",
        lambda L, a, t, c: L.ormqr(a, t, c, left=False, transpose=True),
        [REFLECTORS, TAU, WIDE[:2, :4]],
    ),
    (
        "triangular_solve",
        _quiet(lambda L, b, a: L.triangular_solve(b, a).solution),
        [RHS, SQUARE],
    ),
    (
        "triangular_solve_lower_transposed",
        _quiet(
            lambda L, b, a: b.triangular_solve(a, upper=False, transpose=True, unitriangular=True)[
                0
            ]
        ),
        [RHS, SQUARE],
    ),
    ("lobpcg", lambda L, a: L.lobpcg(a, k=2)[0], [SYMMETRIC]),
    ("svd_lowrank", lambda L, a: L.svd_lowrank(a, q=2)[1], [LOW_RANK]),
    ("pca_lowrank", lambda L, a: L.pca_lowrank(a, q=2, center=False)[1], [LOW_RANK]),
    (
        "stft",
        _quiet(lambda L, x: L.stft(x, 8, hop_length=3, return_complex=False)),
        [rng.standard_normal(20)],
    ),
]

# the random draws of the low-rank methods are nnlite's: values agree where the approximation is
# exact, gradients only in distribution; lobpcg's backward in PyTorch is an approximation
RANDOM_OR_ITERATIVE = {"svd_lowrank", "pca_lowrank", "lobpcg"}


def _fixed_seed(name, fn):
    def run(L, *tensors):
        L.manual_seed(0)
        return fn(L, *tensors)

    return run if name in RANDOM_OR_ITERATIVE else fn


ALL = [(n, _fixed_seed(n, f), a) for n, f, a in CASES + TORCH_FORMS]


@pytest.mark.parametrize("name,fn,arrays", ALL, ids=[c[0] for c in ALL])
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name,fn,arrays", ALL, ids=[c[0] for c in ALL])
def test_matches_pytorch(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours_in = [nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    ours, theirs = fn(nl, *ours_in), fn(torch, *theirs_in)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-9)
    if name in RANDOM_OR_ITERATIVE:
        return
    weights = rng.standard_normal(tuple(ours.shape))
    (ours * nl.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-7, atol=1e-9)
    assert fn(nl, *[nl.tensor(a, dtype=nl.float32) for a in arrays]).dtype == nl.float32


# ------------------------------------------------------------------------- LU: pivots and info
@pytest.mark.parametrize(
    "matrix",
    [
        np.array([[1.0, 2.0], [2.0, 4.0]]),
        np.zeros((2, 2)),
        np.array([[0.0, 1.0], [0.0, 2.0]]),
        np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 1.0]]),
        rng.standard_normal((2, 3, 4, 4)),
        rng.standard_normal((4, 6)),
    ],
    ids=["singular", "zero", "zero_column", "zero_pivot_inside", "batch", "wide"],
)
def test_lu_factor_ex_matches_pytorch(matrix):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours = nl.linalg.lu_factor_ex(nl.tensor(matrix))
    theirs = torch.linalg.lu_factor_ex(torch.tensor(matrix))
    np.testing.assert_allclose(ours.LU.numpy(), theirs.LU.numpy(), atol=1e-12)
    assert ours.pivots.dtype == nl.int32 and ours.info.dtype == nl.int32
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    P, L, U = nl.linalg.lu(nl.tensor(matrix))
    tP, tL, tU = torch.linalg.lu(torch.tensor(matrix))
    np.testing.assert_array_equal(P.numpy(), tP.numpy())
    np.testing.assert_allclose(L.numpy(), tL.numpy(), atol=1e-12)
    np.testing.assert_allclose(U.numpy(), tU.numpy(), atol=1e-12)


def test_lu_errors_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    cases = [
        (lambda L: L.linalg.lu_factor(L.tensor([[1.0, 2.0], [2.0, 4.0]])), RuntimeError),
        (lambda L: L.linalg.lu_factor(L.zeros(2, 2)), RuntimeError),
        (lambda L: L.linalg.lu_factor(L.ones(3)), RuntimeError),
        (lambda L: L.linalg.lu_factor(L.eye(2), pivot=False), RuntimeError),
        (lambda L: L.linalg.lu_factor(L.ones(2, 2, dtype=L.int64)), NotImplementedError),
        (
            lambda L: L.linalg.lu_solve(
                *L.linalg.lu_factor(L.eye(2, dtype=L.float64)), L.ones(2, 1)
            ),
            RuntimeError,
        ),
    ]
    for call, kind in cases:
        with pytest.raises(kind) as theirs:
            call(torch)
        with pytest.raises(kind) as ours:
            call(nl)
        assert str(ours.value) == str(theirs.value).replace("Long", "Long")


def test_lu_unpack_flags_and_older_forms():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = rng.standard_normal((4, 4))
    LU, piv = nl.linalg.lu_factor(nl.tensor(a))
    tLU, tpiv = torch.linalg.lu_factor(torch.tensor(a))
    for call in (
        lambda L, lu, p: L.lu_unpack(lu, p.long()),
        lambda L, lu, p: L.linalg.lu_solve(lu, p.long(), lu[:, :1]),
    ):
        with pytest.raises(RuntimeError) as ours:
            call(nl, LU, piv)
        with pytest.raises(RuntimeError) as theirs:
            call(torch, tLU, tpiv)
        assert str(ours.value) == str(theirs.value)
    assert nl.lu_unpack(LU, piv, unpack_data=False).L.numel() == 0
    assert nl.lu_unpack(LU, piv, unpack_pivots=False).P.numel() == 0
    np.testing.assert_array_equal(
        nl.lu_unpack(LU, piv).P.numpy(), torch.lu_unpack(tLU, tpiv).P.numpy()
    )
    with pytest.warns(UserWarning, match="torch.lu is deprecated"):
        ours = nl.lu(nl.tensor(a), get_infos=True)
    assert len(ours) == 3 and ours.info.item() == 0
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        nl.tensor(a[:, :1]).lu_solve(LU, piv)


# ------------------------------------------------------------------------------------------- LDL
@pytest.mark.parametrize("seed", range(40))
def test_ldl_factor_and_solve_match_pytorch(seed):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    local = np.random.default_rng(seed)
    n = int(local.integers(1, 8))
    a = local.standard_normal((n, n)) * (local.random((n, n)) < 0.7)
    a = a + a.T
    if seed % 4 == 0:
        np.fill_diagonal(a, 0.0)  # forces 2x2 blocks
    ours = nl.linalg.ldl_factor_ex(nl.tensor(a))
    theirs = torch.linalg.ldl_factor_ex(torch.tensor(a))
    np.testing.assert_array_equal(ours.pivots.numpy(), theirs.pivots.numpy())
    np.testing.assert_array_equal(ours.info.numpy(), theirs.info.numpy())
    np.testing.assert_allclose(ours.LD.numpy(), theirs.LD.numpy(), atol=1e-10)
    if ours.info.item() == 0:
        b = local.standard_normal((n, 2))
        x = nl.linalg.ldl_solve(ours.LD, ours.pivots, nl.tensor(b))
        y = torch.linalg.ldl_solve(theirs.LD, theirs.pivots, torch.tensor(b))
        np.testing.assert_allclose(x.numpy(), y.numpy(), rtol=1e-8, atol=1e-8)


def test_ldl_batches_and_has_no_derivative():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = rng.standard_normal((2, 4, 4))
    a = a + np.swapaxes(a, -1, -2)
    LD, pivots = nl.linalg.ldl_factor(nl.tensor(a))
    tLD, tpivots = torch.linalg.ldl_factor(torch.tensor(a))
    np.testing.assert_array_equal(pivots.numpy(), tpivots.numpy())
    np.testing.assert_allclose(LD.numpy(), tLD.numpy(), atol=1e-10)
    x = nl.tensor(a, requires_grad=True)
    with pytest.raises(RuntimeError) as ours:
        nl.linalg.ldl_factor(x).LD.sum().backward()
    with pytest.raises(RuntimeError) as theirs:
        torch.linalg.ldl_factor(torch.tensor(a, requires_grad=True)).LD.sum().backward()
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(RuntimeError, match="singular"):
        nl.linalg.ldl_factor(nl.zeros(3, 3))
    with pytest.raises(RuntimeError, match="2 by 3"):
        nl.linalg.ldl_factor(nl.ones(2, 3))


# ------------------------------------------------------------------------------------ Householder
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 2)])
def test_geqrf_matches_pytorch(shape):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = rng.standard_normal(shape)
    ours, theirs = nl.geqrf(nl.tensor(a)), torch.geqrf(torch.tensor(a))
    np.testing.assert_allclose(ours.a.numpy(), theirs.a.numpy(), atol=1e-12)
    np.testing.assert_allclose(ours.tau.numpy(), theirs.tau.numpy(), atol=1e-12)
    x = nl.tensor(a, requires_grad=True)
    with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented"):
        nl.geqrf(x).a.sum().backward()


def test_householder_errors_are_pytorchs():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for lib_args in [((3, 4), (3,)), ((4, 3), (4,))]:
        (a, t) = lib_args
        with pytest.raises(RuntimeError) as theirs:
            torch.linalg.householder_product(torch.ones(a), torch.ones(t))
        with pytest.raises(RuntimeError) as ours:
            nl.linalg.householder_product(nl.ones(a), nl.ones(t))
        assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------------ removed in PyTorch 2
@pytest.mark.parametrize(
    "call",
    [
        lambda L, a, b: L.solve(b, a),
        lambda L, a, b: L.symeig(a, eigenvectors=True),
        lambda L, a, b: L.eig(a),
        lambda L, a, b: L.lstsq(b, a),
        lambda L, a, b: L.matrix_rank(a),
        lambda L, a, b: b.solve(a),
        lambda L, a, b: a.symeig(),
        lambda L, a, b: a.eig(True),
        lambda L, a, b: b.lstsq(a),
    ],
    ids=[
        "solve",
        "symeig",
        "eig",
        "lstsq",
        "matrix_rank",
        "T.solve",
        "T.symeig",
        "T.eig",
        "T.lstsq",
    ],
)
def test_removed_functions_raise_pytorchs_error(call):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    with pytest.raises(RuntimeError) as theirs:
        call(torch, torch.eye(2), torch.ones(2, 1))
    with pytest.raises(RuntimeError) as ours:
        call(nl, nl.eye(2), nl.ones(2, 1))
    assert str(ours.value) == str(theirs.value)


def test_istft_refuses_as_pytorch_does_for_real_input():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    with pytest.raises(RuntimeError) as theirs:
        torch.istft(torch.zeros(5, 3, 2), 8)
    with pytest.raises(RuntimeError) as ours:
        nl.istft(nl.zeros(5, 3, 2), 8)
    assert str(ours.value) == str(theirs.value)


def test_stft_variants_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    signal = rng.standard_normal((2, 30))
    variants = [
        dict(),
        dict(win_length=6, window="hann"),
        dict(center=False, normalized=True, onesided=False),
        dict(center=False, win_length=4, align_to_window=True, hop_length=3),
        dict(pad_mode="constant"),
    ]
    for variant in variants:
        kw = dict(variant)
        hann = kw.pop("window", None) == "hann"
        size = kw.get("win_length", 8)
        window = np.hanning(size + 1)[:-1] if hann else np.ones(size)  # periodic Hann
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = torch.stft(
                torch.tensor(signal), 8, window=torch.tensor(window), return_complex=False, **kw
            )
            ours = nl.stft(
                nl.tensor(signal), 8, window=nl.tensor(window), return_complex=False, **kw
            )
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-12)
    with pytest.raises(RuntimeError, match="return_complex parameter be given"):
        nl.stft(nl.ones(16), 8)
    with pytest.raises(RuntimeError, match="no complex tensors"):
        nl.stft(nl.ones(16), 8, return_complex=True)


# ---------------------------------------------------------------------- rank-deficient matrices
def test_rank_deficient_qr_svd_pinv_lstsq_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.outer([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 2.0])  # rank 1
    b = rng.standard_normal((4, 2))
    A, tA = nl.tensor(a), torch.tensor(a)
    np.testing.assert_allclose(nl.linalg.pinv(A).numpy(), torch.linalg.pinv(tA).numpy(), atol=1e-14)
    ours, theirs = nl.linalg.lstsq(A, nl.tensor(b)), torch.linalg.lstsq(tA, torch.tensor(b))
    np.testing.assert_allclose(ours.solution.numpy(), theirs.solution.numpy(), atol=1e-14)
    assert ours.rank.item() == theirs.rank.item() == 1
    np.testing.assert_allclose(
        nl.linalg.svdvals(A).numpy(), torch.linalg.svdvals(tA).numpy(), atol=1e-13
    )
    U, S, Vh = nl.linalg.svd(A, full_matrices=False)
    np.testing.assert_allclose((U * S.unsqueeze(-2) @ Vh).numpy(), a, atol=1e-13)
    Q, R = nl.linalg.qr(A)
    tQ, tR = torch.linalg.qr(tA)
    # the first column and row are determined; the rest span rounding noise, as in LAPACK
    np.testing.assert_allclose(Q.numpy()[:, 0], tQ.numpy()[:, 0], atol=1e-14)
    np.testing.assert_allclose(R.numpy()[0], tR.numpy()[0], atol=1e-13)
    np.testing.assert_allclose((Q @ R).numpy(), a, atol=1e-13)
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.eye(3), atol=1e-13)
    wide = nl.linalg.pinv(A.mT)
    np.testing.assert_allclose(wide.numpy(), torch.linalg.pinv(tA.mT).numpy(), atol=1e-14)


def test_rank_deficient_pinv_gradient_matches_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.outer([1.0, 2.0, 3.0, 4.0], [1.0, -1.0, 2.0])
    x, t = nl.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)
    (nl.linalg.pinv(x) ** 2).sum().backward()
    (torch.linalg.pinv(t) ** 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-15)


def test_qr_modes_and_gradient_refusals():
    a = nl.tensor(TALL, requires_grad=True)
    assert nl.linalg.qr(a, mode="complete").Q.shape == (5, 5)
    assert nl.linalg.qr(a, mode="r").Q.numel() == 0
    with pytest.raises(RuntimeError, match="mode='r'"):
        nl.linalg.qr(a, mode="r").R.sum().backward()
    with pytest.raises(RuntimeError, match="not differentiable when mode='complete'"):
        nl.linalg.qr(a, mode="complete").Q.sum().backward()
