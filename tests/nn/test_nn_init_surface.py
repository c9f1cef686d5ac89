"""``nn.init``'s remaining names: ``dirac_``, ``sparse_`` and the deprecated names without the
trailing underscore, compared with PyTorch."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


@pytest.mark.parametrize("shape,groups", [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((6, 3, 1, 3, 3), 3)])
def test_dirac_matches_torch_and_convolutions_pass_channels_through(shape, groups):
    torch = pytest.importorskip("torch")
    ours = nn.init.dirac_(nl.empty(*shape), groups)
    theirs = torch.nn.init.dirac_(torch.empty(*shape), groups)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    if len(shape) == 4:
        x = nl.randn(1, shape[1] * groups, 5, 5)
        y = nl.nn.functional.conv2d(x, ours, padding=1, groups=groups)
        np.testing.assert_allclose(y[:, 0].numpy(), x[:, 0].numpy(), rtol=1e-6)


def test_dirac_and_sparse_errors_match_torch():
    torch = pytest.importorskip("torch")
    for call in (
        lambda i, t: i.dirac_(t.empty(2, 2)),
        lambda i, t: i.dirac_(t.empty(3, 2, 2), groups=2),
        lambda i, t: i.sparse_(t.empty(2, 2, 2), 0.1),
    ):
        with pytest.raises(ValueError) as ours:
            call(nn.init, nl)
        with pytest.raises(ValueError) as theirs:
            call(torch.nn.init, torch)
        assert str(ours.value) == str(theirs.value)


def test_sparse_zeros_a_fraction_of_each_column():
    w = nn.init.sparse_(nl.empty(20, 4), sparsity=0.25, std=0.5)
    assert ((w == 0).sum(dim=0) == 5).all()
    assert 0.2 < float(w.numpy()[w.numpy() != 0].std()) < 0.8


@pytest.mark.parametrize(
    "old",
    [
        "uniform",
        "normal",
        "constant",
        "eye",
        "dirac",
        "xavier_uniform",
        "xavier_normal",
        "kaiming_uniform",
        "kaiming_normal",
        "orthogonal",
        "sparse",
    ],
)
def test_deprecated_names_warn_as_torch(old):
    args = {"constant": (0.5,), "sparse": (0.1,)}.get(old, ())
    shape = (4, 2, 3) if old == "dirac" else (4, 3)
    with pytest.warns(
        FutureWarning, match=f"`nn.init.{old}` is now deprecated in favor of `nn.init.{old}_`."
    ):
        out = getattr(nn.init, old)(nl.empty(*shape), *args)
    assert out.shape == shape
