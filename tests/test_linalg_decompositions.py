"""nnlite.linalg's inverses, determinants, solves and decompositions: gradcheck and gradgradcheck in
float64, values and gradients against torch.linalg."""

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(2)


def spd(n, batch=()):
    a = rng.standard_normal(batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def sym(L, a):
    return (a + a.mT) / 2


M = rng.standard_normal((3, 3)) + 3 * np.eye(3)
# (name, fn(lib, *tensors), arrays)
CASES = [
    ("inv", lambda L, a: L.linalg.inv(a), [M]),
    ("inv_batch", lambda L, a: L.linalg.inv(a), [rng.standard_normal((2, 2, 2)) + 2 * np.eye(2)]),
    ("inv_ex", lambda L, a: L.linalg.inv_ex(a).inverse, [M]),
    ("det", lambda L, a: L.linalg.det(a), [M]),
    ("det_batch", lambda L, a: L.linalg.det(a), [rng.standard_normal((2, 3, 3))]),
    ("slogdet", lambda L, a: L.linalg.slogdet(a).logabsdet, [M]),
    ("solve", lambda L, a, b: L.linalg.solve(a, b), [M, rng.standard_normal((3, 2))]),
    ("solve_vector", lambda L, a, b: L.linalg.solve(a, b), [M, rng.standard_normal(3)]),
    (
        "solve_right",
        lambda L, a, b: L.linalg.solve(a, b, left=False),
        [M, rng.standard_normal((2, 3))],
    ),
    ("solve_broadcast", lambda L, a, b: L.linalg.solve(a, b), [M, rng.standard_normal((2, 3, 1))]),
    (
        "solve_triangular",
        lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
        [M, rng.standard_normal((3, 2))],
    ),
    ("cholesky", lambda L, a: L.linalg.cholesky(sym(L, a)), [spd(3)]),
    ("cholesky_upper", lambda L, a: L.linalg.cholesky(sym(L, a), upper=True), [spd(2, (2,))]),
    ("eigvalsh", lambda L, a: L.linalg.eigvalsh(sym(L, a)), [spd(3)]),
    # eigenvectors are defined up to sign: compare sign-free quantities
    ("eigh_vectors", lambda L, a: L.linalg.eigh(sym(L, a)).eigenvectors ** 2, [spd(3)]),
    (
        "eigh_rebuild",
        lambda L, a: (lambda w, v: (v * w.unsqueeze(-2)) @ v.mT)(*L.linalg.eigh(sym(L, a))),
        [spd(3)],
    ),
    ("svdvals", lambda L, a: L.linalg.svdvals(a), [rng.standard_normal((4, 3))]),
    ("svdvals_wide", lambda L, a: L.linalg.svdvals(a), [rng.standard_normal((2, 3))]),
    ("matrix_norm_nuc", lambda L, a: L.linalg.matrix_norm(a, "nuc"), [rng.standard_normal((3, 2))]),
    (
        "matrix_norm_2",
        lambda L, a: L.linalg.matrix_norm(a, 2, keepdim=True),
        [rng.standard_normal((2, 3, 2))],
    ),
    ("matrix_norm_1", lambda L, a: L.linalg.matrix_norm(a, 1), [rng.standard_normal((3, 3))]),
    (
        "matrix_norm_inf",
        lambda L, a: L.linalg.matrix_norm(a, float("-inf")),
        [rng.standard_normal((3, 3))],
    ),
    ("cond", lambda L, a: L.linalg.cond(a), [M]),
    ("cond_fro", lambda L, a: L.linalg.cond(a, "fro"), [M]),
    ("pinv_tall", lambda L, a: L.linalg.pinv(a), [rng.standard_normal((4, 2))]),
    ("pinv_wide", lambda L, a: L.linalg.pinv(a), [rng.standard_normal((2, 3))]),
    (
        "lstsq",
        lambda L, a, b: L.linalg.lstsq(a, b).solution,
        [rng.standard_normal((4, 2)), rng.standard_normal((4, 1))],
    ),
    ("matrix_power", lambda L, a: L.linalg.matrix_power(a, 3), [M]),
    ("matrix_power_neg", lambda L, a: L.linalg.matrix_power(a, -2), [M]),
    ("matrix_exp", lambda L, a: L.linalg.matrix_exp(a), [rng.standard_normal((3, 3))]),
    (
        "multi_dot",
        lambda L, a, b, c: L.linalg.multi_dot([a, b, c]),
        [rng.standard_normal(3), rng.standard_normal((3, 2)), rng.standard_normal((2, 2))],
    ),
    (
        "vecdot",
        lambda L, a, b: L.linalg.vecdot(a, b, dim=0),
        [rng.standard_normal((3, 2)), rng.standard_normal((3, 2))],
    ),
    (
        "cross",
        lambda L, a, b: L.linalg.cross(a, b),
        [rng.standard_normal((2, 3)), rng.standard_normal((1, 3))],
    ),
    ("diagonal", lambda L, a: L.linalg.diagonal(a, offset=1), [rng.standard_normal((2, 3, 3))]),
    ("vander", lambda L, x: L.linalg.vander(x, N=4), [rng.standard_normal(3)]),
    (
        "tensorinv",
        lambda L, a: L.linalg.tensorinv(a, ind=1),
        [(rng.standard_normal((4, 4)) + 3 * np.eye(4)).reshape(4, 2, 2)],
    ),
    (
        "tensorsolve",
        lambda L, a, b: L.linalg.tensorsolve(a, b),
        [
            (rng.standard_normal((4, 4)) + 3 * np.eye(4)).reshape(2, 2, 4),
            rng.standard_normal((2, 2)),
        ],
    ),
    (
        "qr_product",
        lambda L, a: (lambda q, r: q @ r)(*L.linalg.qr(a)),
        [rng.standard_normal((4, 3))],
    ),
]


# PyTorch's own backward raises for these (an in-place change inside its formula)
TORCH_BACKWARD_REFUSES = {"cond_fro"}


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name,fn,arrays", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours_in = [nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays]
    theirs_in = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    ours, theirs = fn(nl, *ours_in), fn(torch, *theirs_in)
    np.testing.assert_allclose(
        ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-7, atol=1e-10
    )
    if name in TORCH_BACKWARD_REFUSES:
        return
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    for a, b in zip(ours_in, theirs_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-6, atol=1e-9)
    ours32 = fn(nl, *[nl.tensor(a, dtype=nl.float32) for a in arrays])
    assert ours32.dtype == nl.float32


def test_qr_factors_are_orthonormal_and_triangular():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = rng.standard_normal((4, 3))
    Q, R = nl.linalg.qr(nl.tensor(a))
    np.testing.assert_allclose((Q.mT @ Q).numpy(), np.eye(3), atol=1e-5)
    assert np.allclose(np.tril(R.numpy(), -1), 0)
    # the same factorisation as LAPACK's up to the signs of R's rows
    _, r = torch.linalg.qr(torch.tensor(a, dtype=torch.float32))
    np.testing.assert_allclose(np.abs(R.numpy()), np.abs(r.numpy()), rtol=1e-4, atol=1e-5)


def test_other_results_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.array([[-2.0, 1.0], [4.0, 3.0]])
    assert (
        nl.linalg.slogdet(nl.tensor(a)).sign.item()
        == torch.linalg.slogdet(torch.tensor(a)).sign.item()
    )
    low_rank = np.outer([1.0, 2.0, 3.0], [1.0, -1.0])
    for rank_input in (low_rank, a, np.zeros((2, 3))):
        assert (
            nl.linalg.matrix_rank(nl.tensor(rank_input)).item()
            == torch.linalg.matrix_rank(torch.tensor(rank_input)).item()
        )
    assert nl.linalg.inv_ex(nl.tensor(a)).info.dtype == nl.int32


def test_errors_name_the_problem():
    with pytest.raises(RuntimeError, match="square matrices"):
        nl.linalg.inv(nl.ones(2, 3))
    with pytest.raises(RuntimeError, match="singular"):
        nl.linalg.inv(nl.zeros(2, 2))
    with pytest.raises(RuntimeError, match="singular"):
        nl.linalg.solve(nl.zeros(2, 2), nl.ones(2))
    with pytest.raises(RuntimeError, match="positive-definite"):
        nl.linalg.cholesky(-nl.eye(2))
    with pytest.raises(RuntimeError, match="at least 2 dimensions"):
        nl.linalg.det(nl.ones(3))
    assert issubclass(nl.linalg.LinAlgError, RuntimeError)
