"""A 0-d tensor keeps its shape through a safetensors file."""

import pytest

import nnlite as nl


def test_zero_dim_tensor_round_trips_through_safetensors(tmp_path):
    pytest.importorskip(
        "safetensors", reason="the .safetensors format needs the safetensors package"
    )
    path = tmp_path / "scalars.safetensors"
    nl.save_file({"step": nl.tensor(3.0), "pair": nl.ones(2), "t": nl.ones(2, 3).t()}, path)
    loaded = nl.load_file(path)
    assert loaded["step"].shape == () and loaded["step"].item() == 3.0
    assert loaded["pair"].shape == (2,)
    assert loaded["t"].shape == (3, 2)
