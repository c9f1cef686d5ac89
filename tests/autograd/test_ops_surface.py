"""The Tensor surface added from PyTorch's list: each differentiable op gradchecked and
gradgradchecked in float64 and compared with PyTorch (values and dtype); the others compared
with PyTorch. One row per op: ``fn(lib, *inputs)`` runs the same code on ``nnlite`` and ``torch``."""

import numpy as np
import pytest

import nnlite as nl

rng = np.random.default_rng(0)


def arr(*shape, low=-1.0, high=1.0):
    return rng.uniform(low, high, shape)


POS = dict(low=0.5, high=2.0)
UNIT = dict(low=-0.8, high=0.8)

# (name, fn(lib, *tensors), input arrays)
DIFFERENTIABLE = [
    ("log1p", lambda L, x: L.log1p(x), [arr(3, **POS)]),
    ("expm1", lambda L, x: x.expm1(), [arr(3)]),
    ("exp2", lambda L, x: L.exp2(x), [arr(3)]),
    ("log2", lambda L, x: x.log2(), [arr(3, **POS)]),
    ("log10", lambda L, x: L.log10(x), [arr(3, **POS)]),
    ("tan", lambda L, x: L.tan(x), [arr(3, **UNIT)]),
    ("asin", lambda L, x: L.asin(x), [arr(3, **UNIT)]),
    ("acos", lambda L, x: x.arccos(), [arr(3, **UNIT)]),
    ("atan", lambda L, x: L.atan(x), [arr(3)]),
    ("sinh", lambda L, x: L.sinh(x), [arr(3)]),
    ("cosh", lambda L, x: x.cosh(), [arr(3)]),
    ("asinh", lambda L, x: L.asinh(x), [arr(3)]),
    ("acosh", lambda L, x: L.acosh(x), [arr(3, low=1.5, high=3.0)]),
    ("atanh", lambda L, x: L.atanh(x), [arr(3, **UNIT)]),
    ("erfc", lambda L, x: L.erfc(x), [arr(3)]),
    ("erfinv", lambda L, x: L.erfinv(x), [arr(3, **UNIT)]),
    ("lgamma", lambda L, x: L.lgamma(x), [arr(3, low=0.3, high=4.0)]),
    ("digamma", lambda L, x: L.digamma(x), [arr(3, low=0.3, high=4.0)]),
    ("polygamma", lambda L, x: L.polygamma(1, x), [arr(3, low=0.3, high=4.0)]),
    ("frac", lambda L, x: L.frac(x), [arr(3, low=0.1, high=0.9)]),
    ("atan2", lambda L, a, b: L.atan2(a, b), [arr(3), arr(3, **POS)]),
    ("hypot", lambda L, a, b: L.hypot(a, b), [arr(3, **POS), arr(3, **POS)]),
    ("logaddexp", lambda L, a, b: L.logaddexp(a, b), [arr(3), arr(3)]),
    ("logaddexp2", lambda L, a, b: a.logaddexp2(b), [arr(3), arr(3)]),
    ("xlogy", lambda L, a, b: L.xlogy(a, b), [arr(3), arr(3, **POS)]),
    ("logit", lambda L, x: L.logit(x, eps=1e-6), [arr(3, low=0.2, high=0.8)]),
    ("sinc", lambda L, x: L.sinc(x), [arr(3)]),
    ("deg2rad", lambda L, x: L.deg2rad(x), [arr(3)]),
    ("lerp", lambda L, a, b: L.lerp(a, b, 0.3), [arr(3), arr(3)]),
    ("clamp_min", lambda L, x: L.clamp_min(x, 0.1), [arr(4)]),
    ("cumprod", lambda L, x: L.cumprod(x, dim=1), [arr(2, 3)]),
    (
        "cumprod_zero",
        lambda L, x: L.cumprod(x * (x > -0.9).to(x.dtype), 0),
        [np.array([0.5, -1.0, 2.0, 3.0])],
    ),
    ("prod", lambda L, x: L.prod(x), [arr(2, 3)]),
    ("prod_dim", lambda L, x: x.prod(1, keepdim=True), [arr(2, 3)]),
    ("cummax", lambda L, x: L.cummax(x, 1).values, [arr(2, 4)]),
    ("cummin", lambda L, x: x.cummin(dim=0)[0], [arr(3, 2)]),
    ("logcumsumexp", lambda L, x: L.logcumsumexp(x, 1), [arr(2, 3)]),
    ("kthvalue", lambda L, x: L.kthvalue(x, 2, 1).values, [arr(2, 4)]),
    ("median", lambda L, x: L.median(x), [arr(5)]),
    ("median_dim", lambda L, x: x.median(dim=1, keepdim=True).values, [arr(2, 3)]),
    ("nansum", lambda L, x: L.nansum(x, 1), [arr(2, 3)]),
    ("nanmean", lambda L, x: L.nanmean(x), [arr(2, 3)]),
    ("diff", lambda L, x: L.diff(x, n=2, dim=0), [arr(4, 2)]),
    ("diagonal", lambda L, x: L.diagonal(x, offset=1, dim1=-1, dim2=0), [arr(3, 2, 4)]),
    ("diag_embed", lambda L, x: L.diag_embed(x, offset=-1), [arr(2, 3)]),
    ("diag", lambda L, x: L.diag(x, 1), [arr(3)]),
    ("diag_2d", lambda L, x: L.diag(x), [arr(3, 3)]),
    ("trace", lambda L, x: L.trace(x), [arr(3, 3)]),
    ("outer", lambda L, a, b: L.outer(a, b), [arr(3), arr(2)]),
    ("dot", lambda L, a, b: L.dot(a, b), [arr(3), arr(3)]),
    ("inner", lambda L, a, b: L.inner(a, b), [arr(2, 3), arr(4, 3)]),
    ("mv", lambda L, a, b: L.mv(a, b), [arr(2, 3), arr(3)]),
    (
        "addmm",
        lambda L, c, a, b: L.addmm(c, a, b, beta=0.5, alpha=2),
        [arr(2, 2), arr(2, 3), arr(3, 2)],
    ),
    ("addmv", lambda L, c, a, b: L.addmv(c, a, b), [arr(2), arr(2, 3), arr(3)]),
    ("addr", lambda L, c, a, b: c.addr(a, b, alpha=3), [arr(2, 3), arr(2), arr(3)]),
    ("addbmm", lambda L, c, a, b: L.addbmm(c, a, b), [arr(2, 2), arr(3, 2, 1), arr(3, 1, 2)]),
    ("addcmul", lambda L, c, a, b: L.addcmul(c, a, b, value=0.5), [arr(3), arr(3), arr(3)]),
    ("addcdiv", lambda L, c, a, b: L.addcdiv(c, a, b), [arr(3), arr(3), arr(3, **POS)]),
    (
        "tensordot",
        lambda L, a, b: L.tensordot(a, b, dims=([1, 0], [0, 1])),
        [arr(2, 3, 2), arr(3, 2)],
    ),
    ("kron", lambda L, a, b: L.kron(a, b), [arr(2, 2), arr(2, 3)]),
    ("cross", lambda L, a, b: L.cross(a, b, dim=1), [arr(2, 3), arr(2, 3)]),
    ("take", lambda L, x: L.take(x, L.tensor([0, 5, 2])), [arr(2, 3)]),
    ("take_along_dim", lambda L, x: L.take_along_dim(x, L.tensor([[1], [0]]), dim=1), [arr(2, 3)]),
    (
        "index_add",
        lambda L, x, s: L.index_add(x, 0, L.tensor([0, 2, 0]), s, alpha=2),
        [arr(3, 2), arr(3, 2)],
    ),
    ("index_copy", lambda L, x, s: x.index_copy(1, L.tensor([2, 0]), s), [arr(2, 3), arr(2, 2)]),
    ("index_fill", lambda L, x: L.index_fill(x, 1, L.tensor([1]), -1.0), [arr(2, 3)]),
    (
        "masked_scatter",
        lambda L, x, s: x.masked_scatter(L.tensor([True, False, True]), s),
        [arr(2, 3), arr(6)],
    ),
    ("movedim", lambda L, x: L.movedim(x, (0, 1), (2, 0)), [arr(2, 3, 4)]),
    ("swapaxes", lambda L, x: L.swapaxes(x, 0, 2), [arr(2, 3, 4)]),
    ("rot90", lambda L, x: L.rot90(x, 3, (0, 1)), [arr(2, 3)]),
    ("fliplr", lambda L, x: L.fliplr(x), [arr(2, 3)]),
    ("flip_dims", lambda L, x: x.flip(dims=(0, 1)), [arr(2, 3)]),
    ("unfold", lambda L, x: x.unfold(1, 2, 1), [arr(2, 4)]),
    ("tensor_split", lambda L, x: L.tensor_split(x, 3, dim=1)[1], [arr(2, 5)]),
    ("unbind", lambda L, x: L.unbind(x, 1)[2], [arr(2, 3)]),
    ("broadcast_to", lambda L, x: L.broadcast_to(x, (2, 3)), [arr(3)]),
    ("tile", lambda L, x: L.tile(x, (2, 1)), [arr(2, 3)]),
    ("std_mean", lambda L, x: L.std_mean(x, 1)[0], [arr(2, 3)]),
    ("var_mean", lambda L, x: L.var_mean(x, dim=0, correction=0)[0], [arr(3, 2)]),
    (
        "quantile",
        lambda L, x: L.quantile(x, 0.25, dim=1),
        [arr(2, 5)],
    ),
    ("aminmax", lambda L, x: L.aminmax(x, dim=1).max, [arr(2, 3)]),
    ("cdist", lambda L, a, b: L.cdist(a, b), [arr(2, 3), arr(4, 3)]),
    ("cdist_p1", lambda L, a, b: L.cdist(a, b, p=1), [arr(1, 2, 3), arr(1, 2, 3)]),
    ("dist", lambda L, a, b: L.dist(a, b, 3), [arr(4), arr(4)]),
    ("hstack", lambda L, a, b: L.hstack([a, b]), [arr(2, 2), arr(2, 1)]),
    ("vstack", lambda L, a, b: L.vstack((a, b)), [arr(3), arr(3)]),
    ("dstack", lambda L, a, b: L.dstack([a, b]), [arr(2, 2), arr(2, 2)]),
    ("column_stack", lambda L, a, b: L.column_stack([a, b]), [arr(3), arr(3, 2)]),
    ("atleast_3d", lambda L, x: L.atleast_3d(x), [arr(2)]),
    ("block_diag", lambda L, a, b: L.block_diag(a, b), [arr(2, 2), arr(1, 3)]),
    ("cartesian_prod", lambda L, a, b: L.cartesian_prod(a, b), [arr(2), arr(3)]),
    ("combinations", lambda L, x: L.combinations(x, 2, with_replacement=True), [arr(3)]),
    ("broadcast_tensors", lambda L, a, b: sum(L.broadcast_tensors(a, b)), [arr(2, 1), arr(3)]),
    ("chain_matmul", lambda L, a, b, c: L.chain_matmul(a, b, c), [arr(2, 3), arr(3, 2), arr(2, 2)]),
    ("trapezoid", lambda L, y: L.trapezoid(y, dx=0.5, dim=0), [arr(4, 2)]),
    ("trapezoid_x", lambda L, y, x: L.trapezoid(y, x), [arr(4), arr(4)]),
    ("cov", lambda L, x: L.cov(x, correction=0), [arr(2, 5)]),
    ("corrcoef", lambda L, x: L.corrcoef(x), [arr(3, 5)]),
    ("fmax", lambda L, a, b: L.fmax(a, b), [arr(4), arr(4)]),
    ("rsub", lambda L, a, b: L.rsub(a, b, alpha=2), [arr(3), arr(3)]),
    ("multiply", lambda L, a, b: L.multiply(a, b), [arr(3), arr(3)]),
    ("msort", lambda L, x: L.msort(x), [arr(3, 2)]),
    ("log1p_", lambda L, x: (x * 1).log1p_(), [arr(3, **POS)]),
    ("floor_", lambda L, x: L.floor_(x * 1), [arr(3)]),
    ("addcmul_", lambda L, c, a, b: (c * 1).addcmul_(a, b, value=2), [arr(3), arr(3), arr(3)]),
    ("H", lambda L, x: x.H, [arr(2, 3)]),
    ("inverse", lambda L, x: L.inverse(x), [arr(3, 3) + 3 * np.eye(3)]),
    ("det", lambda L, x: x.det(), [arr(3, 3) + 3 * np.eye(3)]),
    ("logdet", lambda L, x: L.logdet(x), [arr(3, 3) + 3 * np.eye(3)]),
    ("slogdet", lambda L, x: L.slogdet(x)[1], [arr(3, 3) + 3 * np.eye(3)]),
    ("pinverse", lambda L, x: L.pinverse(x), [arr(4, 2)]),
    ("matrix_power", lambda L, x: x.matrix_power(2), [arr(3, 3)]),
    (
        "cholesky_solve",
        lambda L, b, m: L.cholesky_solve(b, L.linalg.cholesky(m @ m.mT + L.eye(3, dtype=m.dtype))),
        [arr(3, 2), arr(3, 3)],
    ),
    (
        "cholesky_inverse",
        lambda L, m: L.cholesky_inverse(L.linalg.cholesky(m @ m.mT + L.eye(3, dtype=m.dtype))),
        [arr(3, 3)],
    ),
    ("svd_values", lambda L, x: L.svd(x).S, [arr(4, 3)]),
    ("svd_rebuild", lambda L, x: (lambda u, s, v: (u * s) @ v.mT)(*L.svd(x)), [arr(4, 3)]),
    (
        "linalg_svd_rebuild",
        lambda L, x: (lambda u, s, vh: (u * s) @ vh)(*L.linalg.svd(x, full_matrices=False)),
        [arr(2, 3)],
    ),
    ("dist_method", lambda L, a, b: a.dist(b, 1.5), [arr(4), arr(4)]),
    ("cov_method", lambda L, x: x.cov(), [arr(2, 4)]),
    ("copysign", lambda L, a, b: L.copysign(a, b), [arr(4, **POS), arr(4)]),
    # (PyTorch's gradient for a negative integer exponent is 0: its 2**other stays integer)
    ("ldexp", lambda L, a: L.ldexp(a, L.tensor([1, 2, 0])), [arr(3)]),
    ("renorm", lambda L, x: L.renorm(x, 2, 0, 0.5), [arr(3, 2)]),
    (
        "scatter_reduce_sum",
        lambda L, x, s: L.scatter_reduce(x, 0, L.tensor([0, 2, 0]), s, "sum", include_self=False),
        [arr(3), arr(3)],
    ),
    (
        "scatter_reduce_mean",
        lambda L, x, s: x.scatter_reduce(0, L.tensor([0, 2, 0]), s, reduce="mean"),
        [arr(3), arr(3)],
    ),
    (  # a zero among the factors of the first position
        "scatter_reduce_prod_grad",
        lambda L, x, s: x.scatter_reduce(
            0, L.tensor([0, 2, 0, 0]), s * L.tensor([1, 1, 0, 1]), "prod"
        ),
        [arr(3), arr(4)],
    ),
    (
        "scatter_reduce_prod_without_self",
        lambda L, x, s: x.scatter_reduce(
            1, L.tensor([[0, 0, 2], [1, 1, 1]]), s, "prod", include_self=False
        ),
        [arr(2, 3), arr(2, 3)],
    ),
    (
        "scatter_reduce_amax_grad",
        lambda L, x, s: L.scatter_reduce(x, 0, L.tensor([0, 2, 0, 0]), s, "amax"),
        [arr(3), arr(4)],
    ),
    (
        "scatter_reduce_amin_without_self",
        lambda L, x, s: x.scatter_reduce(
            1, L.tensor([[0, 0, 2], [1, 1, 1]]), s, "amin", include_self=False
        ),
        [arr(2, 3), arr(2, 3)],
    ),
    (
        "index_put",
        lambda L, x, v: L.index_put(
            x, (L.tensor([0, 1, 0]), L.tensor([1, 2, 1])), v, accumulate=True
        ),
        [arr(2, 3), arr(3)],
    ),
    ("index_put_", lambda L, x, v: (x * 1).index_put_((L.tensor([1, 0]),), v), [arr(2, 3), arr(3)]),
    ("put", lambda L, x, v: L.put(x, L.tensor([1, 4]), v), [arr(2, 3), arr(2)]),
    ("i0", lambda L, x: L.i0(x), [arr(3)]),
    ("mvlgamma", lambda L, x: L.mvlgamma(x, 2), [arr(3, low=1.0, high=3.0)]),
    ("cumulative_trapezoid", lambda L, y: L.cumulative_trapezoid(y, dx=0.5), [arr(2, 4)]),
    ("frobenius_norm", lambda L, x: L.frobenius_norm(x, (0, 1)), [arr(2, 3)]),
    ("nuclear_norm", lambda L, x: L.nuclear_norm(x), [arr(3, 2)]),
    ("conv2d", lambda L, x, w: L.conv2d(x, w, None, 1, 1), [arr(1, 2, 3, 3), arr(2, 2, 2, 2)]),
    ("conv1d", lambda L, x, w: L.conv1d(x, w, stride=2), [arr(1, 1, 5), arr(2, 1, 2)]),
    ("layer_norm", lambda L, x: L.layer_norm(x, (3,), None, None, 1e-5, True), [arr(2, 3)]),
    ("group_norm", lambda L, x: L.group_norm(x, 2, None, None, 1e-5, True), [arr(2, 4, 2)]),
    ("cosine_similarity", lambda L, a, b: L.cosine_similarity(a, b, 1), [arr(2, 3), arr(2, 3)]),
    ("pairwise_distance", lambda L, a, b: L.pairwise_distance(a, b), [arr(2, 3), arr(2, 3)]),
    ("pixel_shuffle", lambda L, x: L.pixel_shuffle(x, 2), [arr(1, 4, 2, 2)]),
    ("prelu", lambda L, x, w: L.prelu(x, w), [arr(2, 3), arr(1, **POS)]),
    ("max_pool2d", lambda L, x: L.max_pool2d(x, 2), [arr(1, 1, 4, 4)]),
    ("dropout_eval", lambda L, x: L.dropout(x, 0.5, train=False), [arr(3)]),
    ("einsum_diagonal", lambda L, x: L.einsum("ii->i", x), [arr(3, 3)]),
    ("einsum_trace", lambda L, x: L.einsum("ii", x), [arr(3, 3)]),
    ("einsum_iji", lambda L, x: L.einsum("iji->j", x), [arr(2, 3, 2)]),
    ("einsum_ii_ij", lambda L, a, b: L.einsum("ii,ij->j", a, b), [arr(2, 2), arr(2, 3)]),
    ("mH", lambda L, x: x.mH, [arr(2, 2, 3)]),
]


# differentiable, but PyTorch's own backward refuses these inputs: finite differences only
GRADCHECK_ONLY = [
    ("vander", lambda L, x: L.vander(x, N=3, increasing=True), [arr(3)]),
]


def _run(lib, fn, arrays, requires_grad):
    tensors = [lib.tensor(a, dtype=lib.float64, requires_grad=requires_grad) for a in arrays]
    return fn(lib, *tensors), tensors


@pytest.mark.parametrize(
    "name,fn,arrays",
    DIFFERENTIABLE + GRADCHECK_ONLY,
    ids=[r[0] for r in DIFFERENTIABLE + GRADCHECK_ONLY],
)
def test_gradcheck_and_gradgradcheck(name, fn, arrays):
    inputs = tuple(nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays)
    assert nl.autograd.gradcheck(lambda *t: fn(nl, *t), inputs)
    assert nl.autograd.gradgradcheck(lambda *t: fn(nl, *t), inputs)


@pytest.mark.parametrize("name,fn,arrays", DIFFERENTIABLE, ids=[r[0] for r in DIFFERENTIABLE])
def test_matches_pytorch(name, fn, arrays):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours, our_in = _run(nl, fn, arrays, True)
    theirs, their_in = _run(torch, fn, arrays, True)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-9)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    for a, b in zip(our_in, their_in):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-8)
    # float32 stays float32
    ours32 = fn(nl, *[nl.tensor(a, dtype=nl.float32) for a in arrays])
    theirs32 = fn(torch, *[torch.tensor(a, dtype=torch.float32) for a in arrays])
    assert str(ours32.dtype).split(".")[1] == str(theirs32.dtype).split(".")[1]


# Non-differentiable results: (name, fn(lib), compared with PyTorch as values and dtype)
F = np.array([[3.0, 1.0, np.nan, 2.0], [0.0, -1.5, 2.5, 2.0]])
INTS = np.array([3, 1, 3, 0, 1, 1])
VALUES = [
    ("floor", lambda L: L.floor(L.tensor(F))),
    ("ceil", lambda L: L.tensor(F).ceil()),
    ("round_decimals", lambda L: L.round(L.tensor([1.256, -0.5, 2.5]), decimals=1)),
    ("round", lambda L: L.round(L.tensor([0.5, 1.5, -2.5]))),
    ("trunc", lambda L: L.trunc(L.tensor(F))),
    ("prod_int", lambda L: L.prod(L.tensor(INTS))),
    ("cummax_indices", lambda L: L.cummax(L.tensor([1.0, 3.0, 3.0, 2.0, 5.0]), 0).indices),
    ("cummin_indices", lambda L: L.tensor([[2.0, 1.0, 1.0], [0.0, 4.0, -1.0]]).cummin(1).indices),
    ("median_nan", lambda L: L.tensor(F).median(1).values),
    ("nanmedian", lambda L: L.nanmedian(L.tensor(F), 1).values),
    ("nanmedian_all", lambda L: L.nanmedian(L.tensor(F))),
    ("mode", lambda L: L.mode(L.tensor(INTS)).values),
    ("mode_dim", lambda L: L.mode(L.tensor([[1, 2, 2], [3, 3, 1]]), 1).values),
    ("kthvalue_indices", lambda L: L.kthvalue(L.tensor([[4.0, 1.0, 3.0]]), 2).indices),
    ("nansum", lambda L: L.nansum(L.tensor(F))),
    ("nanmean", lambda L: L.nanmean(L.tensor(F), dim=1)),
    ("count_nonzero", lambda L: L.count_nonzero(L.tensor(F), dim=0)),
    (
        "searchsorted",
        lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0]), L.tensor([[3.0, 6.0]]), right=True),
    ),
    ("searchsorted_2d", lambda L: L.searchsorted(L.tensor([[1, 3], [2, 4]]), L.tensor([[2], [5]]))),
    ("bucketize", lambda L: L.bucketize(L.tensor([0.5, 2.0, 9.0]), L.tensor([1.0, 2.0, 3.0]))),
    ("unique", lambda L: L.unique(L.tensor(INTS), return_inverse=True, return_counts=True)),
    (
        "unique_dim",
        lambda L: L.unique(L.tensor([[1, 2], [0, 1], [1, 2]]), dim=0, return_inverse=True),
    ),
    (
        "unique_consecutive",
        lambda L: L.unique_consecutive(L.tensor(INTS), return_counts=True, return_inverse=True),
    ),
    ("bincount", lambda L: L.bincount(L.tensor(INTS), minlength=6)),
    ("bincount_weights", lambda L: L.tensor(INTS).bincount(L.tensor(np.arange(6.0)))),
    ("histc", lambda L: L.histc(L.tensor([1.0, 2.0, 1.0, 7.0]), bins=4)),
    ("nonzero", lambda L: L.nonzero(L.tensor(INTS))),
    ("nonzero_tuple", lambda L: L.nonzero(L.tensor([[0, 1], [1, 0]]), as_tuple=True)),
    ("argwhere", lambda L: L.argwhere(L.tensor([[0, 1], [1, 0]]))),
    ("where_method", lambda L: L.tensor([1.0, 2.0]).where(L.tensor([True, False]), 0.0)),
    ("isposinf", lambda L: L.isposinf(L.tensor([np.inf, -np.inf, 1.0]))),
    ("isneginf", lambda L: L.isneginf(L.tensor([np.inf, -np.inf, 1.0]))),
    ("signbit", lambda L: L.signbit(L.tensor([-0.0, 1.0, -2.0]))),
    ("isin", lambda L: L.isin(L.tensor(INTS), L.tensor([1, 0]))),
    ("logical_and", lambda L: L.logical_and(L.tensor(INTS), L.tensor(INTS - 1))),
    ("logical_xor", lambda L: L.logical_xor(L.tensor(INTS), L.tensor(INTS - 1))),
    ("bitwise_not", lambda L: L.bitwise_not(L.tensor(INTS))),
    ("diff_bool", lambda L: L.diff(L.tensor([True, False, False]))),
    (
        "diff_prepend",
        lambda L: L.diff(L.tensor([1, 4, 9]), prepend=L.tensor([0]), append=L.tensor([20])),
    ),
    ("hsplit", lambda L: L.hsplit(L.arange(8).reshape(2, 4), [1, 3])[1]),
    ("vsplit", lambda L: L.vsplit(L.arange(8).reshape(4, 2), 2)[1]),
    ("tensor_split_idx", lambda L: L.tensor_split(L.arange(7), [2, 5])[2]),
    ("float_power", lambda L: L.float_power(L.tensor([2, 3]), 2)),
    (
        "quantile_interp",
        lambda L: L.quantile(L.tensor([1.0, 2.0, 4.0, 8.0]), 0.4, interpolation="midpoint"),
    ),
    ("nanquantile", lambda L: L.nanquantile(L.tensor(F), 0.5, dim=1, keepdim=True)),
    ("aminmax", lambda L: L.aminmax(L.tensor(INTS))),
    ("ravel", lambda L: L.ravel(L.tensor([[1, 2], [3, 4]]))),
    ("adjoint", lambda L: L.adjoint(L.tensor([[1, 2], [3, 4]]))),
    ("tril_indices", lambda L: L.tril_indices(3, 4, 1)),
    ("triu_indices", lambda L: L.triu_indices(4, 3, -1)),
    ("logspace", lambda L: L.logspace(0, 3, 4, base=2)),
    ("scalar_tensor", lambda L: L.scalar_tensor(3)),
    ("broadcast_shapes", lambda L: [L.tensor(list(L.broadcast_shapes((2, 1), (3,), 1)))]),
    ("heaviside", lambda L: L.heaviside(L.tensor([-1.0, 0.0, 2.0]), L.tensor([0.5]))),
    ("fmin_nan", lambda L: L.fmin(L.tensor([1.0, np.nan, np.nan]), L.tensor([2.0, 0.0, np.nan]))),
    ("unravel_index", lambda L: L.unravel_index(L.tensor([5, 1]), (2, 3))),
    ("greater", lambda L: L.greater(L.tensor(INTS), 1)),
    ("not_equal", lambda L: L.not_equal(L.tensor(INTS), 1)),
    ("negative", lambda L: L.negative(L.tensor(INTS))),
    ("absolute", lambda L: L.absolute(L.tensor(F))),
    ("vander", lambda L: L.vander(L.tensor([1.0, 2.0, -3.0]), N=3, increasing=True)),
    ("gcd", lambda L: L.gcd(L.tensor([12, 9, 0]), L.tensor([8, 6, 5]))),
    ("lcm", lambda L: L.lcm(L.tensor([4, 3, 0]), L.tensor([6, 5, 2]))),
    ("frexp", lambda L: L.frexp(L.tensor([8.0, -0.3, 0.0]))),
    (
        "nextafter",
        lambda L: L.nextafter(
            L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([2.0, 0.0], dtype=L.float64)
        ),
    ),
    ("left_shift", lambda L: L.bitwise_left_shift(L.tensor([1, -2]), 3)),
    ("right_shift", lambda L: L.bitwise_right_shift(L.tensor([16, -16]), L.tensor([2, 3]))),
    (
        "scatter_reduce_prod",
        lambda L: L.tensor([2.0, 3.0]).scatter_reduce(
            0, L.tensor([0, 0, 1]), L.tensor([4.0, 5.0, 6.0]), "prod"
        ),
    ),
    (
        "scatter_reduce_amax",
        lambda L: L.tensor([9.0, 0.0]).scatter_reduce(
            0, L.tensor([0, 0, 1]), L.tensor([4.0, 5.0, 6.0]), "amax", include_self=False
        ),
    ),
    (
        "scatter_reduce_amin",
        lambda L: L.tensor([[9.0, 0.0]]).scatter_reduce(
            1, L.tensor([[1, 1]]), L.tensor([[4.0, -5.0]]), "amin"
        ),
    ),
    (
        "scatter_reduce_mean_int",
        lambda L: L.tensor([1, 2]).scatter_reduce(0, L.tensor([0, 0]), L.tensor([4, 5]), "mean"),
    ),
    ("hann_window", lambda L: L.hann_window(5)),
    ("hamming_window", lambda L: L.hamming_window(6, periodic=False, alpha=0.5, beta=0.5)),
    ("bartlett_window", lambda L: L.bartlett_window(5)),
    ("blackman_window", lambda L: L.blackman_window(4, dtype=L.float64)),
    ("kaiser_window", lambda L: L.kaiser_window(5, True, 6.0)),
    ("window_1", lambda L: L.hann_window(1)),
    ("range", lambda L: L.range(1, 4, 0.5)),
    ("histogram", lambda L: L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)),
    (
        "histogram_range",
        lambda L: L.histogram(
            L.tensor([1.0, 2.0, 1.0, 4.0]), bins=2, range=(0.0, 2.0), density=True
        ),
    ),
    ("split_with_sizes", lambda L: L.split_with_sizes(L.arange(5), [2, 3])),
    ("fill", lambda L: L.fill(L.zeros(2, dtype=L.int64), 3)),
    ("asarray", lambda L: L.asarray([1, 2])),
    ("logical_not", lambda L: L.logical_not(L.tensor(INTS))),
    ("short", lambda L: L.tensor([1.7, -2.5]).short()),
    ("char", lambda L: L.tensor([1.7, -2.5]).char()),
    ("heaviside_method", lambda L: L.tensor([0.0, -2.0]).heaviside(L.tensor([0.5]))),
    ("fill_diagonal_", lambda L: L.zeros(3, 2).fill_diagonal_(5.0)),
    ("fill_diagonal_wrap", lambda L: L.zeros(5, 2).fill_diagonal_(5.0, wrap=True)),
    ("combinations_empty", lambda L: L.combinations(L.tensor([1]), 2)),
]


def test_limits_and_flags_match_pytorch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for ours, theirs in [(nl.float32, torch.float32), (nl.float64, torch.float64)]:
        for field in ("eps", "tiny", "max", "min", "resolution", "bits"):
            assert getattr(nl.finfo(ours), field) == getattr(torch.finfo(theirs), field), field
    for ours, theirs in [(nl.int8, torch.int8), (nl.int64, torch.int64), (nl.uint8, torch.uint8)]:
        for field in ("max", "min", "bits"):
            assert getattr(nl.iinfo(ours), field) == getattr(torch.iinfo(theirs), field), field
    assert (nl.pi, nl.e, nl.inf) == (torch.pi, torch.e, torch.inf)
    for a, b in [(nl.float64, nl.int32), (nl.int32, nl.float32), (nl.bool, nl.int64)]:
        ta, tb = (getattr(torch, str(d).split(".")[1]) for d in (a, b))
        assert nl.can_cast(a, b) == torch.can_cast(ta, tb)
    nl.use_deterministic_algorithms(True, warn_only=True)
    assert nl.are_deterministic_algorithms_enabled() and nl.get_deterministic_debug_mode() == 1
    nl.use_deterministic_algorithms(False)
    assert nl.get_deterministic_debug_mode() == 0


def test_sampling_shapes_and_ranges():
    nl.manual_seed(0)
    assert nl.normal(nl.zeros(3), 1.0).shape == (3,)
    assert nl.normal(2.0, 0.0, size=(2, 2)).tolist() == [[2.0, 2.0], [2.0, 2.0]]
    assert nl.bernoulli(nl.tensor([0.0, 1.0])).tolist() == [0.0, 1.0]
    assert nl.bernoulli(nl.zeros(3), p=1.0).tolist() == [1.0, 1.0, 1.0]
    assert nl.poisson(nl.zeros(2)).tolist() == [0.0, 0.0]
    r = nl.randint_like(nl.zeros(50), 3, 5)
    assert r.dtype == nl.float32 and set(r.tolist()) <= {3.0, 4.0}
    with pytest.raises(RuntimeError, match="std >= 0.0"):
        nl.normal(0.0, -1.0, size=(1,))


def _flatten(x):
    """(values, dtype name) pairs of a result: a tensor or a (nested) tuple of them."""
    if isinstance(x, (tuple, list)):
        return [pair for v in x for pair in _flatten(v)]
    return [(np.asarray(x.numpy(), dtype=np.float64), str(x.dtype).split(".")[1])]


@pytest.mark.parametrize("name,fn", VALUES, ids=[r[0] for r in VALUES])
def test_values_match_pytorch(name, fn):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours, theirs = _flatten(fn(nl)), _flatten(fn(torch))
    assert [d for _, d in ours] == [d for _, d in theirs]
    for (a, _), (b, _) in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7, equal_nan=True)


def test_sizes_and_random_fills():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for lib in (nl, torch):
        x = lib.zeros(2, 3, dtype=lib.float64)
        assert (x.ndimension(), x.nbytes, x.itemsize, x.output_nr, x.is_inference()) == (
            2,
            48,
            8,
            0,
            False,
        )
    nl.manual_seed(0)
    x = nl.zeros(1000)
    assert (x.exponential_(2.0) >= 0).all() and abs(x.mean().item() - 0.5) < 0.1
    assert (x.geometric_(0.5) >= 1).all() and set(np.unique(x.random_(3, 5).numpy())) <= {3.0, 4.0}
    assert (x.log_normal_(0.0, 0.1) > 0).all() and x.cauchy_().shape == (1000,)
    with pytest.raises(RuntimeError, match="leaf"):
        nl.zeros(2, requires_grad=True).exponential_()


def test_scalar_predicates():
    x = nl.tensor([2.0])
    assert x.is_nonzero() and x.is_signed() and x.is_same_size(nl.ones(1))
    assert not nl.tensor([True]).is_signed()
    with pytest.raises(RuntimeError, match="ambiguous"):
        nl.ones(2).is_nonzero()


@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("reduce", ["amax", "amin", "prod"])
def test_scatter_reduce_gradient_with_ties_and_zeros_matches_pytorch(reduce, include_self):
    # small integers: ties for amax / amin (the gradient is shared evenly, self counted as PyTorch
    # does), zeros for prod (one or several reaching the same position)
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    values = np.random.default_rng(4)
    base, src = values.integers(-2, 3, (3, 4)), values.integers(-2, 3, (4, 4))
    index, grad = values.integers(0, 3, (4, 4)), values.standard_normal((3, 4))
    results = []
    for L in (torch, nl):
        x = L.tensor(base, dtype=L.float64, requires_grad=True)
        s = L.tensor(src, dtype=L.float64, requires_grad=True)
        out = x.scatter_reduce(0, L.tensor(index), s, reduce, include_self=include_self)
        out.backward(L.tensor(grad))
        results.append([out.detach().numpy(), x.grad.numpy(), s.grad.numpy()])
    for theirs, ours in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
