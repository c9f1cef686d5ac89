"""Helpers shared by the serialization tests."""

import tracemalloc

import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError


@pytest.fixture
def refused_load():
    """``refused_load(path, match)``: check that ``nl.load(path)`` raises CheckpointError
    matching ``match``; returns the peak memory traced while it ran."""

    def load(path, match):
        tracemalloc.start()
        try:
            with pytest.raises(CheckpointError, match=match):
                nl.load(path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    return load
