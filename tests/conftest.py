"""Shared test settings: nnlite's generator and numpy's are seeded before every test."""

import numpy as np
import pytest

import nnlite as nl


@pytest.fixture(autouse=True)
def _seed():
    nl.manual_seed(0)
    np.random.seed(0)  # noqa: NPY002  (random transforms draw from numpy's global generator)
    yield
