"""Helpers for tests that hold nnlite to PyTorch's behaviour (PyTorch itself is the oracle)."""

import pytest

import nnlite as nl


def same_error(action):
    """Run ``action(lib)`` with PyTorch, then with nnlite: the same exception type and message,
    with PyTorch's names read as nnlite's. Skips when PyTorch is not installed."""
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as expected:
        action(torch)
    with pytest.raises(expected.type) as got:
        action(nl)
    want = str(expected.value).replace("torch.nn.", "nnlite.nn.").replace("torch.", "nnlite.")
    assert str(got.value) == want
