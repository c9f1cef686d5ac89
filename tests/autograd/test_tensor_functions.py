"""The tensor functions beyond arithmetic: indices, sampling, masks, in-place scatter and the error
messages, against PyTorch (their gradients are rows of the op table in ``test_ops.py``)."""

import warnings

import numpy as np
import pytest

import nnlite as nl
from nnlite.autograd import gradcheck

torch = pytest.importorskip("torch")


def both(array, **kwargs):
    return nl.tensor(array, **kwargs), torch.tensor(array, **kwargs)


def assert_same(ours, theirs):
    assert ours.dtype.name == str(theirs.dtype).replace("torch.", "")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    "call",
    [
        lambda x, lib: x.sort(1).indices,
        lambda x, lib: x.sort(0, descending=True).indices,
        lambda x, lib: x.argsort(dim=-1),
        lambda x, lib: x.topk(3, dim=1).indices,
        lambda x, lib: x.topk(2, dim=0, largest=False).indices,
        lambda x, lib: lib.isclose(x, x + 1e-9),
        lambda x, lib: x.isclose(x * 1.1, rtol=0.05),
        lambda x, lib: (x > 0).any(1),
        lambda x, lib: x.isfinite().all(),
        lambda x, lib: lib.nn.functional.one_hot(x.argmax(1), 7),
        lambda x, lib: lib.nn.functional.one_hot(x.argmin(1)),
        lambda x, lib: lib.tril(x, -1),
        lambda x, lib: lib.roll(x, 2),
        lambda x, lib: lib.cumsum(x, 0),
        lambda x, lib: (x > 0).all(dim=(0, 1)),
        lambda x, lib: (x > 0).any(dim=[1]),
        lambda x, lib: x.amax(dim=(0, 1), keepdim=True),
        lambda x, lib: x.amin(dim=(1, 0)),
        lambda x, lib: x.amax(dim=()),
        lambda x, lib: x.norm(float("inf"), dim=(0, 1)),
        lambda x, lib: x.norm(float("-inf"), dim=(1,), keepdim=True),
    ],
)
def test_matches_pytorch(call):
    values = np.random.default_rng(0).permutation(20).reshape(4, 5).astype(np.float32) - 10
    ours, theirs = both(values)
    assert_same(call(ours, nl), call(theirs, torch))


def test_nan_to_num_and_equality_helpers():
    ours, theirs = both([1.0, float("nan"), float("inf"), -float("inf")])
    assert_same(ours.nan_to_num(), theirs.nan_to_num())
    assert_same(
        nl.nan_to_num(ours, nan=2.0, posinf=9.0, neginf=-9.0),
        torch.nan_to_num(theirs, 2.0, 9.0, -9.0),
    )
    assert nl.equal(ours[:1], nl.tensor([1.0])) and not nl.allclose(
        nl.tensor([1.0]), nl.tensor([1.1])
    )
    assert ours.numel() == nl.numel(ours) == 4


def test_meshgrid_shapes_and_warning():
    a, b = nl.arange(3), nl.arange(2)
    ta, tb = torch.arange(3), torch.arange(2)
    for indexing in ("ij", "xy"):
        for ours, theirs in zip(
            nl.meshgrid(a, b, indexing=indexing), torch.meshgrid(ta, tb, indexing=indexing)
        ):
            assert_same(ours.contiguous(), theirs.contiguous())
    with pytest.warns(UserWarning, match="indexing"):
        nl.meshgrid(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nl.meshgrid([a, b], indexing="ij")


def test_scatter_in_place_and_on_leaves():
    index = [[0, 1, 2, 0], [2, 0, 0, 1]]
    ours, theirs = both(np.zeros((3, 4), np.float32))
    src = np.arange(8, dtype=np.float32).reshape(2, 4)
    ours.scatter_add_(0, nl.tensor(index), nl.tensor(src))
    theirs.scatter_add_(0, torch.tensor(index), torch.tensor(src))
    assert_same(ours, theirs)
    ours.scatter_(1, nl.tensor([[3], [0], [1]]), 5.0)
    theirs.scatter_(1, torch.tensor([[3], [0], [1]]), 5.0)
    assert_same(ours, theirs)
    leaf = nl.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.scatter_(0, nl.tensor([0]), 1.0)
    # recorded in place: the gradient flows to the scattered source and around the overwritten places
    base = nl.ones(2, 3, requires_grad=True) * 1
    values = nl.tensor([[7.0, 8.0, 9.0]], requires_grad=True)
    base.scatter_(0, nl.tensor([[1, 0, 1]]), values)
    base.sum().backward()
    np.testing.assert_array_equal(values.grad.numpy(), [[1.0, 1.0, 1.0]])


def test_scatter_add_source_larger_than_index_gradcheck():
    base = nl.tensor(np.random.default_rng(0).standard_normal((3, 4)), requires_grad=True)
    src = nl.tensor(np.random.default_rng(1).standard_normal((3, 6)), requires_grad=True)
    index = nl.tensor([[0, 1], [2, 2], [3, 0]])
    assert gradcheck(lambda a, b: a.scatter_add(1, index, b), (base, src))


def test_multinomial():
    nl.manual_seed(0)
    weights = nl.tensor([[0.0, 1.0, 3.0, 0.0], [5.0, 0.0, 0.0, 1.0]])
    draws = weights.multinomial(2000, replacement=True)
    assert draws.shape == (2, 2000) and draws.dtype == nl.int64
    assert set(np.unique(draws[0].numpy())) == {1, 2} and set(np.unique(draws[1].numpy())) == {0, 3}
    share = (draws[0] == 2).float().mean().item()
    assert 0.70 < share < 0.80  # 3/4 of the mass, 2000 draws: about 0.01 standard deviation
    distinct = nl.tensor([1.0, 2.0, 3.0, 4.0]).multinomial(4)
    assert sorted(distinct.tolist()) == [0, 1, 2, 3]
    # more samples than weighted categories: the zero-weight ones come last, as in PyTorch
    assert nl.tensor([0.0, 1.0, 0.0]).multinomial(2)[0].item() == 1


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.tensor([1.0, 2.0]).multinomial(3),
        lambda lib: lib.tensor([1.0, -2.0]).multinomial(1),
        lambda lib: lib.tensor([0.0, 0.0]).multinomial(1),
        lambda lib: lib.tensor([1.0, 5.0, 3.0]).topk(5),
        lambda lib: lib.tensor([1.0, 5.0]).norm("foo"),
        lambda lib: lib.tensor([1.0, 5.0]).masked_select(lib.tensor([1, 0])),
        lambda lib: lib.tensor([[1.0, 5.0]]).index_select(0, lib.tensor([[0]])),
        lambda lib: lib.tensor([1.0, 5.0]).tril(),
        lambda lib: lib.zeros(3).scatter(0, lib.tensor([5]), lib.ones(1)),
        lambda lib: lib.zeros(3, 3).bmm(lib.zeros(3, 3)),
        lambda lib: lib.zeros(2, 3, 4).bmm(lib.zeros(2, 5, 3)),
        lambda lib: lib.tensor([[1.0, 2.0]]).repeat_interleave(lib.tensor([-1]), 0),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([0.0, 1.0])),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([-1])),
        lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 2),
        lambda lib: lib.einsum("ij,jk->ik", lib.ones(2, 3)),
    ],
)
def test_errors_as_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(nl)
    assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0].replace(
        "torch", "nnlite"
    )


def test_einsum_refuses_what_it_cannot_do():
    with pytest.raises(RuntimeError, match="ellipsis"):
        nl.einsum("...ij->...ji", nl.ones(2, 3))
    # a repeated index needs equal sizes (its gradient is checked in test_ops_surface.py)
    with pytest.raises(RuntimeError, match="sizes don't match"):
        nl.einsum("ii->i", nl.ones(2, 3))
