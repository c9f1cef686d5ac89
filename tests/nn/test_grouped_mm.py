"""F.grouped_mm: PyTorch's products per group (float32 on the CPU, where PyTorch computes them)
and its errors; gradients are checked by the rows of nn_more_cases.py."""

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F


def _torch():
    return pytest.importorskip("torch", reason="torch is the oracle for these parity checks")


@pytest.mark.parametrize(
    "a, b, ends",
    [
        ((8, 16), (2, 16, 8), [3, 8]),
        ((10, 16), (2, 16, 8), [3, 8]),
        ((8, 16), (16, 8), [8, 16]),
        ((2, 8, 16), (16, 8), [3, 8]),
        ((2, 8, 16), (2, 16, 8), None),
    ],
)
def test_values_as_pytorch(a, b, ends):
    torch = _torch()
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal(a).astype(np.float32), rng.standard_normal(b).astype(np.float32)
    mine = F.grouped_mm(
        nl.tensor(x), nl.tensor(y), offs=None if ends is None else nl.tensor(ends, dtype=nl.int32)
    )
    theirs = torch.nn.functional.grouped_mm(
        torch.tensor(x),
        torch.tensor(y),
        offs=None if ends is None else torch.tensor(ends, dtype=torch.int32),
    )
    assert mine.shape == tuple(theirs.shape) and mine.dtype == nl.float32
    cut = theirs.shape[0] if ends is None or len(a) == 3 or len(b) == 2 else ends[-1]
    # rows past the last group hold no product in PyTorch (left as they were allocated)
    np.testing.assert_allclose(mine.numpy()[:cut], theirs.numpy()[:cut], rtol=1e-5, atol=1e-5)


def _error(call):
    try:
        call()
    except Exception as e:  # noqa: BLE001 - the comparison is the point
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize(
    "call",
    [
        lambda F, t: F.grouped_mm(t.ones(8, 16), t.ones(2, 16, 8)),
        lambda F, t: F.grouped_mm(t.ones(2, 8, 16), t.ones(2, 16, 8), offs=t.tensor([1, 2])),
        lambda F, t: F.grouped_mm(
            t.ones(8, 16), t.ones(2, 16, 8), offs=t.tensor([3, 8], dtype=t.int64)
        ),
        lambda F, t: F.grouped_mm(
            t.ones(8, 16), t.ones(2, 16, 8), offs=t.tensor([3, 8], dtype=t.int32), bias=t.ones(8)
        ),
        lambda F, t: F.grouped_mm(
            t.ones(8, 16, dtype=t.int64), t.ones(2, 16, 8), offs=t.tensor([3, 8], dtype=t.int32)
        ),
    ],
)
def test_errors_as_pytorch(call):
    torch = _torch()
    ours = _error(lambda: call(F, nl))
    assert ours is not None and ours == _error(lambda: call(torch.nn.functional, torch))
