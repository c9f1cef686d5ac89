"""PyTorch checkpoints both ways: nl.load reads torch.save files (zip and legacy) through an
allow-list unpickler, nl.save writes files torch.load(weights_only=True) reads. PyTorch is the
oracle; the hostile files are built here."""

import collections
import io
import math
import os
import pickle
import struct
import zipfile

import numpy as np
import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError

torch = pytest.importorskip("torch")

TORCH_DTYPES = [
    torch.float32,
    torch.float64,
    torch.float16,
    torch.bfloat16,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.uint8,
    torch.bool,
]


def as_numpy(t):
    """A torch tensor's values in numpy (bfloat16 widened to float32, exactly)."""
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def assert_matches_torch(ours, theirs, path="obj"):
    """An nnlite object equals a PyTorch one: container types, keys and order, tensor values,
    dtypes (bfloat16 as float32), requires_grad and Parameter-ness; NaN equals NaN."""
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, nl.Tensor), path
        expected = as_numpy(theirs)
        assert ours.dtype == getattr(nl, str(expected.dtype)), path
        assert tuple(ours.shape) == tuple(theirs.shape), path
        np.testing.assert_array_equal(ours.detach().numpy(), expected, err_msg=path)
        assert ours.requires_grad == theirs.requires_grad, path
        assert isinstance(ours, nl.nn.Parameter) == isinstance(theirs, torch.nn.Parameter), path
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs), path
        assert list(ours) == list(theirs), path
        for k in theirs:
            assert_matches_torch(ours[k], theirs[k], f"{path}[{k!r}]")
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), path
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_matches_torch(a, b, f"{path}[{i}]")
    elif isinstance(theirs, float) and math.isnan(theirs):
        assert isinstance(ours, float) and math.isnan(ours), path
    else:
        assert type(ours) is type(theirs) and ours == theirs, path


def torch_values(dtype, shape=(2, 3)):
    g = torch.Generator().manual_seed(0)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_floating_point:
        return (torch.randn(shape, generator=g) * 10).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(max(info.min, -1000), min(info.max, 1000), shape, generator=g).to(dtype)


# ------------------------------------------------------------------ reading torch.save files


@pytest.fixture(params=["zip", "legacy"])
def torch_save(request, tmp_path):
    """torch.save in the zip format, or in the legacy (before 1.6) format."""

    def save(obj, name="ckpt.pth"):
        path = tmp_path / name
        torch.save(obj, path, _use_new_zipfile_serialization=request.param == "zip")
        return path

    return save


def test_every_dtype(torch_save):
    sd = collections.OrderedDict((str(d).split(".")[1], torch_values(d)) for d in TORCH_DTYPES)
    path = torch_save(sd)
    out = nl.load(path)
    assert_matches_torch(out, torch.load(path, weights_only=True))
    assert out["bfloat16"].dtype == nl.float32


def test_state_dict_of_a_module_and_an_optimizer(torch_save):
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 4, 3),
        torch.nn.BatchNorm2d(4),
        torch.nn.Flatten(),
        torch.nn.Linear(4 * 6 * 6, 2),
    )
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(torch.randn(2, 3, 8, 8)).sum().backward()
    opt.step()
    ckpt = {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": 7,
        "best": 0.25,
        "name": "run",
        "flags": (True, None),
        "big": 2**70,
    }
    path = torch_save(ckpt)
    assert_matches_torch(nl.load(path), torch.load(path, weights_only=True))


def test_shared_storages_and_views(torch_save):
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    obj = {
        "base": base,
        "row": base[1],
        "col": base[:, 2],
        "t": base.t(),
        "narrow": base[1:3, 2:5],
        "again": base,
        "flat": base.view(-1)[5:17:3],
    }
    path = torch_save(obj)
    out = nl.load(path)
    assert_matches_torch(out, torch.load(path, weights_only=True))
    assert out["again"] is out["base"]
    for key in ("row", "col", "t", "narrow", "flat"):
        assert np.shares_memory(out[key].numpy(), out["base"].numpy()), key
    out["base"][1, 2] = -1.0  # one storage, as in PyTorch: every view sees the change
    assert out["row"][2].item() == -1.0 and out["col"][1].item() == -1.0


def test_parameters_and_requires_grad(torch_save):
    obj = {
        "p": torch.nn.Parameter(torch.ones(3)),
        "frozen": torch.nn.Parameter(torch.ones(2), False),
        "leaf": torch.zeros(2, requires_grad=True),
    }
    path = torch_save(obj)
    out = nl.load(path)
    assert_matches_torch(out, torch.load(path, weights_only=True))
    assert type(out["p"]) is nl.nn.Parameter and out["p"].requires_grad
    assert not out["frozen"].requires_grad and out["leaf"].requires_grad


def test_empty_and_zero_dim_tensors(torch_save):
    obj = [torch.zeros(0), torch.zeros(3, 0), torch.tensor(2.5), torch.tensor(7)]
    path = torch_save(obj)
    assert_matches_torch(nl.load(path), torch.load(path, weights_only=True))


def test_load_options(tmp_path):
    path = tmp_path / "w.pt"
    torch.save({"w": torch.arange(6.0)}, path)
    for kwargs in (
        {"map_location": "cpu"},
        {"map_location": torch.device("cpu")},
        {"map_location": {"cuda:0": "cpu"}},
        {"weights_only": True, "mmap": True},
    ):
        np.testing.assert_array_equal(nl.load(path, **kwargs)["w"].numpy(), np.arange(6.0))
    with pytest.warns(UserWarning, match="not written by nl.save"):  # torch.save wrote it
        out = nl.load(path, weights_only=False)
    np.testing.assert_array_equal(out["w"].numpy(), np.arange(6.0))
    with pytest.raises(RuntimeError, match="only has the cpu device"):
        nl.load(path, map_location="cuda:0")


def test_mmap_is_copy_on_write(tmp_path):
    path = tmp_path / "w.pt"
    torch.save({"w": torch.arange(1000.0)}, path)
    before = path.read_bytes()
    w = nl.load(path, mmap=True)["w"]
    assert any(isinstance(b, np.memmap) for b in _bases(w.numpy()))
    w[0] = 123.0
    assert w[0].item() == 123.0 and path.read_bytes() == before


def _bases(arr):
    while isinstance(arr, np.ndarray):
        yield arr
        arr = arr.base


def test_file_objects(tmp_path):
    buf = io.BytesIO()
    torch.save({"w": torch.ones(2)}, buf)
    buf.seek(0)
    np.testing.assert_array_equal(nl.load(buf)["w"].numpy(), np.ones(2, np.float32))


# ------------------------------------------------------------------ refusing code and models


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pickled-code-ran > boom.txt",))


def torch_zip_with_pickle(path, payload, storages=()):
    """A zip laid out as torch.save's with ``payload`` as data.pkl."""
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("ckpt/data.pkl", payload)
        zf.writestr("ckpt/byteorder", b"little")
        for key, data in storages:
            zf.writestr(f"ckpt/data/{key}", data)
        zf.writestr("ckpt/version", b"3\n")
    return path


@pytest.mark.parametrize(
    "payload, glob",
    [
        (pickle.dumps({"a": _Boom()}, protocol=2), "(posix|os|nt).system"),
        (pickle.dumps({"a": eval}, protocol=2), "builtins.eval"),
        (
            b"\x80\x02cbuiltins\nexec\nq\x00X\x05\x00\x00\x001 + 1q\x01\x85q\x02Rq\x03.",
            "builtins.exec",
        ),
        (pickle.dumps(collections.Counter("ab"), protocol=2), "collections.Counter"),
    ],
)
def test_code_in_the_pickle_is_refused_naming_the_global(tmp_path, monkeypatch, payload, glob):
    monkeypatch.chdir(tmp_path)
    path = torch_zip_with_pickle(tmp_path / "evil.pth", payload)
    with pytest.raises(CheckpointError, match=rf"refusing to load: .*evil.pth .*global {glob}"):
        nl.load(path)
    assert not (tmp_path / "boom.txt").exists()


def test_code_in_a_legacy_file_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "evil_legacy.pth"
    torch.save({"w": torch.ones(2)}, path, _use_new_zipfile_serialization=False)
    data = path.read_bytes()
    header = b"".join(pickle.dumps(x, protocol=2) for x in (0x1950A86A20F9469CFC6C, 1001, {}))
    path.write_bytes(header + pickle.dumps({"a": _Boom()}, protocol=2) + data[len(header) :])
    with pytest.raises(CheckpointError, match=r"evil_legacy.pth .*system"):
        nl.load(path)
    assert not (tmp_path / "boom.txt").exists()


def test_whole_model_pickles_are_refused_with_advice(tmp_path):
    path = tmp_path / "model.pth"
    torch.save(torch.nn.Linear(2, 3), path)
    with pytest.raises(
        CheckpointError,
        match=r"model.pth .*whole model .*torch.nn.modules.linear.Linear.*"
        r"save model.state_dict\(\) instead",
    ):
        nl.load(path)


def test_plain_pickles_are_refused_without_unpickling(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "evil.pkl").write_bytes(pickle.dumps({"a": _Boom()}))
    with pytest.raises(CheckpointError, match="evil.pkl.*does not unpickle"):
        nl.load(tmp_path / "evil.pkl")
    assert not (tmp_path / "boom.txt").exists()


# ------------------------------------------------------------------ damaged files, bounded memory


def persid_pickle(numel, size, stride, offset=0, storage="FloatStorage", requires_grad=False):
    """data.pkl of one tensor (built opcode by opcode, as torch writes it)."""

    def tup(values):
        return b"(" + b"".join(b"\x8a\x08" + struct.pack("<q", v) for v in values) + b"t"

    return (
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n((X\x07\x00\x00\x00storage"
        + f"ctorch\n{storage}\n".encode()
        + b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpu"
        + b"\x8a\x08"
        + struct.pack("<q", numel)
        + b"tQ"
        + b"J"
        + struct.pack("<i", offset)
        + tup(size)
        + tup(stride)
        + (b"\x88" if requires_grad else b"\x89")
        + b"ccollections\nOrderedDict\n)RtR."
    )


def test_a_hand_built_tensor_pickle_is_what_torch_reads(tmp_path):
    path = torch_zip_with_pickle(
        tmp_path / "ok.pth",
        persid_pickle(6, (2, 3), (3, 1)),
        [("0", np.arange(6, dtype="<f4").tobytes())],
    )
    expected = torch.load(path, weights_only=True).numpy()
    np.testing.assert_array_equal(nl.load(path).numpy(), expected)


def test_storage_declaring_64_gib_in_a_tiny_file(tmp_path, refused_load):
    path = torch_zip_with_pickle(
        tmp_path / "huge.pth", persid_pickle(2**34, (2**34,), (1,)), [("0", b"\0" * 16)]
    )
    assert path.stat().st_size < 1000
    peak = refused_load(
        path,
        r"huge.pth \(storage '0' declares 17179869184 elements "
        r"\(68719476736 bytes\) but its member holds 16 bytes",
    )
    assert peak < 1 << 20


@pytest.mark.parametrize(
    "size, stride, offset",
    [
        ((3, 3), (3, 1), 0),  # 9 elements from a storage of 6
        ((2, 3), (3, 1), 1),  # runs past the end
        ((2**30, 2**30), (0, 0), 0),  # an expanded view of 2**60 elements
        ((2, 3), (3, -1), 0),  # negative stride
    ],
)
def test_tensor_that_does_not_fit_its_storage(tmp_path, size, stride, offset):
    path = torch_zip_with_pickle(
        tmp_path / "view.pth",
        persid_pickle(6, size, stride, offset),
        [("0", np.arange(6, dtype="<f4").tobytes())],
    )
    with pytest.raises(CheckpointError, match="view.pth"):
        nl.load(path)


@pytest.mark.parametrize(
    "storage, itemsize", [("LongStorage", 8), ("ByteStorage", 1), ("BoolStorage", 1)]
)
def test_integer_tensor_marked_as_requiring_grad(tmp_path, storage, itemsize):
    path = torch_zip_with_pickle(
        tmp_path / "grad.pth",
        persid_pickle(4, (4,), (1,), storage=storage, requires_grad=True),
        [("0", b"\0" * 4 * itemsize)],
    )
    with pytest.raises(CheckpointError, match=r"grad.pth .*marked as requiring grad"):
        nl.load(path)


def test_missing_storage_member(tmp_path):
    path = torch_zip_with_pickle(tmp_path / "nostorage.pth", persid_pickle(6, (6,), (1,)))
    with pytest.raises(CheckpointError, match=r"nostorage.pth \(storage '0' is missing"):
        nl.load(path)


def test_memo_index_beyond_the_pickle_is_refused(tmp_path):
    # LONG_BINPUT 2**32-1: the C unpickler would size its memo for four billion entries
    payload = b"\x80\x02]r\xff\xff\xff\xff."
    path = torch_zip_with_pickle(tmp_path / "memo.pth", payload)
    with pytest.raises(CheckpointError, match=r"memo.pth .*memo index 4294967295"):
        nl.load(path)


def test_repeated_copies_of_one_string_are_bounded(tmp_path):
    """A few kilobytes asking _codecs.encode to copy one memoised 4 KB string 100000 times."""
    big = "x" * 4096
    payload = bytearray(
        b"\x80\x02c_codecs\nencode\nq\x00X"
        + struct.pack("<I", len(big))
        + big.encode()
        + b"q\x01X\x06\x00\x00\x00latin1q\x02("
    )
    payload += b"h\x00h\x01h\x02\x86R" * 100_000 + b"l."
    path = torch_zip_with_pickle(tmp_path / "copies.pth", bytes(payload))
    with pytest.raises(CheckpointError, match=r"copies.pth .*_codecs.encode would build more than"):
        nl.load(path)


def test_exponentially_shared_lists_load_in_linear_time(tmp_path):
    """Each list holds the previous one twice: 2**60 leaves, 60 objects."""
    payload = bytearray(b"\x80\x02K\x01q\x00")
    for i in range(60):
        payload += b"h" + bytes([i]) + b"h" + bytes([i]) + b"\x86q" + bytes([i + 1])
    payload += b"."
    path = torch_zip_with_pickle(tmp_path / "shared.pth", bytes(payload))
    out = nl.load(path)
    assert out[0] is out[1] and out[0][0] is out[0][1]


def test_every_truncation_of_a_pth(tmp_path, torch_save):
    path = torch_save({"w": torch.randn(50), "n": [1, "x"]})
    data = path.read_bytes()
    for n in list(range(0, len(data), 37)) + [len(data) - 1]:
        path.write_bytes(data[:n])
        with pytest.raises(CheckpointError, match="ckpt.pth"):
            nl.load(path)


def test_every_flipped_byte_of_data_pkl(tmp_path):
    """Damage in the pickle gives a CheckpointError or a load, never another exception."""
    path = tmp_path / "w.pth"
    torch.save(collections.OrderedDict(w=torch.randn(2, 3), b=torch.arange(3), s=[1.5, "x"]), path)
    with zipfile.ZipFile(path) as zf:
        members = {i.filename: zf.read(i) for i in zf.infolist()}
    pkl = members["w/data.pkl"]
    for i in range(2, len(pkl)):
        for mask in (0x01, 0xFF):
            damaged = bytearray(pkl)
            damaged[i] ^= mask
            with zipfile.ZipFile(path, "w") as zf:
                for name, data in members.items():
                    zf.writestr(name, bytes(damaged) if name == "w/data.pkl" else data)
            try:
                nl.load(path)
            except CheckpointError as e:
                assert "w.pth" in str(e)


# ------------------------------------------------------------------ writing for PyTorch


def nnlite_checkpoint():
    model = nl.nn.Sequential(
        nl.nn.Conv2d(3, 4, 3), nl.nn.BatchNorm2d(4), nl.nn.Flatten(), nl.nn.Linear(4 * 6 * 6, 2)
    )
    opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    model(nl.randn(2, 3, 8, 8)).sum().backward()
    opt.step()
    return {
        "model": model.state_dict(),
        "optimizer": opt.state_dict(),
        "epoch": 3,
        "loss": float("nan"),
        "tag": b"\x00\xff",
        "shape": (1, 2),
        "none": None,
    }


@pytest.mark.parametrize("how", ["suffix", "format", "file object"])
def test_torch_reads_what_nnlite_writes(tmp_path, how):
    ckpt = nnlite_checkpoint()
    if how == "suffix":
        target = tmp_path / "ckpt.pth"
        nl.save(ckpt, target)
    elif how == "format":
        target = tmp_path / "ckpt.bin"
        nl.save(ckpt, target, format="torch")
    else:
        target = io.BytesIO()
        nl.save(ckpt, target, format="torch")
        target.seek(0)
    assert_matches_torch(ckpt, torch.load(target, weights_only=True))


def test_torch_mmap_reads_what_nnlite_writes(tmp_path):
    """Storages are 64-byte aligned as PyTorch writes them, so torch.load(mmap=True) works."""
    sd = {"a": nl.randn(5), "b": nl.arange(7), "c": nl.tensor([True, False, True])}
    nl.save(sd, tmp_path / "x.pth")
    out = torch.load(tmp_path / "x.pth", weights_only=True, mmap=True)
    assert_matches_torch(sd, out)


@pytest.mark.parametrize(
    "dtype",
    [
        np.float16,
        np.float32,
        np.float64,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.bool_,
        ">f4",
    ],
)
def test_every_dtype_torch_has(tmp_path, dtype):
    arr = (np.arange(12).reshape(3, 4) % 3).astype(dtype)
    sd = {
        "t": nl.from_numpy(arr.astype(np.dtype(dtype).newbyteorder("="))),
        "array": arr,
        "strided": nl.from_numpy(arr.astype(np.dtype(dtype).newbyteorder("="))[:, ::2]),
    }
    nl.save(sd, tmp_path / "d.pth")
    out = torch.load(tmp_path / "d.pth", weights_only=True)
    back = nl.load(tmp_path / "d.pth")
    for key, value in sd.items():
        np.testing.assert_array_equal(out[key].numpy(), np.asarray(value))
        np.testing.assert_array_equal(np.asarray(back[key]), np.asarray(value))


def test_tied_weights_stay_tied_in_torch(tmp_path):
    w = nl.nn.Parameter(nl.randn(2, 2))
    nl.save({"enc": w, "dec": w}, tmp_path / "tied.pth")
    out = torch.load(tmp_path / "tied.pth", weights_only=True)
    assert out["enc"] is out["dec"] and isinstance(out["enc"], torch.nn.Parameter)


def test_what_torch_cannot_hold_is_refused_naming_where(tmp_path):
    with pytest.raises(TypeError, match=r"no storage for dtype uint32 \(at obj\['x'\]\)"):
        nl.save({"x": np.zeros(2, np.uint32)}, tmp_path / "u.pth")
    assert os.listdir(tmp_path) == []


def test_a_set_is_pickled_as_torch_pickles_it(tmp_path):
    nl.save({"s": {1, 2}, "w": nl.ones(2)}, tmp_path / "s.pth")
    theirs = torch.load(tmp_path / "s.pth", weights_only=True)
    assert theirs["s"] == {1, 2} and theirs["w"].tolist() == [1.0, 1.0]
    ours = nl.load(tmp_path / "s.pth")
    assert ours["s"] == {1, 2} and ours["w"].tolist() == [1.0, 1.0]


# ------------------------------------------------------------------ torchvision's resnet18 layout


class _TorchBasicBlock(torch.nn.Module):
    """torchvision's BasicBlock, module for module (names are what the test is about)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(cout)
        self.relu = torch.nn.ReLU(inplace=True)
        self.conv2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = torch.nn.BatchNorm2d(cout)
        self.downsample = None
        if stride != 1 or cin != cout:
            self.downsample = torch.nn.Sequential(
                torch.nn.Conv2d(cin, cout, 1, stride, bias=False), torch.nn.BatchNorm2d(cout)
            )

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + identity)


class _TorchResNet18(torch.nn.Module):
    """torchvision.models.resnet18's module layout."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = torch.nn.BatchNorm2d(64)
        self.relu = torch.nn.ReLU(inplace=True)
        self.maxpool = torch.nn.MaxPool2d(3, 2, 1)
        widths, cin = [64, 128, 256, 512], 64
        for i, w in enumerate(widths):
            stride = 1 if i == 0 else 2
            setattr(
                self,
                f"layer{i + 1}",
                torch.nn.Sequential(_TorchBasicBlock(cin, w, stride), _TorchBasicBlock(w, w, 1)),
            )
            cin = w
        self.avgpool = torch.nn.AdaptiveAvgPool2d((1, 1))
        self.fc = torch.nn.Linear(512, num_classes)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def test_resnet18_weights_round_trip_with_torchvisions_layout(tmp_path):
    ours = nl.models.resnet18(num_classes=10)
    for m in ours.modules():  # non-trivial running statistics
        if isinstance(m, nl.nn.BatchNorm2d):
            m.running_mean.copy_(nl.randn(m.running_mean.shape) * 0.1)
            m.running_var.copy_(nl.rand(m.running_var.shape) + 0.5)
    nl.save(ours.state_dict(), tmp_path / "nnlite_resnet18.pth")
    theirs = _TorchResNet18(num_classes=10)
    theirs.load_state_dict(torch.load(tmp_path / "nnlite_resnet18.pth", weights_only=True))
    theirs.eval()
    ours.eval()
    x = np.random.default_rng(0).standard_normal((2, 3, 64, 64)).astype(np.float32)
    with torch.no_grad():
        expected = theirs(torch.from_numpy(x)).numpy()
    with nl.no_grad():
        got = ours(nl.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    # and back: PyTorch's file into a fresh nnlite model
    torch.save(theirs.state_dict(), tmp_path / "torch_resnet18.pth")
    again = nl.models.resnet18(num_classes=10)
    again.load_state_dict(nl.load(tmp_path / "torch_resnet18.pth"))
    again.eval()
    with nl.no_grad():
        np.testing.assert_allclose(again(nl.from_numpy(x)).numpy(), expected, rtol=1e-4, atol=1e-4)
