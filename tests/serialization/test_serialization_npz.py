"""nl.save / nl.load: exact round trips of nested structures, the file format, atomic writes,
clear errors for damaged files, and no pickle anywhere on the load path."""

import collections
import io
import json
import math
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import nnlite as nl
from nnlite.serialization import CheckpointError

ALL_DTYPES = [
    np.float16,
    np.float32,
    np.float64,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.uint8,
    np.uint16,
    np.uint32,
    np.uint64,
    np.bool_,
]


# ------------------------------------------------------------------ exact comparison


def assert_identical(a, b, path="obj"):
    """Same types (exactly), same key order, same bits."""
    assert type(a) is type(b), f"{path}: {type(a)} != {type(b)}"
    if isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), path
        for (ka, va), kb in zip(a.items(), b.keys()):
            assert type(ka) is type(kb), f"{path} key {ka!r}"
            assert_identical(va, b[kb], f"{path}[{ka!r}]")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f"{path}[{i}]")
    elif isinstance(a, nl.Tensor):
        assert a.requires_grad == b.requires_grad, path
        assert_identical(a._data, b._data, path + "._data")
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.dtype.str == b.dtype.str, path
        assert a.shape == b.shape, path
        assert np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes(), path
    elif isinstance(a, np.generic):
        assert a.dtype == b.dtype, path
        assert a.tobytes() == b.tobytes(), path
    elif isinstance(a, float):
        assert struct.pack("<d", a) == struct.pack("<d", b), f"{path}: {a!r} != {b!r}"
    elif isinstance(a, complex):
        assert_identical(a.real, b.real, path)
        assert_identical(a.imag, b.imag, path)
    else:
        assert a == b, path


def round_trip(obj, tmp_path, name="obj.npz"):
    path = tmp_path / name
    nl.save(obj, path)
    return nl.load(path)


# ------------------------------------------------------------------ hypothesis strategies


def raw_bits_array(dtype):
    """Arrays with arbitrary bit patterns (NaN payloads, -0.0, inf, subnormals)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        uint = np.dtype(f"u{dtype.itemsize}")
        return hnp.arrays(uint, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4)).map(
            lambda a: a.view(dtype)
        )
    return hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))


arrays = st.sampled_from(ALL_DTYPES).flatmap(raw_bits_array)
tensors = st.tuples(arrays, st.booleans()).map(
    lambda ab: nl.tensor(ab[0], requires_grad=ab[1] and ab[0].dtype.kind == "f")
)
py_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(0, 2**64 - 1).map(lambda u: struct.unpack("<d", struct.pack("<Q", u))[0]),
    st.sampled_from([0.0, -0.0, 1e308, 5e-324, 1.0, 2.0**53 + 2]),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**200), 2**200),
    py_floats,
    st.text(),
    st.binary(max_size=20),
    st.complex_numbers(allow_nan=True),
    arrays.filter(lambda a: a.ndim == 0).map(lambda a: a[()]),
)
keys = st.one_of(
    st.text(max_size=10),
    st.integers(-(10**20), 10**20),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=False),
)


def containers(children):
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.lists(st.tuples(keys, children), max_size=5).map(dict),
        st.lists(st.tuples(st.text(max_size=5), children), max_size=4).map(collections.OrderedDict),
    )


structures = st.recursive(st.one_of(scalars, arrays, tensors), containers, max_leaves=25)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(obj=structures)
def test_hypothesis_round_trip_is_exact(obj, tmp_path):
    assert_identical(obj, round_trip(obj, tmp_path))


@settings(max_examples=40, deadline=None)
@given(obj=structures)
def test_hypothesis_round_trip_through_a_file_object(obj):
    buf = io.BytesIO()
    nl.save(obj, buf)
    buf.seek(0)
    assert_identical(obj, nl.load(buf))


# ------------------------------------------------------------------ explicit round trips


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: np.dtype(d).name)
def test_every_dtype_round_trips_as_array_and_tensor(dtype, tmp_path):
    rng = np.random.default_rng(0)
    if np.dtype(dtype).kind == "f":
        a = rng.standard_normal((3, 4)).astype(dtype)
        a[0, 0], a[0, 1], a[0, 2] = np.nan, -np.inf, -0.0
    elif dtype == np.bool_:
        a = rng.random((3, 4)) > 0.5
    else:
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
        a[0, 0], a[0, 1] = info.min, info.max
    t = nl.tensor(a)
    out = round_trip({"array": a, "tensor": t, "scalar": a[1, 1]}, tmp_path)
    assert_identical({"array": a, "tensor": t, "scalar": a[1, 1]}, out)
    assert isinstance(out["tensor"], nl.Tensor) and out["tensor"].dtype == t.dtype
    assert isinstance(out["array"], np.ndarray) and not isinstance(out["array"], nl.Tensor)


def test_nan_payloads_and_signed_zero(tmp_path):
    bits = np.array([0x7FC00001, 0xFFC12345, 0x7F800001, 0x80000000, 0x00000001], np.uint32)
    a = bits.view(np.float32)
    bits64 = np.array([0x7FF0000000000001, 0xFFF8DEADBEEF0000], np.uint64)
    payload_nan = struct.unpack("<d", struct.pack("<Q", 0x7FF8000000C0FFEE))[0]
    obj = {
        "f32": a,
        "t": nl.from_numpy(a.copy()),
        "f64": bits64.view(np.float64),
        "py": [payload_nan, -0.0, math.inf, -math.inf],
    }
    out = round_trip(obj, tmp_path)
    assert_identical(obj, out)
    assert out["f32"].view(np.uint32).tolist() == bits.tolist()
    assert struct.pack("<d", out["py"][0]) == struct.pack("<d", payload_nan)


def test_python_scalars_keep_their_types(tmp_path):
    obj = {
        "int": 1,
        "float": 1.0,
        "bool": True,
        "none": None,
        "zero": 0,
        "fzero": 0.0,
        "big": 2**100,
        "negbig": -(2**64),
        "max64": 2**64 - 1,
        "str": "héllo\u2603\ud800",
        "bytes": b"\x00\xff",
        "complex": complex(1.5, -0.0),
        "np_int": np.int64(7),
        "np_float": np.float32(0.1),
        "np_bool": np.bool_(True),
    }
    out = round_trip(obj, tmp_path)
    assert_identical(obj, out)
    assert out["big"] == 2**100


def test_key_types_and_order(tmp_path):
    obj = {
        "b": 1,
        2: "two",
        "a": 3,
        1: {"z": 0, "y": 1},
        False: "f0",
        None: "n",
        2.5: "f",
        -7: [1, 2],
        "2": "string two",
    }
    out = round_trip(obj, tmp_path)
    assert_identical(obj, out)
    assert list(out.keys()) == ["b", 2, "a", 1, False, None, 2.5, -7, "2"]


def test_lists_tuples_and_ordered_dicts(tmp_path):
    obj = [(), [], {}, (1, [2, (3,)]), collections.OrderedDict([("b", 1), ("a", 2)])]
    out = round_trip(obj, tmp_path)
    assert_identical(obj, out)
    assert type(out[4]) is collections.OrderedDict


def test_dict_subclasses_are_saved_as_dicts(tmp_path):
    out = round_trip(
        {"c": collections.Counter({5: 2, 3: 1}), "d": collections.defaultdict(list, {"a": [1]})},
        tmp_path,
    )
    assert out == {"c": {5: 2, 3: 1}, "d": {"a": [1]}}
    assert type(out["c"]) is dict


def test_tensor_properties(tmp_path):
    w = nl.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True)
    y = w * 2  # a non-leaf: saved as its data
    labels = nl.tensor([1, 2, 3])
    out = round_trip(
        {"w": w, "y": y, "labels": labels, "half": w.half(), "double": w.double()}, tmp_path
    )
    assert out["w"].requires_grad and out["w"].is_leaf and out["w"].dtype == nl.float32
    assert out["y"].is_leaf and out["y"].grad_fn is None
    assert out["labels"].dtype == nl.int64
    assert out["half"].dtype == nl.float16 and out["double"].dtype == nl.float64
    np.testing.assert_array_equal(out["y"]._data, y._data)


def test_non_contiguous_and_big_endian_arrays(tmp_path):
    a = np.arange(24, dtype=np.float64).reshape(4, 6)[:, ::2].T
    f = np.asfortranarray(np.arange(6, dtype=np.int32).reshape(2, 3))
    be = np.arange(5, dtype=">i4")
    t = nl.from_numpy(np.arange(12, dtype=np.float32).reshape(3, 4)).t()
    out = round_trip([a, f, be, t], tmp_path)
    np.testing.assert_array_equal(out[0], a)
    np.testing.assert_array_equal(out[1], f)
    assert out[2].dtype.str == ">i4"
    np.testing.assert_array_equal(out[3]._data, t._data)


def test_empty_and_zero_dim(tmp_path):
    obj = [
        np.zeros((0, 3), np.float32),
        np.array(5, np.int16),
        nl.tensor(np.zeros((2, 0))),
        nl.tensor(3.5),
    ]
    assert_identical(obj, round_trip(obj, tmp_path))


def test_shared_objects_stay_shared(tmp_path):
    w = nl.tensor(np.ones(3, np.float32))
    a = np.zeros(2)
    out = round_trip({"enc": w, "dec": w, "arrays": [a, a]}, tmp_path)
    assert out["enc"] is out["dec"]
    assert out["arrays"][0] is out["arrays"][1]
    with zipfile.ZipFile(tmp_path / "obj.npz") as zf:
        assert sorted(zf.namelist()) == ["arrays/0.npy", "enc.npy", "header.json"]


def test_loaded_arrays_are_writable_and_independent(tmp_path):
    a = np.arange(4.0)
    out = round_trip({"a": a, "t": nl.tensor(a)}, tmp_path)
    out["a"][0] = 100
    out["t"]._data[1] = 100
    assert a[0] == 0 and a[1] == 1


def test_model_like_state_dict(tmp_path):
    rng = np.random.default_rng(0)
    sd = collections.OrderedDict(
        (name, nl.tensor(rng.standard_normal(shape).astype(np.float32)))
        for name, shape in [
            ("conv1.weight", (6, 3, 5, 5)),
            ("conv1.bias", (6,)),
            ("bn.running_mean", (6,)),
            ("fc.weight", (10, 84)),
        ]
    )
    sd["bn.num_batches_tracked"] = nl.tensor(12)
    ckpt = {
        "model": sd,
        "epoch": 3,
        "best_acc": 0.625,
        "config": {"lr": 1e-3, "milestones": [3, 6]},
    }
    assert_identical(ckpt, round_trip(ckpt, tmp_path))


def test_same_object_gives_same_bytes(tmp_path):
    obj = {"w": nl.tensor(np.ones((2, 2), np.float32)), "n": 1}
    nl.save(obj, tmp_path / "a.npz")
    nl.save(obj, tmp_path / "b.npz")
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


def test_pathlike_and_str_paths(tmp_path):
    nl.save([1, 2], str(tmp_path / "s.npz"))
    assert nl.load(str(tmp_path / "s.npz")) == [1, 2]
    nl.save([3], tmp_path / "p.npz")
    assert nl.load(tmp_path / "p.npz") == [3]


def test_file_objects(tmp_path):
    with open(tmp_path / "f.npz", "wb") as fh:
        nl.save({"a": np.arange(3)}, fh)
    with open(tmp_path / "f.npz", "rb") as fh:
        out = nl.load(fh)
    np.testing.assert_array_equal(out["a"], np.arange(3))


# ------------------------------------------------------------------ format


def test_file_is_an_npz_with_a_json_header(tmp_path):
    nl.save({"w": nl.tensor([1.0, 2.0]), 1: "x"}, tmp_path / "c.npz")
    with zipfile.ZipFile(tmp_path / "c.npz") as zf:
        assert zf.namelist() == ["header.json", "w.npy"]
        header = json.loads(zf.read("header.json"))
    assert header["format"] == "nnlite-checkpoint" and header["version"] == 2
    assert header["arrays"] == [["<f4", [2], "w"]]
    with np.load(tmp_path / "c.npz", allow_pickle=False) as npz:
        np.testing.assert_array_equal(npz["w"], np.array([1.0, 2.0], np.float32))


def test_npz_members_are_named_by_their_path(tmp_path):
    model = {"conv1.weight": nl.ones(2, 3), "fc.bias": nl.zeros(2)}
    state = {
        "model": model,
        "optimizer": {
            "state": {0: {"momentum_buffer": nl.ones(3)}},
            "param_groups": [{"lr": 0.1, "params": [0]}],
        },
        "tied": model["fc.bias"],
        "odd": {"a/b": np.ones(1), "": np.zeros(1), "..": np.ones(2)},
        "a": {"b": np.zeros(1)},
    }
    nl.save(state, tmp_path / "c.npz")
    with np.load(tmp_path / "c.npz", allow_pickle=False) as npz:
        files = npz.files
        np.testing.assert_array_equal(
            npz["optimizer/state/0/momentum_buffer"], np.ones(3, np.float32)
        )
    assert files[:3] == ["header.json", "model/conv1.weight", "model/fc.bias"]
    assert "optimizer/state/0/momentum_buffer" in files
    assert "tied" not in "".join(files)  # a tied tensor is stored once
    assert len(set(files)) == len(files) == 8  # header and 7 arrays, every name distinct
    assert not any(part in ("", ".", "..") for f in files for part in f.split("/"))
    out = nl.load(tmp_path / "c.npz")
    assert out["tied"] is out["model"]["fc.bias"]
    np.testing.assert_array_equal(out["odd"][".."], np.ones(2))


def test_version_1_files_still_load(tmp_path):
    """Files written before members were named by path: a0.npy, a1.npy, 2-element entries."""
    path = tmp_path / "old.npz"
    header = {
        "format": "nnlite-checkpoint",
        "version": 1,
        "arrays": [["<f4", [2]], ["<i8", [3]]],
        "root": {
            "dict": [
                ["w", {"tensor": 0, "requires_grad": True}],
                ["n", {"ndarray": 1}],
                ["again", {"ref": 0}],
            ]
        },
    }
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        for name, arr in (("a0.npy", np.array([1, 2], np.float32)), ("a1.npy", np.arange(3))):
            with zf.open(name, "w") as member:
                np.lib.format.write_array(member, arr, allow_pickle=False)
    out = nl.load(path)
    assert list(out) == ["w", "n", "again"] and out["again"] is out["w"]
    assert out["w"].requires_grad and out["w"].dtype == nl.float32
    np.testing.assert_array_equal(out["n"], np.arange(3))


def test_load_never_unpickles(tmp_path, monkeypatch):
    nl.save({"a": np.arange(3), "t": nl.ones(2)}, tmp_path / "c.npz")

    def forbidden(*args, **kwargs):
        raise AssertionError("pickle used")

    monkeypatch.setattr(pickle, "Unpickler", forbidden)
    monkeypatch.setattr(pickle, "loads", forbidden)
    monkeypatch.setattr(pickle, "load", forbidden)
    out = nl.load(tmp_path / "c.npz")
    np.testing.assert_array_equal(out["a"], np.arange(3))


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pickled-code-ran > boom.txt",))


def test_pickle_files_are_refused_without_unpickling(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"a": _Boom()}))
    with pytest.raises(CheckpointError, match="evil.pt.*does not unpickle"):
        nl.load(tmp_path / "evil.pt")
    assert not (tmp_path / "boom.txt").exists()


def test_object_arrays_in_a_checkpoint_are_refused(tmp_path):
    path = tmp_path / "obj.npz"
    nl.save({"a": np.arange(2)}, path)
    # replace the array member with an object array (which would need pickle)
    with zipfile.ZipFile(path) as zf:
        header = zf.read("header.json")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", header)
        with zf.open("a.npy", "w") as member:
            np.lib.format.write_array(
                member, np.array([{"x": 1}, None], dtype=object), allow_pickle=True
            )
    with pytest.raises(CheckpointError, match="corrupt nnlite checkpoint.*array a: dtype object"):
        nl.load(path)


# ------------------------------------------------------------------ damaged and foreign files


@pytest.fixture
def good_file(tmp_path):
    path = tmp_path / "good.npz"
    nl.save({"w": nl.tensor(np.arange(1000, dtype=np.float32)), "n": [1, 2.5, "x"]}, path)
    return path


def test_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        nl.load(tmp_path / "nope.npz")


def test_directory(tmp_path):
    with pytest.raises(IsADirectoryError):
        nl.load(tmp_path)


def test_empty_file(tmp_path):
    (tmp_path / "empty.npz").write_bytes(b"")
    with pytest.raises(
        CheckpointError, match=r"not an nnlite checkpoint: .*empty.npz \(empty file\)"
    ):
        nl.load(tmp_path / "empty.npz")


@pytest.mark.parametrize("fraction", [0.01, 0.3, 0.5, 0.9, 0.999])
def test_truncated_file(good_file, fraction):
    data = good_file.read_bytes()
    good_file.write_bytes(data[: max(1, int(len(data) * fraction))])
    with pytest.raises(CheckpointError) as info:
        nl.load(good_file)
    assert str(good_file) in str(info.value)
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, ValueError)


def test_every_truncation_gives_a_checkpoint_error(good_file):
    data = good_file.read_bytes()
    for n in range(0, len(data), 97):
        good_file.write_bytes(data[:n])
        with pytest.raises(CheckpointError):
            nl.load(good_file)


def test_flipped_byte_in_array_data_is_detected(good_file):
    data = bytearray(good_file.read_bytes())
    # a byte in the middle of the float data of a0.npy
    start = data.index(b"\x93NUMPY")
    data[start + 128 + 2000] ^= 0x40
    good_file.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=r"corrupt nnlite checkpoint: .*good.npz \(array w"):
        nl.load(good_file)


def test_damaged_header_is_detected(good_file):
    data = bytearray(good_file.read_bytes())
    start = data.index(b'{"format"')
    data[start + 3] ^= 0x01
    good_file.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="good.npz"):
        nl.load(good_file)


def test_random_garbage(tmp_path):
    path = tmp_path / "garbage.bin"
    path.write_bytes(np.random.default_rng(0).bytes(5000))
    with pytest.raises(CheckpointError, match="not an nnlite checkpoint: .*garbage.bin"):
        nl.load(path)


def test_text_file(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("hello\n")
    with pytest.raises(CheckpointError, match="not an nnlite checkpoint"):
        nl.load(path)


def test_plain_npz_without_header(tmp_path):
    path = tmp_path / "plain.npz"
    np.savez(path, x=np.arange(3))
    with pytest.raises(CheckpointError, match="without header.json"):
        nl.load(path)


def test_plain_npy(tmp_path):
    path = tmp_path / "plain.npy"
    np.save(path, np.arange(3))
    with pytest.raises(CheckpointError, match="single .npy array"):
        nl.load(path)


def test_other_zip(tmp_path):
    path = tmp_path / "other.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", b'{"format": "something-else"}')
    with pytest.raises(CheckpointError, match="unknown header format"):
        nl.load(path)


def test_newer_format_version(tmp_path):
    path = tmp_path / "future.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(
            "header.json",
            json.dumps({"format": "nnlite-checkpoint", "version": 99, "arrays": [], "root": None}),
        )
    with pytest.raises(CheckpointError, match="format version 99"):
        nl.load(path)


def test_header_array_mismatch(tmp_path):
    path = tmp_path / "mismatch.npz"
    nl.save([np.zeros(3, np.float32)], path)
    with zipfile.ZipFile(path) as zf:
        header = json.loads(zf.read("header.json"))
        member = zf.read("0.npy")
    header["arrays"][0] = ["<f8", [3], "0"]
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", json.dumps(header))
        zf.writestr("0.npy", member)
    with pytest.raises(CheckpointError, match="array 0: dtype <f4, shape \\[3\\], the header says"):
        nl.load(path)


def test_missing_array_member(tmp_path):
    path = tmp_path / "missing.npz"
    nl.save([np.zeros(3)], path)
    with zipfile.ZipFile(path) as zf:
        header = zf.read("header.json")
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("header.json", header)
    with pytest.raises(CheckpointError, match="array 0 is missing"):
        nl.load(path)


def test_bad_structure_in_header(tmp_path):
    path = tmp_path / "bad.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(
            "header.json",
            json.dumps(
                {"format": "nnlite-checkpoint", "version": 1, "arrays": [], "root": {"tensor": 4}}
            ),
        )
    with pytest.raises(CheckpointError, match="bad structure"):
        nl.load(path)


# ------------------------------------------------------------------ unsupported objects, atomicity


def test_unsupported_object_names_its_path(tmp_path):
    obj = {"layers": [1, 2, lambda x: x], "n": 1}
    with pytest.raises(TypeError, match=r"function at obj\['layers'\]\[2\]"):
        nl.save(obj, tmp_path / "x.npz")
    assert not (tmp_path / "x.npz").exists()
    assert os.listdir(tmp_path) == []


def test_unsupported_key(tmp_path):
    with pytest.raises(TypeError, match=r"dict key of type tuple .* in obj\['a'\]"):
        nl.save({"a": {(1, 2): 3}}, tmp_path / "x.npz")


def test_object_array_is_refused(tmp_path):
    with pytest.raises(TypeError, match=r"dtype object at obj\[0\]"):
        nl.save([np.array([None, 1], dtype=object)], tmp_path / "x.npz")


def test_cycle_is_refused(tmp_path):
    a = [1]
    a.append(a)
    with pytest.raises(ValueError, match=r"contains itself at obj\[1\]"):
        nl.save(a, tmp_path / "x.npz")


def test_failed_write_keeps_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "ckpt.npz"
    nl.save({"version": 1}, path)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", broken)
    with pytest.raises(OSError, match="disk full"):
        nl.save({"version": 2, "w": np.zeros(3)}, path)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["ckpt.npz"]
    assert nl.load(path) == {"version": 1}


def test_overwrite_keeps_permissions(tmp_path):
    path = tmp_path / "ckpt.npz"
    nl.save([1], path)
    os.chmod(path, 0o640)
    nl.save([2], path)
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert nl.load(path) == [2]


def test_new_file_permissions_follow_umask(tmp_path):
    old = os.umask(0o022)
    try:
        nl.save([1], tmp_path / "new.npz")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "new.npz").st_mode & 0o777 == 0o644


def test_map_location(tmp_path):
    nl.save([1], tmp_path / "c.npz")
    assert nl.load(tmp_path / "c.npz", map_location="cpu") == [1]
    with pytest.raises(RuntimeError, match="cpu"):
        nl.load(tmp_path / "c.npz", map_location="cuda")


def test_parameters_round_trip_as_parameters(tmp_path):
    nn = pytest.importorskip("nnlite.nn")
    if not hasattr(nn, "Parameter"):
        pytest.skip("nnlite.nn.Parameter is not available")
    w = nn.Parameter(nl.tensor(np.arange(4, dtype=np.float32)))
    frozen = nn.Parameter(nl.tensor(np.ones(2, np.float32)), requires_grad=False)
    out = round_trip({"w": w, "frozen": frozen, "again": w}, tmp_path)
    assert type(out["w"]) is nn.Parameter and out["w"].requires_grad
    assert type(out["frozen"]) is nn.Parameter and not out["frozen"].requires_grad
    assert out["again"] is out["w"]
    np.testing.assert_array_equal(out["w"]._data, w._data)
