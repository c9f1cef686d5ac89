"""safetensors files through nl.save_file / nl.load_file and nl.save / nl.load, with the
safetensors package's own readers and writers as the oracle."""

import os
import sys

import numpy as np
import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError

safetensors = pytest.importorskip("safetensors")
from safetensors.numpy import load_file as st_load_file  # noqa: E402  (after the importorskip)
from safetensors.numpy import save_file as st_save_file  # noqa: E402  (after the importorskip)


def state():
    model = nl.nn.Sequential(nl.nn.Linear(3, 4), nl.nn.BatchNorm1d(4), nl.nn.Linear(4, 2))
    sd = model.state_dict()
    sd["extra.int8"] = nl.from_numpy(np.arange(-3, 3, dtype=np.int8))
    sd["extra.bool"] = nl.tensor([True, False])
    sd["extra.half"] = nl.from_numpy(np.linspace(0, 1, 5).astype(np.float16))
    sd["extra.array"] = np.arange(6, dtype=np.float64).reshape(2, 3)
    return sd


@pytest.mark.parametrize("how", ["save_file", "save"])
def test_safetensors_reads_what_nnlite_writes(tmp_path, how):
    sd = state()
    path = tmp_path / "model.safetensors"
    if how == "save_file":
        nl.save_file(sd, path, metadata={"format": "pt", "epoch": "3"})
    else:
        nl.save(sd, path)
    theirs = st_load_file(str(path))
    assert sorted(theirs) == sorted(sd)
    for key, value in sd.items():
        np.testing.assert_array_equal(theirs[key], np.asarray(value), err_msg=key)
        assert theirs[key].dtype == np.asarray(value).dtype, key
    with safetensors.safe_open(str(path), framework="numpy") as f:
        assert f.metadata() == ({"format": "pt", "epoch": "3"} if how == "save_file" else None)


@pytest.mark.parametrize("how", ["load_file", "load"])
def test_nnlite_reads_what_safetensors_writes(tmp_path, how):
    rng = np.random.default_rng(0)
    arrays = {
        "conv1.weight": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
        "bn1.num_batches_tracked": np.array(5, np.int64),
        "fc.bias": rng.standard_normal(10).astype(np.float64),
        "mask": rng.random(7) > 0.5,
        "u16": np.arange(4, dtype=np.uint16),
    }
    path = tmp_path / "hub.safetensors"
    st_save_file(arrays, str(path), metadata={"source": "test"})
    out = nl.load_file(path) if how == "load_file" else nl.load(path)
    assert sorted(out) == sorted(arrays)
    for key, arr in arrays.items():
        assert isinstance(out[key], nl.Tensor)
        np.testing.assert_array_equal(out[key].numpy(), arr, err_msg=key)
        assert out[key].numpy().dtype == arr.dtype and out[key].numpy().flags.writeable


def test_bfloat16_reads_as_float32(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import save_file

    t = torch.randn(3, 5).to(torch.bfloat16)
    save_file({"w": t}, str(tmp_path / "bf16.safetensors"))
    out = nl.load_file(tmp_path / "bf16.safetensors")["w"]
    assert out.dtype == nl.float32
    np.testing.assert_array_equal(out.numpy(), t.float().numpy())


def test_pytorch_reads_nnlite_weights_with_safetensors_torch(tmp_path):
    torch = pytest.importorskip("torch")
    from safetensors.torch import load_file

    sd = {"w": nl.randn(2, 3), "i": nl.arange(4)}
    nl.save_file(sd, tmp_path / "w.safetensors")
    out = load_file(str(tmp_path / "w.safetensors"))
    np.testing.assert_array_equal(out["w"].numpy(), sd["w"].numpy())
    assert out["i"].dtype == torch.int64


@pytest.mark.parametrize(
    "obj, message",
    [
        ({"w": nl.ones(2), "epoch": 3}, r"tensors only; obj\['epoch'\] is int"),
        ({"model": {"w": nl.ones(2)}}, r"obj\['model'\] is dict"),
        ({1: nl.ones(2)}, "by str name"),
        ([nl.ones(2)], "flat dict of tensors, got list"),
        ({"c": np.ones(2, np.complex64)}, "dtype complex64"),
    ],
)
def test_what_safetensors_cannot_hold_is_refused(tmp_path, obj, message):
    with pytest.raises(TypeError, match=message):
        nl.save(obj, tmp_path / "x.safetensors")
    assert os.listdir(tmp_path) == []


def test_metadata_must_be_text(tmp_path):
    with pytest.raises(TypeError, match="metadata must be a dict of str to str"):
        nl.save_file({"w": nl.ones(2)}, tmp_path / "x.safetensors", metadata={"epoch": 3})


def test_damaged_files(tmp_path):
    path = tmp_path / "w.safetensors"
    nl.save_file({"w": nl.randn(100), "b": nl.ones(3)}, path)
    data = path.read_bytes()
    for n in range(1, len(data), 23):
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="w.safetensors"):
            nl.load(path)
        with pytest.raises(CheckpointError, match="w.safetensors"):
            nl.load_file(path)


def test_header_declaring_a_huge_tensor(tmp_path):
    path = tmp_path / "huge.safetensors"
    header = b'{"w":{"dtype":"F32","shape":[17179869184],"data_offsets":[0,68719476736]}}'
    path.write_bytes(len(header).to_bytes(8, "little") + header + b"\0" * 16)
    with pytest.raises(CheckpointError, match="huge.safetensors"):
        nl.load(path)


def test_missing_package_names_the_extra(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    monkeypatch.setitem(sys.modules, "safetensors.numpy", None)
    with pytest.raises(ImportError, match=r"nnlite\[safetensors\]"):
        nl.save_file({"w": nl.ones(2)}, tmp_path / "x.safetensors")
