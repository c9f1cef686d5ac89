"""Every differentiable Tensor op, registered once: finite differences (first and second order,
float64) and, when PyTorch is importable, forward values and gradients against PyTorch."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck, gradgradcheck

rng = np.random.default_rng(1234)


def arr(*shape, positive=False, away_from_zero=False):
    a = rng.standard_normal(shape)
    if positive:
        a = np.abs(a) + 0.5
    if away_from_zero:
        a = np.sign(a) * (np.abs(a) + 0.2)
    return a


# (name, input arrays, function of tensors, second_order) — the function body uses only the
# Tensor API, so the same lambda runs on nnlite tensors and on torch tensors.
OPS = [
    ("add", [arr(3, 4), arr(3, 4)], lambda a, b: a + b, True),
    ("add_broadcast", [arr(3, 4), arr(4)], lambda a, b: a + b, True),
    ("add_scalar", [arr(3)], lambda a: 2.5 + a, True),
    ("add_alpha", [arr(2, 3), arr(2, 3)], lambda a, b: a.add(b, alpha=3), True),
    ("sub_broadcast", [arr(2, 1, 3), arr(4, 1)], lambda a, b: a - b, True),
    ("rsub", [arr(3)], lambda a: 1.0 - a, True),
    ("mul_broadcast", [arr(2, 3), arr(3)], lambda a, b: a * b, True),
    ("mul_keepdim_broadcast", [arr(2, 3), arr(2, 1)], lambda a, b: a * b, True),
    ("div", [arr(3, 2), arr(3, 2, away_from_zero=True)], lambda a, b: a / b, True),
    ("rdiv", [arr(4, away_from_zero=True)], lambda a: 2.0 / a, True),
    (
        "div_floor",
        [arr(3, 2) * 3, arr(3, 2, away_from_zero=True)],
        lambda a, b: a.div(b, rounding_mode="floor"),
        True,
    ),
    ("div_trunc", [arr(4) * 3], lambda a: a.div(0.7, rounding_mode="trunc"), True),
    ("remainder", [arr(3, 2) * 3, arr(2, positive=True)], lambda a, b: a % b, True),
    ("fmod", [arr(3, 2) * 3, arr(3, 2, away_from_zero=True)], lambda a, b: a.fmod(b), True),
    ("neg", [arr(5)], lambda a: -a, True),
    ("pow_scalar", [arr(4, positive=True)], lambda a: a**3, True),
    ("pow_fractional", [arr(4, positive=True)], lambda a: a**0.5, True),
    ("pow_tensor", [arr(3, positive=True), arr(3)], lambda a, b: a**b, True),
    ("rpow", [arr(3)], lambda a: 2.0**a, True),
    ("exp", [arr(3, 2)], lambda a: a.exp(), True),
    ("log", [arr(4, positive=True)], lambda a: a.log(), True),
    ("sqrt", [arr(4, positive=True)], lambda a: a.sqrt(), True),
    ("abs", [arr(5, away_from_zero=True)], lambda a: a.abs(), True),
    ("clamp", [arr(6, away_from_zero=True) * 2], lambda a: a.clamp(-1.1, 0.9), True),
    ("clamp_min", [arr(6, away_from_zero=True)], lambda a: a.clamp(min=0.1), True),
    ("relu", [arr(3, 3, away_from_zero=True)], lambda a: a.relu(), True),
    ("sigmoid", [arr(5) * 3], lambda a: a.sigmoid(), True),
    ("tanh", [arr(5)], lambda a: a.tanh(), True),
    ("maximum", [arr(4), arr(4)], lambda a, b: a.maximum(b), True),
    ("minimum", [arr(4), arr(4)], lambda a, b: a.minimum(b), True),
    ("sum_all", [arr(3, 4)], lambda a: a.sum(), True),
    ("sum_dim", [arr(3, 4, 2)], lambda a: a.sum(1), True),
    ("sum_dims_keepdim", [arr(3, 4, 2)], lambda a: a.sum((0, 2), keepdim=True), True),
    ("mean_all", [arr(3, 4)], lambda a: a.mean(), True),
    ("mean_dim", [arr(3, 4)], lambda a: a.mean(-1), True),
    ("max_all", [arr(3, 4)], lambda a: a.max(), True),
    ("min_all", [arr(3, 4)], lambda a: a.min(), True),
    ("max_dim", [arr(3, 4)], lambda a: a.max(1)[0], True),
    ("min_dim_keepdim", [arr(3, 4)], lambda a: a.min(0, keepdim=True)[0], True),
    ("var", [arr(3, 4)], lambda a: a.var(), True),
    ("var_dim", [arr(3, 4)], lambda a: a.var(1, keepdim=True), True),
    ("std_dim", [arr(3, 5)], lambda a: a.std(0), True),
    ("logsumexp", [arr(3, 4)], lambda a: a.logsumexp(1), True),
    ("matmul_2d", [arr(3, 4), arr(4, 2)], lambda a, b: a @ b, True),
    ("matmul_vec", [arr(3, 4), arr(4)], lambda a, b: a.matmul(b), True),
    ("matmul_vecmat", [arr(4), arr(4, 2)], lambda a, b: a.matmul(b), True),
    ("matmul_batched_broadcast", [arr(2, 3, 4), arr(4, 5)], lambda a, b: a @ b, True),
    ("matmul_vecvec", [arr(4), arr(4)], lambda a, b: a @ b, True),
    ("matmul_batched_vec", [arr(2, 3, 4), arr(4)], lambda a, b: a @ b, True),
    ("matmul_vec_batched", [arr(4), arr(2, 4, 5)], lambda a, b: a @ b, True),
    ("matmul_batched_both", [arr(2, 1, 3, 4), arr(3, 4, 2)], lambda a, b: a @ b, True),
    ("mm_transpose", [arr(3, 4)], lambda a: a.mm(a.t()), True),
    ("reshape", [arr(3, 4)], lambda a: a.reshape(2, 6) * 2, True),
    ("view_infer", [arr(3, 4)], lambda a: a.view(-1, 3), True),
    ("flatten", [arr(2, 3, 4)], lambda a: a.flatten(1), True),
    ("squeeze_unsqueeze", [arr(3, 1, 4)], lambda a: a.squeeze(1).unsqueeze(0), True),
    ("permute", [arr(2, 3, 4)], lambda a: a.permute(2, 0, 1), True),
    ("transpose", [arr(2, 3, 4)], lambda a: a.transpose(0, 2), True),
    ("T", [arr(2, 3)], lambda a: a.T * 1, True),
    ("expand", [arr(3, 1)], lambda a: a.expand(3, 4), True),
    ("cat", [arr(2, 3), arr(2, 2)], lambda a, b: _lib(a).cat([a, b], dim=1), True),
    ("stack", [arr(2, 3), arr(2, 3)], lambda a, b: _lib(a).stack([a, b], dim=1), True),
    ("where", [arr(6), arr(6)], lambda a, b: _lib(a).where(a > 0, a, b), True),
    ("index_int", [arr(4, 3)], lambda a: a[1], True),
    ("index_slice_step", [arr(6, 3)], lambda a: a[1:5:2, :2], True),
    ("index_none_ellipsis", [arr(2, 3, 4)], lambda a: a[None, ..., 1], True),
    ("index_bool_mask", [arr(5)], lambda a: a[a > 0], True),
    ("index_int_array_repeats", [arr(4, 2)], lambda a: a[[0, 2, 0, 0]], True),
    ("index_two_arrays", [arr(4, 3)], lambda a: a[[0, 1, 1], [2, 0, 0]], True),
    ("narrow_chunk", [arr(6, 2)], lambda a: a.chunk(3)[1] * a.narrow(0, 4, 2), True),
    ("gather", [arr(3, 4)], lambda a: a.gather(1, _lib(a).tensor([[0, 0], [1, 3], [2, 1]])), True),
    ("repeat", [arr(2, 3)], lambda a: a.repeat(2, 1, 2), True),
    ("to_float64_identity", [arr(3)], lambda a: a.double() * 2, True),
    ("clone", [arr(3)], lambda a: a.clone() * a, True),
    ("softmax_via_exp", [arr(2, 5)], lambda a: a.exp() / a.exp().sum(1, keepdim=True), True),
    (
        "composite",
        [arr(3, 4), arr(4)],
        lambda a, b: ((a * b).tanh() + a.sigmoid() ** 2).mean(0),
        True,
    ),
    ("sin", [arr(5)], lambda a: a.sin(), True),
    ("cos", [arr(5)], lambda a: a.cos(), True),
    ("erf", [arr(5)], lambda a: a.erf(), True),
    ("cumsum", [arr(3, 4)], lambda a: a.cumsum(1), True),
    ("cumsum_dim0", [arr(3, 4)], lambda a: a.cumsum(-2) * a, True),
    ("norm_2", [arr(3, 4)], lambda a: a.norm(), True),
    ("norm_dim", [arr(3, 4)], lambda a: a.norm(dim=1, keepdim=True), True),
    ("norm_1", [arr(3, 4, away_from_zero=True)], lambda a: a.norm(p=1, dim=0), True),
    ("norm_3", [arr(3, 4, away_from_zero=True)], lambda a: a.norm(p=3, dim=1), True),
    ("linalg_norm", [arr(3, 4)], lambda a: _lib(a).linalg.norm(a, dim=1), True),
    ("sort_values", [arr(3, 5)], lambda a: a.sort(1, descending=True).values * 2, True),
    ("topk_values", [arr(3, 5)], lambda a: a.topk(2, dim=1).values, True),
    ("topk_smallest", [arr(6)], lambda a: a.topk(3, largest=False).values, True),
    ("index_select", [arr(4, 3)], lambda a: a.index_select(0, _lib(a).tensor([3, 0, 3])), True),
    ("masked_select", [arr(3, 4)], lambda a: a.masked_select(a > 0), True),
    (
        "scatter",
        [arr(3, 5), arr(2, 5)],
        lambda a, b: a.scatter(0, _lib(a).tensor([[0, 1, 2, 0, 0], [2, 0, 1, 1, 2]]), b),
        True,
    ),
    (
        "scatter_value",
        [arr(3, 4)],
        lambda a: a.scatter(1, _lib(a).tensor([[0], [3], [1]]), 2.5),
        True,
    ),
    (
        "scatter_add_repeats",
        [arr(3, 5), arr(2, 5)],
        lambda a, b: a.scatter_add(0, _lib(a).tensor([[0, 1, 2, 0, 0], [0, 0, 0, 1, 2]]), b),
        True,
    ),
    ("tril", [arr(4, 4)], lambda a: a.tril(), True),
    ("triu_offset", [arr(2, 3, 4)], lambda a: a.triu(1) + a.tril(-1), True),
    ("flip", [arr(3, 4)], lambda a: a.flip(0, 1) * a, True),
    ("roll", [arr(3, 4)], lambda a: a.roll(1, 1) + a.roll((2, -1), (0, 1)), True),
    ("roll_flat", [arr(2, 3)], lambda a: a.roll(2), True),
    ("repeat_interleave", [arr(3, 2)], lambda a: a.repeat_interleave(2, dim=0), True),
    (
        "repeat_interleave_counts",
        [arr(3)],
        lambda a: a.repeat_interleave(_lib(a).tensor([1, 0, 3])),
        True,
    ),
    ("bmm", [arr(2, 3, 4), arr(2, 4, 2)], lambda a, b: a.bmm(b), True),
    (
        "baddbmm",
        [arr(2, 3, 2), arr(2, 3, 4), arr(2, 4, 2)],
        lambda c, a, b: c.baddbmm(a, b, beta=0.5, alpha=2.0),
        True,
    ),
    ("einsum_matmul", [arr(3, 4), arr(4, 2)], lambda a, b: _lib(a).einsum("ij,jk->ik", a, b), True),
    (
        "einsum_batched",
        [arr(2, 3, 4), arr(2, 4, 5)],
        lambda a, b: _lib(a).einsum("bij,bjk->bik", a, b),
        True,
    ),
    ("einsum_summed_out", [arr(3, 4), arr(3)], lambda a, b: _lib(a).einsum("ij,i->i", a, b), True),
    ("einsum_implicit_outer", [arr(3), arr(4)], lambda a, b: _lib(a).einsum("i,j", a, b), True),
    (
        "einsum_three",
        [arr(2, 3), arr(3, 4), arr(4)],
        lambda a, b, c: _lib(a).einsum("ij,jk,k->i", a, b, c),
        True,
    ),
    ("nan_to_num_finite", [arr(5)], lambda a: a.nan_to_num(), True),
    (
        "meshgrid",
        [arr(3), arr(2)],
        lambda a, b: (
            _lib(a).meshgrid(a, b, indexing="xy")[0] * _lib(a).meshgrid(a, b, indexing="ij")[1].t()
        ),
        True,
    ),
]


def _lib(t):
    """The library a tensor belongs to, so one lambda serves nnlite and torch."""
    return nl if isinstance(t, nl.Tensor) else __import__("torch")


def _nl_inputs(arrays):
    return [nl.tensor(a, dtype=nl.float64, requires_grad=True) for a in arrays]


@pytest.mark.parametrize("name,arrays,fn,second", OPS, ids=[row[0] for row in OPS])
def test_gradcheck(name, arrays, fn, second):
    inputs = _nl_inputs(arrays)
    assert gradcheck(fn, tuple(inputs))
    if second:
        assert gradgradcheck(fn, tuple(inputs))


@pytest.mark.parametrize("name,arrays,fn,second", OPS, ids=[row[0] for row in OPS])
def test_against_torch(name, arrays, fn, second):
    torch = pytest.importorskip("torch")
    for dtype, tol in ((np.float64, 1e-10), (np.float32, 1e-5)):
        ours = [nl.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        theirs = [torch.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
        out, ref = fn(*ours), fn(*theirs)
        assert out.dtype.name == str(ref.dtype).replace("torch.", "")
        np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=tol, atol=tol)
        seed = np.random.default_rng(0).standard_normal(tuple(ref.shape)).astype(dtype)
        out.backward(nl.tensor(seed))
        ref.backward(torch.tensor(seed))
        for a, b in zip(ours, theirs):
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol * 10, atol=tol * 10)


def test_gradcheck_reports_the_worst_mismatch():
    class WrongGrad(nl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * x

        @staticmethod
        def backward(ctx, grad):
            return grad * 3.0

    x = nl.tensor([1.0, 2.0], dtype=nl.float64, requires_grad=True)
    with pytest.raises(nl.autograd.GradcheckError, match="worst at"):
        gradcheck(WrongGrad.apply, (x,))
    assert gradcheck(WrongGrad.apply, (x,), raise_exception=False) is False
