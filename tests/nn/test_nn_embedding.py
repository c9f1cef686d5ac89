"""``nn.Embedding`` and ``F.embedding`` against PyTorch: padding rows, max_norm, from_pretrained."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn

torch = pytest.importorskip("torch")


def twins(**kwargs):
    ours = nn.Embedding(6, 3, **kwargs)
    theirs = torch.nn.Embedding(6, 3, **kwargs)
    theirs.load_state_dict({"weight": torch.from_numpy(ours.weight.detach().numpy().copy())})
    return ours, theirs


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"padding_idx": 1},
        {"padding_idx": -1},
        {"max_norm": 1.0},
        {"max_norm": 0.5, "norm_type": 1.0},
    ],
)
def test_lookup_gradient_and_renormalisation(kwargs):
    ours, theirs = twins(**kwargs)
    assert repr(ours) == repr(theirs)
    index = np.array([[0, 1, 5], [1, 1, 2]])
    out, ref = ours(nl.tensor(index)), theirs(torch.tensor(index))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-6)
    grad = np.random.default_rng(0).standard_normal(out.shape).astype(np.float32)
    out.backward(nl.tensor(grad))
    ref.backward(torch.tensor(grad))
    np.testing.assert_allclose(
        ours.weight.grad.numpy(), theirs.weight.grad.numpy(), rtol=1e-6, atol=1e-7
    )
    np.testing.assert_allclose(
        ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-6
    )


def test_padding_row_starts_at_zero():
    assert np.all(nn.Embedding(4, 2, padding_idx=2).weight[2].detach().numpy() == 0)


def test_from_pretrained_shares_memory_and_freezes():
    table = nl.tensor([[1.0, 2.0], [3.0, 4.0]])
    emb = nn.Embedding.from_pretrained(table)
    assert not emb.weight.requires_grad
    table[0, 0] = 9.0
    assert emb(nl.tensor([0]))[0, 0].item() == 9.0
    assert nn.Embedding.from_pretrained(table, freeze=False).weight.requires_grad
    assert repr(emb) == "Embedding(2, 2)"


@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.nn.Embedding(3, 2)(lib.tensor([3])),
        lambda lib: lib.nn.Embedding(3, 2)(lib.tensor([0.5])),
        lambda lib: lib.nn.Embedding(3, 2, padding_idx=5),
    ],
)
def test_errors_as_pytorch(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)):
        call(nl)
