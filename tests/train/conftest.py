"""Fixtures of the trainer tests (helpers in train_helpers.py)."""

import pytest
from train_helpers import write_cifar10, write_idx_dataset


@pytest.fixture
def cifar_root(tmp_path):
    return write_cifar10(tmp_path / "data")


@pytest.fixture
def fashion_root(tmp_path):
    return write_idx_dataset(tmp_path / "fm")
