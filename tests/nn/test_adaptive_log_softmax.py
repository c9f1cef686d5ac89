"""nn.AdaptiveLogSoftmaxWithLoss: PyTorch's layers, outputs, loss, gradients, log_prob and
predict given the same weights; finite-difference gradients; PyTorch's errors."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


def _pair(torch, **kwargs):
    m = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], dtype=nl.float64, **kwargs)
    t = torch.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], dtype=torch.float64, **kwargs)
    assert repr(m) == repr(t) and list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in m.state_dict().items()})
    return m, t


@pytest.mark.parametrize("kwargs", [{}, {"div_value": 2.0, "head_bias": True}])
def test_forward_and_gradients_as_pytorch(kwargs):
    torch = _torch()
    m, t = _pair(torch, **kwargs)
    x = np.random.default_rng(0).standard_normal((6, 8))
    y = np.array([0, 4, 7, 9, 2, 5])
    ours, theirs = m(nl.tensor(x), nl.tensor(y)), t(torch.tensor(x), torch.tensor(y))
    assert ours._fields == theirs._fields == ("output", "loss")
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    ours.loss.backward()
    theirs.loss.backward()
    for (name, p), q in zip(m.named_parameters(), t.parameters()):
        np.testing.assert_allclose(
            p.grad.numpy(), q.grad.numpy(), rtol=1e-9, atol=1e-12, err_msg=name
        )
    probe = np.random.default_rng(1).standard_normal((5, 8)) * 3
    np.testing.assert_allclose(
        m.log_prob(nl.tensor(probe)).detach().numpy(),
        t.log_prob(torch.tensor(probe)).detach().numpy(),
        rtol=1e-10,
    )
    assert m.predict(nl.tensor(probe)).tolist() == t.predict(torch.tensor(probe)).tolist()
    single = m(nl.tensor(x[0]), nl.tensor(7))
    expected = t(torch.tensor(x[0]), torch.tensor(7))
    assert single.output.shape == tuple(expected.output.shape) == ()
    np.testing.assert_allclose(single.output.item(), expected.output.item(), rtol=1e-10)


def test_gradients_by_finite_differences():
    m = nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2, 4], div_value=2.0, dtype=nl.float64)
    y = nl.tensor([0, 3, 5])
    x = nl.randn(3, 4, dtype=nl.float64, requires_grad=True)
    assert nl.autograd.gradcheck(lambda t: m(t, y).output, (x,))
    assert nl.autograd.gradgradcheck(lambda t: m(t, y).output, (x,))


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [6, 3]),
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 10]),
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(t.ones(2, 8), t.tensor([1, 10])),
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(t.ones(3, 8), t.tensor([1, 2])),
        lambda nn, t: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(t.ones(2, 8), t.ones(2, 2).long()),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(nn, nl))
    assert ours is not None and ours == _error(lambda: call(torch.nn, torch))
