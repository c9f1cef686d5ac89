"""CTC loss (F.ctc_loss, nn.CTCLoss, nl.ctc_loss): PyTorch's values and gradients for its target
layouts, reductions and options, its errors, and its missing second derivative."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


def _both(torch, x, call):
    """``call(lib, F, log_probs)`` in both frameworks with gradients: (values, gradients)."""
    out = []
    for lib, lib_f in ((nl, F), (torch, torch.nn.functional)):
        logits = lib.tensor(x, requires_grad=True)
        loss = call(lib, lib_f, lib_f.log_softmax(logits, -1))
        loss.sum().backward()
        out.append((loss.detach().numpy(), logits.grad.numpy()))
    return out


@pytest.mark.parametrize("dtype, tol", [("float64", 1e-10), ("float32", 1e-5)])
@pytest.mark.parametrize(
    "call",
    [
        lambda lib, f, lp: f.ctc_loss(lp, lib.tensor([[1, 2, 1], [2, 0, 0]]), (8, 6), (3, 1)),
        lambda lib, f, lp: f.ctc_loss(
            lp, lib.tensor([1, 2, 1, 2]), lib.tensor([8, 7]), lib.tensor([3, 1]), blank=0
        ),
        lambda lib, f, lp: f.ctc_loss(
            lp, lib.tensor([[1, 1, 1, 1, 1], [2, 2, 2, 2, 2]]), (3, 8), (5, 2), reduction="none"
        ),
        lambda lib, f, lp: lib.ctc_loss(lp, lib.tensor([[1, 0], [1, 2]]), [8, 8], [1, 2], 0, 2),
        lambda lib, f, lp: lib.ctc_loss(lp, lib.tensor([[1, 0], [0, 1]]), [8, 8], [1, 2], 2),
        lambda lib, f, lp: (
            nn.CTCLoss(blank=1, zero_infinity=True)(
                lp, lib.tensor([[2, 0, 2, 2]] * 2), (8, 2), (4, 3)
            )
            if lib is nl
            else lib.nn.CTCLoss(blank=1, zero_infinity=True)(
                lp, lib.tensor([[2, 0, 2, 2]] * 2), (8, 2), (4, 3)
            )
        ),
    ],
)
def test_values_and_gradients_as_pytorch(call, dtype, tol):
    torch = _torch()
    x = np.random.default_rng(0).standard_normal((8, 2, 3)).astype(dtype)
    (ours, our_grad), (theirs, their_grad) = _both(torch, x, call)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)
    np.testing.assert_allclose(our_grad, their_grad, rtol=tol, atol=tol)


def test_unbatched_and_infinite_as_pytorch():
    torch = _torch()
    x = np.random.default_rng(1).standard_normal((5, 4))

    def call(lib, f, lp):
        return f.ctc_loss(lp, lib.tensor([1, 3]), lib.tensor(5), lib.tensor(2), reduction="none")

    (ours, our_grad), (theirs, their_grad) = _both(torch, x, call)
    np.testing.assert_allclose(ours, theirs, rtol=1e-10)
    np.testing.assert_allclose(our_grad, their_grad, rtol=1e-10, atol=1e-12)
    lp = F.log_softmax(nl.tensor(x[:, None, :]), -1)
    # a target longer than the input has no alignment: an infinite loss, as PyTorch's
    assert np.isinf(F.ctc_loss(lp, nl.tensor([[1, 2, 1]]), [2], [3], reduction="sum").item())


def test_no_second_derivative_as_pytorch():
    torch = _torch()
    messages = []
    for lib, lib_f in ((nl, F), (torch, torch.nn.functional)):
        lp = lib_f.log_softmax(lib.randn(4, 1, 3, dtype=lib.float64, requires_grad=True), -1)
        loss = lib_f.ctc_loss(lp, lib.tensor([[1, 2]]), [4], [2])
        (grad,) = lib.autograd.grad(loss, lp, create_graph=True)
        with pytest.raises(RuntimeError) as caught:
            grad.sum().backward()
        messages.append(str(caught.value))
    assert (
        messages[0] == messages[1] == "derivative for aten::_ctc_loss_backward is not implemented"
    )


def test_module_repr_and_grad_fn():
    torch = _torch()
    assert repr(nn.CTCLoss(blank=2)) == repr(torch.nn.CTCLoss(blank=2)) == "CTCLoss()"
    lp = F.log_softmax(nl.randn(3, 1, 2, requires_grad=True), 2)
    assert nl.ctc_loss(lp, nl.tensor([[1]]), [3], [1]).grad_fn.name() == "CtcLossBackward0"


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.ctc_loss(t.zeros(5, 2, 4), t.tensor([[1, 2], [3, 3]]), [6, 4], [2, 2]),
        lambda F, t: F.ctc_loss(t.zeros(5, 2, 4), t.tensor([[1, 2], [3, 3]]), [5, 4], [3, 2]),
        lambda F, t: F.ctc_loss(t.zeros(5, 2, 4), t.tensor([1, 2, 3]), [5, 4], [2, 2]),
        lambda F, t: F.ctc_loss(t.zeros(5, 2, 4), t.tensor([[1, 2], [3, 3]]), [5], [2, 2]),
        lambda F, t: F.ctc_loss(t.zeros(5, 2, 4), t.tensor([[1, 2]]), [5, 5], [2, 2]),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(F, nl))
    assert ours is not None and ours == _error(lambda: call(torch.nn.functional, torch))
