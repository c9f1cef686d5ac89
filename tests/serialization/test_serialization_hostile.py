"""Damaged, foreign and hostile nnlite checkpoints: every one raises CheckpointError naming the
file and the problem, and memory stays bounded by the file's size."""

import io
import json
import struct
import zipfile
import zlib

import numpy as np
import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError, npz


def saved_bytes(obj):
    """nl.save's bytes for ``obj``: equal bytes mean equal objects (saving is deterministic)."""
    buf = io.BytesIO()
    nl.save(obj, buf)
    return buf.getvalue()


def checkpoint_state():
    model = nl.nn.Linear(3, 2)
    opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(nl.randn(4, 3)).sum().backward()
    opt.step()
    return {"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3, "note": "x"}


def write_zip(path, members):
    """A zip with ``members`` (name -> bytes), stored."""
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def npy_bytes(arr=None, header_shape=None, dtype="<f4"):
    """The bytes of a .npy file: ``arr``'s, or a bare header declaring ``header_shape``."""
    buf = io.BytesIO()
    if arr is not None:
        np.lib.format.write_array(buf, arr, allow_pickle=False)
    else:
        np.lib.format.write_array_header_1_0(
            buf, {"descr": dtype, "fortran_order": False, "shape": header_shape}
        )
    return buf.getvalue()


def header(root, arrays=()):
    return json.dumps(
        {"format": "nnlite-checkpoint", "version": 2, "arrays": list(arrays), "root": root}
    )


def central_directory_span(data):
    """Where the central directory and the end records start and end."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return zf.start_dir, len(data)


# ------------------------------------------------------------------ the central directory


@pytest.mark.parametrize("mask", [0x01, 0x80, 0xFF])
def test_every_flipped_byte_of_the_central_directory(tmp_path, mask):
    state = checkpoint_state()
    path = tmp_path / "ckpt.npz"
    nl.save(state, path)
    data = path.read_bytes()
    expected = saved_bytes(state)
    start, end = central_directory_span(data)
    assert end - start > 300
    outcomes = {"error": 0, "intact": 0}
    for i in range(start, end):
        damaged = bytearray(data)
        damaged[i] ^= mask
        path.write_bytes(bytes(damaged))
        try:
            out = nl.load(path)
        except CheckpointError as e:
            assert str(path) in str(e), str(e)
            outcomes["error"] += 1
        else:
            # a flip in a field nothing depends on (a timestamp, a comment): the data is intact
            assert saved_bytes(out) == expected, f"byte {i} ^ {mask:#x} changed the data"
            outcomes["intact"] += 1
    assert outcomes["error"] > (end - start) // 2


def test_every_flipped_byte_of_a_pytorch_files_central_directory(tmp_path):
    path = tmp_path / "w.pth"
    nl.save({"w": nl.randn(3, 2), "b": nl.arange(4)}, path)
    data = path.read_bytes()
    expected = saved_bytes(nl.load(path))
    start, end = central_directory_span(data)
    for i in range(start, end):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        path.write_bytes(bytes(damaged))
        try:
            out = nl.load(path)
        except CheckpointError as e:
            assert str(path) in str(e)
        else:
            assert saved_bytes(out) == expected, f"byte {i} changed the data"


@pytest.mark.parametrize("fmt", ["npz", "torch"])
def test_every_flipped_byte_of_a_whole_file(fmt):
    """Local headers, data, header, pickle: the CRCs catch what the structure does not."""
    state = {"w": nl.randn(3, 2), "b": nl.arange(3), "n": [1, 2.5, "x"], "t": None}
    buf = io.BytesIO()
    nl.save(state, buf, format=fmt)
    data = buf.getvalue()
    expected = saved_bytes(state)
    errors = 0
    for i in range(len(data)):
        damaged = bytearray(data)
        damaged[i] ^= 0xFF
        f = io.BytesIO(bytes(damaged))
        f.name = f"ckpt.{fmt}"
        try:
            out = nl.load(f)
        except CheckpointError as e:
            assert f.name in str(e)
            errors += 1
        else:
            assert saved_bytes(out) == expected, f"byte {i} changed the data"
    assert errors > len(data) // 3


# ------------------------------------------------------------------ the JSON header


def test_deeply_nested_header(tmp_path):
    path = tmp_path / "deep.npz"
    write_zip(
        path,
        {
            "header.json": header(None)[:-1].replace('"root":null', '"root":')
            + "[" * 100_000
            + "]" * 100_000
            + "}"
        },
    )
    with pytest.raises(CheckpointError, match=r"deep.npz \(header.json nests 100001 levels"):
        nl.load(path)


def test_nesting_within_the_limit_loads(tmp_path):
    obj = 0
    for _ in range(60):
        obj = [obj]
    path = tmp_path / "nested.npz"
    nl.save(obj, path)
    assert nl.load(path) == obj


@pytest.mark.parametrize(
    "arrays, root",
    [
        ("x", None),
        ([[1, [2], "a"]], None),
        ([["<f4", ["2"], "a"]], None),
        ([["<f4", [-1], "a"]], None),
        ([["<f4", [2], 7]], None),
        ([], {"float": 5}),
        ([], {"float": "abc"}),
        ([], {"float": "ab"}),
        ([], {"int": 5}),
        ([], {"int": "zz"}),
        ([], {"tensor": "0"}),
        ([], {"tensor": True}),
        ([], {"tensor": 0}),
        ([], {"ref": 0}),
        ([], {"complex": 1}),
        ([], {"complex": [1, {"float": 3}]}),
        ([], {"dict": 5}),
        ([], {"dict": [[1]]}),
        ([], {"dict": [[{"list": []}, 1]]}),
        ([], {"list": {"a": 1}}),
        ([], {"bytes": -1}),
        ([], {"whatever": 1}),
        ([], [1, 2]),
    ],
)
def test_header_fields_of_the_wrong_type(tmp_path, arrays, root):
    path = tmp_path / "typed.npz"
    write_zip(path, {"header.json": header(root, arrays)})
    with pytest.raises(CheckpointError, match="typed.npz"):
        nl.load(path)


@pytest.mark.parametrize("version", ["1", 1.0, None, [1], 3])
def test_wrong_version_field(tmp_path, version):
    path = tmp_path / "v.npz"
    write_zip(
        path,
        {
            "header.json": json.dumps(
                {"format": "nnlite-checkpoint", "version": version, "arrays": [], "root": None}
            )
        },
    )
    with pytest.raises(CheckpointError, match="v.npz"):
        nl.load(path)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8, np.bool_])
def test_integer_array_marked_as_requiring_grad(tmp_path, dtype):
    path = tmp_path / "grad.npz"
    write_zip(
        path,
        {
            "header.json": header(
                {"tensor": 0, "requires_grad": True}, [[np.dtype(dtype).str, [3], "t"]]
            ),
            "t.npy": npy_bytes(np.zeros(3, dtype)),
        },
    )
    with pytest.raises(CheckpointError, match=r"grad.npz .*marked as requiring grad"):
        nl.load(path)


def test_header_size_cap(tmp_path, monkeypatch):
    path = tmp_path / "big_header.npz"
    nl.save({f"key{i}": i for i in range(100)}, path)
    monkeypatch.setattr(npz, "MAX_HEADER_BYTES", 500)
    with pytest.raises(
        CheckpointError,
        match=r"refusing to load: .*big_header.npz \(header.json is \d+ bytes, "
        r"more than the 500-byte limit",
    ):
        nl.load(path)


def test_central_directory_claiming_a_huge_member(tmp_path):
    """A central directory claiming a 4 GB header.json in a tiny file."""
    path = tmp_path / "claims.npz"
    write_zip(path, {"header.json": header(None)})
    data = bytearray(path.read_bytes())
    start, _ = central_directory_span(bytes(data))
    # the central directory entry's compressed and uncompressed sizes (offsets 20 and 24)
    struct.pack_into("<II", data, start + 20, 0xFFFFFFF0, 0xFFFFFFF0)
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="claims.npz"):
        nl.load(path)


# ------------------------------------------------------------------ memory bounded by the file


def test_tiny_file_declaring_a_64_gib_array(tmp_path, refused_load):
    path = tmp_path / "huge.npz"
    shape = [2**34]  # 64 GiB of float32
    write_zip(
        path,
        {
            "header.json": header({"ndarray": 0}, [["<f4", shape, "x"]]),
            "x.npy": npy_bytes(header_shape=tuple(shape)),
        },
    )
    assert path.stat().st_size < 600
    peak = refused_load(
        path,
        r"huge.npz \(array x: the .npy header declares shape "
        r"\(17179869184,\) of <f4 \(68719476736 bytes\) but the member "
        r"holds 0 bytes",
    )
    assert peak < 1 << 20


def test_npy_header_disagreeing_with_its_data(tmp_path):
    path = tmp_path / "short.npz"
    member = npy_bytes(np.zeros(10, np.float32))
    member = member.replace(b"(10,)", b"(11,)")
    write_zip(path, {"header.json": header({"ndarray": 0}, [["<f4", [11], "x"]]), "x.npy": member})
    with pytest.raises(CheckpointError, match=r"short.npz \(array x: .*44 bytes.*holds 40 bytes"):
        nl.load(path)


def test_zip_bomb_member_is_refused_before_inflating(tmp_path, monkeypatch):
    path = tmp_path / "bomb.npz"
    inflated = 64 << 20
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    zeros = bytes(1 << 20)
    stream = b"".join(compressor.compress(zeros) for _ in range(inflated >> 20))
    stream += compressor.flush()
    write_zip(path, {"header.json": header({"ndarray": 0}, [["|u1", [inflated], "x"]])})
    # a deflate stream of 64 MiB of zeros in a file of about 64 KB
    _write_raw_deflated_member(path, "x.npy", stream, inflated)
    assert path.stat().st_size < 100_000

    def no_inflating(*args, **kwargs):
        raise AssertionError("a member was opened")

    monkeypatch.setattr(zipfile.ZipFile, "open", no_inflating)
    with pytest.raises(
        CheckpointError,
        match=r"refusing to load: .*bomb.npz \(member 'x.npy' "
        r"would inflate to 67108864 bytes",
    ):
        nl.load(path)


def _write_raw_deflated_member(path, name, stream, size, crc=0):
    """Append a deflated member with the given stream and declared size to the zip at ``path``."""
    with zipfile.ZipFile(path, "a") as zf:
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_DEFLATED
        info.file_size, info.compress_size, info.CRC = size, len(stream), crc
        info.header_offset = zf.fp.tell()
        info.flag_bits = 0x800
        zf.fp.write(info.FileHeader(False))
        zf.fp.write(stream)
        zf.filelist.append(info)
        zf.NameToInfo[name] = info
        zf.start_dir = zf.fp.tell()
        zf._didModify = True


def test_compressed_member_within_the_bound_loads(tmp_path):
    """numpy.savez_compressed-style members are read when they stay within the bound."""
    path = tmp_path / "compressed.npz"
    arr = np.arange(1000, dtype=np.int64)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", header({"ndarray": 0}, [["<i8", [1000], "x"]]))
        zf.writestr("x.npy", npy_bytes(arr))
    np.testing.assert_array_equal(nl.load(path), arr)
