"""nn.MultiheadAttention through F.multi_head_attention_forward: the options that go beyond the
op table (bias_kv, zero attention, kdim/vdim, batch_first) and PyTorch's errors."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(add_bias_kv=True, add_zero_attn=True),
        dict(add_zero_attn=True, batch_first=True),
        dict(kdim=3, vdim=5, add_bias_kv=True),
    ],
)
def test_module_options_as_pytorch(kwargs):
    torch = _torch()
    m = nn.MultiheadAttention(8, 2, **kwargs)
    t = torch.nn.MultiheadAttention(8, 2, **kwargs)
    assert list(m.state_dict()) == list(t.state_dict())
    t.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in m.state_dict().items()})
    rng = np.random.default_rng(0)
    first = kwargs.get("batch_first", False)
    shape = (lambda n, e: (2, n, e)) if first else (lambda n, e: (n, 2, e))
    q = rng.standard_normal(shape(3, 8)).astype(np.float32)
    k = rng.standard_normal(shape(4, kwargs.get("kdim", 8))).astype(np.float32)
    v = rng.standard_normal(shape(4, kwargs.get("vdim", 8))).astype(np.float32)
    padding = np.array([[False, True, False, False], [False, False, False, True]])
    ours = m(*map(nl.from_numpy, (q, k, v)), key_padding_mask=nl.from_numpy(padding))
    theirs = t(*map(torch.from_numpy, (q, k, v)), key_padding_mask=torch.from_numpy(padding))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-5, atol=1e-6)


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.multi_head_attention_forward(
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            4,
            2,
            t.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            t.ones(4, 4),
            None,
            is_causal=True,
        ),
        lambda F, t: F.multi_head_attention_forward(
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            6,
            2,
            t.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            t.ones(4, 4),
            None,
        ),
        lambda F, t: F.multi_head_attention_forward(
            t.ones(3, 2, 4),
            t.ones(3, 4),
            t.ones(3, 2, 4),
            4,
            2,
            t.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            t.ones(4, 4),
            None,
        ),
        lambda F, t: F.multi_head_attention_forward(
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            4,
            2,
            t.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            t.ones(4, 4),
            None,
            attn_mask=t.ones(2, 3),
        ),
        lambda F, t: F.multi_head_attention_forward(
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            t.ones(3, 2, 4),
            4,
            2,
            t.ones(12, 4),
            None,
            None,
            None,
            False,
            0.0,
            t.ones(4, 4),
            None,
            attn_mask=t.ones(3, 3, dtype=t.int64),
        ),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(F, nl))
    assert ours is not None
    assert (ours[0], ours[1].replace("nnlite", "torch")) == _error(
        lambda: call(torch.nn.functional, torch)
    )
