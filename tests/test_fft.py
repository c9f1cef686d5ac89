"""``nnlite.fft``'s real-valued helpers against ``torch.fft``."""

import numpy as np
import pytest

import nnlite as nl

CASES = [
    ("fftfreq", lambda F, L: F.fftfreq(5, 0.5)),
    ("fftfreq_even", lambda F, L: F.fftfreq(6, d=2.0, dtype=L.float64)),
    ("rfftfreq", lambda F, L: F.rfftfreq(7)),
    ("fftshift", lambda F, L: F.fftshift(L.arange(10).reshape(2, 5))),
    ("fftshift_dim", lambda F, L: F.fftshift(L.arange(10).reshape(2, 5), dim=1)),
    ("ifftshift", lambda F, L: F.ifftshift(L.arange(10).reshape(5, 2), dim=(0,))),
]


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_matches_pytorch(name, fn):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    ours, theirs = fn(nl.fft, nl), fn(torch.fft, torch)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-7)
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]


def test_shifts_are_differentiable():
    x = nl.randn(2, 3, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: nl.fft.fftshift(t) * t, (x,))
