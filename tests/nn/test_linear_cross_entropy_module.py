"""nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions: PyTorch's state-dict names,
repr, values and gradients (the same weights), and its checks."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "kwargs, target_shape",
    [
        ({}, (5,)),
        ({"bias": True, "label_smoothing": 0.1, "reduction": "sum"}, (5,)),
        ({"out_features": (2,), "bias": True, "ignore_index": 1}, (5, 2)),
        ({"reduction": "none", "options": "default"}, (5,)),
    ],
)
def test_as_pytorch(kwargs, target_shape):
    torch = _torch()
    ours_kw, theirs_kw = dict(kwargs), dict(kwargs)
    if kwargs.get("options"):
        ours_kw["options"] = nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
        theirs_kw["options"] = torch.nn.LinearCrossEntropyOptions(
            batch_chunk_size=2, chunking_method=None
        )
    m = nn.LinearCrossEntropyLoss(4, 3, dtype=nl.float64, **ours_kw)
    t = torch.nn.LinearCrossEntropyLoss(4, 3, dtype=torch.float64, **theirs_kw)
    assert repr(m) == repr(t)
    assert list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in m.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 4))
    y = rng.integers(0, 3, target_shape)
    ours, theirs = m(nl.tensor(x), nl.tensor(y)), t(torch.tensor(x), torch.tensor(y))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(
        m.linear.weight.grad.numpy(), t.linear.weight.grad.numpy(), rtol=1e-9, atol=1e-12
    )


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda nn, t: nn.LinearCrossEntropyOptions(acc_policy="fast"),
        lambda nn, t: nn.LinearCrossEntropyOptions(chunking_method="aspect_ratio:0"),
        lambda nn, t: nn.LinearCrossEntropyOptions(batch_chunk_size=0),
        lambda nn, t: nn.LinearCrossEntropyLoss(4, 3, weight=t.ones(2)),
        lambda nn, t: nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(nn, nl))
    assert ours is not None and ours == _error(lambda: call(torch.nn, torch))
