"""CIFAR10 / MNIST / FashionMNIST readers on generated files, and the download path (network faked)."""

import gzip
import hashlib
import io
import os
import pickle
import sys
import tarfile
import types

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import DataLoader, datasets, transforms
from nnlite.data.datasets import DatasetFormatError, _download

# ------------------------------------------------------------------------------ IDX / MNIST family


@pytest.mark.parametrize("cls", [datasets.MNIST, datasets.FashionMNIST])
@pytest.mark.parametrize("gz", [True, False])
@pytest.mark.parametrize("layout", ["flat", "torchvision"])
def test_idx_dataset_reads_every_layout(tmp_path, idx_files, cls, gz, layout):
    folder = tmp_path if layout == "flat" else tmp_path / cls.__name__ / "raw"
    written = idx_files(str(folder), gz=gz)
    for train, key in ((True, "train"), (False, "t10k")):
        ds = cls(str(tmp_path), train=train)
        images, labels = written[key]
        assert len(ds) == len(images)
        # as torchvision's: uint8 and int64 Tensors
        assert (
            isinstance(ds.data, nl.Tensor)
            and ds.data.dtype == nl.uint8
            and ds.targets.dtype == nl.int64
        )
        assert tuple(ds.data.shape) == images.shape
        np.testing.assert_array_equal(ds.data.numpy(), images)
        np.testing.assert_array_equal(ds.targets.numpy(), labels)
        img, target = ds[3]
        assert isinstance(img, np.ndarray) and img.shape == (28, 28, 1) and img.dtype == np.uint8
        np.testing.assert_array_equal(img[:, :, 0], images[3])
        assert type(target) is int and target == labels[3]
    assert len(ds.classes) == 10
    assert ds.class_to_idx[ds.classes[2]] == 2
    assert cls.__name__ in repr(ds)


def test_fashion_mnist_classes():
    assert datasets.FashionMNIST.classes[0] == "T-shirt/top"
    assert datasets.FashionMNIST.classes[9] == "Ankle boot"


@pytest.mark.parametrize(
    "name, content, message",
    [
        ("bad magic", b"\x12\x34\x08\x03" + b"\0" * 12, "bad magic number 0x12340803"),
        ("labels file as images", None, "magic number 0x00000801, expected 0x00000803"),
        (
            "truncated",
            b"\0\0\x08\x03" + (2).to_bytes(4, "big") + (28).to_bytes(4, "big") * 2 + b"\0" * 100,
            "truncated or corrupt",
        ),
        ("too short", b"\0\0", "too short"),
    ],
)
def test_idx_format_errors_name_the_file(tmp_path, idx_files, idx_writer, name, content, message):
    idx_files(str(tmp_path), gz=False)
    path = tmp_path / "train-images-idx3-ubyte"
    if content is None:
        idx_writer(str(path), np.zeros(12, np.uint8))
    else:
        path.write_bytes(content)
    with pytest.raises(DatasetFormatError, match=message) as e:
        datasets.MNIST(str(tmp_path))
    assert str(path) in str(e.value)


def test_idx_corrupt_gzip(tmp_path, idx_files):
    idx_files(str(tmp_path), gz=True)
    path = tmp_path / "train-labels-idx1-ubyte.gz"
    path.write_bytes(path.read_bytes()[:-6])
    with pytest.raises(DatasetFormatError, match="corrupt gzip") as e:
        datasets.MNIST(str(tmp_path))
    assert str(path) in str(e.value)


def test_idx_count_mismatch(tmp_path, idx_files, idx_writer):
    idx_files(str(tmp_path), gz=False)
    idx_writer(str(tmp_path / "train-labels-idx1-ubyte"), np.zeros(5, np.uint8))
    with pytest.raises(DatasetFormatError, match="12 images but .* 5 labels"):
        datasets.MNIST(str(tmp_path))


def test_idx_missing_files_message(tmp_path):
    with pytest.raises(RuntimeError) as e:
        datasets.FashionMNIST(str(tmp_path))
    msg = str(e.value)
    assert "train-images-idx3-ubyte" in msg and "train-labels-idx1-ubyte" in msg
    assert "download=True" in msg and os.path.join(str(tmp_path), "FashionMNIST", "raw") in msg


# ---------------------------------------------------------------------------------------- CIFAR-10


@pytest.mark.parametrize("protocol", [2, pickle.HIGHEST_PROTOCOL])
def test_cifar10_reads_python_batches(tmp_path, cifar_files, protocol):
    written = cifar_files(str(tmp_path), protocol=protocol)
    train = datasets.CIFAR10(str(tmp_path), train=True)
    test = datasets.CIFAR10(str(tmp_path), train=False)
    for ds, key in ((train, "train"), (test, "test")):
        images, labels = written[key]
        assert ds.data.shape == images.shape == (len(labels), 32, 32, 3)
        np.testing.assert_array_equal(ds.data, images)
        np.testing.assert_array_equal(ds.targets, labels)
    img, target = train[7]
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8 and type(target) is int
    np.testing.assert_array_equal(img, written["train"][0][7])
    assert train.classes == [f"c{i}" for i in range(10)]
    assert len(train) == 20 and len(test) == 5


def test_cifar10_refuses_code_in_pickle(tmp_path, cifar_files):
    cifar_files(str(tmp_path))

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned",))

    path = tmp_path / "cifar-10-batches-py" / "data_batch_3"
    path.write_bytes(pickle.dumps({"data": Evil(), "labels": []}, protocol=2))
    with pytest.raises(DatasetFormatError, match="refusing to load (posix|os|nt).system") as e:
        datasets.CIFAR10(str(tmp_path))
    assert str(path) in str(e.value)


@pytest.mark.parametrize(
    "entry, message",
    [
        ({"data": np.zeros((2, 100), np.uint8), "labels": [0, 1]}, r"shape \(N, 3072\)"),
        ({"data": np.zeros((2, 3072), np.float32), "labels": [0, 1]}, "must be a uint8 array"),
        ({"data": np.zeros((2, 3072), np.uint8), "labels": [0]}, "2 images but labels"),
        ({"data": np.zeros((2, 3072), np.uint8), "labels": [0, 12]}, r"labels must be in \[0, 9\]"),
        ([1, 2, 3], "is a dict"),
    ],
)
def test_cifar10_format_errors(tmp_path, cifar_files, entry, message):
    cifar_files(str(tmp_path))
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(pickle.dumps(entry, protocol=2))
    with pytest.raises(DatasetFormatError, match=message):
        datasets.CIFAR10(str(tmp_path), train=False)


def test_cifar10_missing_files_message(tmp_path):
    with pytest.raises(RuntimeError) as e:
        datasets.CIFAR10(str(tmp_path), train=True)
    msg = str(e.value)
    assert "data_batch_1" in msg and "data_batch_5" in msg and "download=True" in msg
    assert "cifar-10-python.tar.gz" in msg


# ------------------------------------------------------------------------- batched path of datasets


@pytest.mark.parametrize(
    "transform",
    [
        None,
        transforms.ToTensor(),
        transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.25,))]),
        transforms.Compose(
            [transforms.ToTensor(), lambda t: t * 2]
        ),  # a plain function inside Compose
        lambda img: img.astype(np.float32).sum(),  # a transform without a batched path
    ],
)
def test_getitems_equals_items_collated(tmp_path, idx_files, transform):
    idx_files(str(tmp_path))
    ds = datasets.MNIST(str(tmp_path), transform=transform, target_transform=lambda y: y + 100)
    fast = list(DataLoader(ds, batch_size=5))
    slow = list(
        DataLoader(ds, batch_size=5, collate_fn=nl.data.default_collate)
    )  # custom collate: per item
    assert len(fast) == len(slow) == 3
    for (xf, yf), (xs, ys) in zip(fast, slow):
        assert xf.dtype == xs.dtype and xf.shape == xs.shape
        np.testing.assert_array_equal(xf.numpy(), xs.numpy())
        np.testing.assert_array_equal(yf.numpy(), ys.numpy())
        assert yf.dtype == nl.int64 and int(yf.numpy().min()) >= 100


def test_loader_on_cifar_batches(tmp_path, cifar_files):
    written = cifar_files(str(tmp_path))
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,) * 3, (0.5,) * 3)])
    ds = datasets.CIFAR10(str(tmp_path), transform=tf)
    x, y = next(iter(DataLoader(ds, batch_size=4)))
    assert x.shape == (4, 3, 32, 32) and x.dtype == nl.float32
    expect = (written["train"][0][:4].transpose(0, 3, 1, 2).astype(np.float32) / 255 - 0.5) / 0.5
    np.testing.assert_allclose(x.numpy(), expect, rtol=0, atol=1e-6)
    np.testing.assert_array_equal(y.numpy(), written["train"][1][:4])


# ----------------------------------------------------------------------------- download (no network)


class _FakeResponse(io.BytesIO):
    def __init__(self, payload):
        super().__init__(payload)
        self.headers = {"Content-Length": str(len(payload))}


def _serve(monkeypatch, table, log):
    """Replace the URL opener: URLs in ``table`` serve their bytes, others fail like no network."""
    import urllib.error

    def fake_urlopen(url, timeout=None):
        log.append(url)
        if url not in table:
            raise urllib.error.URLError("no network in tests")
        return _FakeResponse(table[url])

    monkeypatch.setattr(_download, "urlopen", fake_urlopen)


@pytest.fixture
def no_torchvision(monkeypatch):
    monkeypatch.setitem(sys.modules, "torchvision", None)
    monkeypatch.setitem(sys.modules, "torchvision.datasets", None)


def _md5(data):
    return hashlib.md5(data).hexdigest()


def _cifar_archive(tmp_path, cifar_files, extra_member=None):
    src = tmp_path / "src"
    cifar_files(str(src))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        tar.add(str(src / "cifar-10-batches-py"), arcname="cifar-10-batches-py")
        if extra_member is not None:
            extra_member(tar)
    return buf.getvalue(), src


def _patch_cifar_md5s(monkeypatch, src, archive):
    folder = src / "cifar-10-batches-py"
    monkeypatch.setattr(datasets.CIFAR10, "tgz_md5", _md5(archive))
    monkeypatch.setattr(
        datasets.CIFAR10,
        "train_list",
        [(f"data_batch_{i}", _md5((folder / f"data_batch_{i}").read_bytes())) for i in range(1, 6)],
    )
    monkeypatch.setattr(
        datasets.CIFAR10, "test_list", [("test_batch", _md5((folder / "test_batch").read_bytes()))]
    )
    monkeypatch.setattr(
        datasets.CIFAR10,
        "meta",
        dict(datasets.CIFAR10.meta, md5=_md5((folder / "batches.meta").read_bytes())),
    )


def test_cifar_download_own_fallback(tmp_path, monkeypatch, cifar_files, no_torchvision):
    archive, src = _cifar_archive(tmp_path, cifar_files)
    _patch_cifar_md5s(monkeypatch, src, archive)
    log = []
    _serve(monkeypatch, {datasets.CIFAR10.url: archive}, log)
    root = tmp_path / "root"
    ds = datasets.CIFAR10(str(root), train=True, download=True)
    assert len(ds) == 20 and log == [datasets.CIFAR10.url]
    assert (root / "cifar-10-python.tar.gz").read_bytes() == archive
    assert not [p for p in os.listdir(root) if p.endswith(".part")]
    # files present with the right MD5: no second download
    datasets.CIFAR10(str(root), train=False, download=True)
    assert log == [datasets.CIFAR10.url]


def test_download_checksum_mismatch(tmp_path, monkeypatch, cifar_files, no_torchvision):
    archive, _ = _cifar_archive(tmp_path, cifar_files)
    _serve(
        monkeypatch, {datasets.CIFAR10.url: archive}, []
    )  # official MD5 kept: the bytes don't match it
    root = tmp_path / "root"
    with pytest.raises(RuntimeError, match="MD5 mismatch") as e:
        datasets.CIFAR10(str(root), download=True)
    assert datasets.CIFAR10.tgz_md5 in str(e.value)
    assert os.listdir(root) == []  # the temporary file is gone, nothing renamed into place


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink_out", "hardlink_out"])
def test_archive_member_outside_root_refused(
    tmp_path, monkeypatch, cifar_files, no_torchvision, kind
):
    def add_evil(tar):
        info = tarfile.TarInfo(
            {
                "dotdot": "cifar-10-batches-py/../../evil.txt",
                "absolute": "/tmp/evil.txt",
                "symlink_out": "cifar-10-batches-py/link",
                "hardlink_out": "cifar-10-batches-py/hard",
            }[kind]
        )
        payload = b"gotcha"
        if kind == "symlink_out":
            info.type, info.linkname = tarfile.SYMTYPE, "../../outside"
            payload = b""
        elif kind == "hardlink_out":
            info.type, info.linkname = tarfile.LNKTYPE, "../outside"
            payload = b""
        info.size = len(payload)
        tar.addfile(info, io.BytesIO(payload))

    archive, src = _cifar_archive(tmp_path, cifar_files, add_evil)
    _patch_cifar_md5s(monkeypatch, src, archive)
    _serve(monkeypatch, {datasets.CIFAR10.url: archive}, [])
    root = tmp_path / "root"
    with pytest.raises(RuntimeError, match="refusing to extract"):
        datasets.CIFAR10(str(root), download=True)
    assert not (tmp_path / "evil.txt").exists()
    assert not (root / "cifar-10-batches-py").exists()  # nothing extracted at all


def test_offline_download_error_names_files(tmp_path, monkeypatch, no_torchvision):
    log = []
    _serve(monkeypatch, {}, log)
    with pytest.raises(RuntimeError) as e:
        datasets.FashionMNIST(str(tmp_path), download=True)
    msg = str(e.value)
    assert "train-images-idx3-ubyte.gz" in msg and "no network" in msg
    assert str(tmp_path) in msg
    assert log and log[0].startswith("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/")


def test_mnist_download_own_fallback_with_mirrors(tmp_path, monkeypatch, idx_files, no_torchvision):
    src = tmp_path / "src"
    idx_files(str(src), gz=True)
    files = {f: (src / f).read_bytes() for f, _ in datasets.MNIST.resources}
    monkeypatch.setattr(datasets.MNIST, "resources", [(f, _md5(b)) for f, b in files.items()])
    second = datasets.MNIST.mirrors[1]
    log = []
    _serve(monkeypatch, {second + f: b for f, b in files.items()}, log)  # first mirror is "down"
    root = tmp_path / "root"
    ds = datasets.MNIST(str(root), train=False, download=True)
    assert len(ds) == 6
    assert sorted(os.listdir(root / "MNIST" / "raw")) == sorted(files)
    n = len(log)
    datasets.MNIST(str(root), download=True)
    assert len(log) == n  # already there


def test_present_files_with_other_md5_are_used(tmp_path, monkeypatch, idx_files, no_torchvision):
    """Valid IDX files compressed by someone else (so another MD5) need no download."""
    idx_files(str(tmp_path), gz=True)
    log = []
    _serve(monkeypatch, {}, log)
    ds = datasets.FashionMNIST(str(tmp_path), download=True)
    assert len(ds) == 12 and log == []


def test_download_uses_torchvision_when_installed(tmp_path, monkeypatch, idx_files):
    calls = []

    def fake_fashion(root, train=True, download=False):
        calls.append((root, train, download))
        idx_files(os.path.join(root, "FashionMNIST", "raw"), gz=True)

    tv = types.ModuleType("torchvision")
    tvd = types.ModuleType("torchvision.datasets")
    tvd.FashionMNIST = fake_fashion
    tv.datasets = tvd
    monkeypatch.setitem(sys.modules, "torchvision", tv)
    monkeypatch.setitem(sys.modules, "torchvision.datasets", tvd)
    ds = datasets.FashionMNIST(str(tmp_path), train=True, download=True)
    assert calls == [(str(tmp_path), True, True)] and len(ds) == 12


def test_read_idx_other_dtypes(tmp_path):
    import struct

    arr = np.arange(6, dtype=">i4").reshape(2, 3)
    raw = struct.pack(">HBB", 0, 0x0C, 2) + struct.pack(">2I", 2, 3) + arr.tobytes()
    (tmp_path / "x.idx.gz").write_bytes(gzip.compress(raw))
    out = datasets.read_idx(str(tmp_path / "x.idx.gz"))
    assert out.dtype == np.int32 and out.dtype.byteorder in "=<|"
    np.testing.assert_array_equal(out, arr)


# ------------------------------------------------------------------- hostile and lying files


def _peak_memory(fn):
    """Run ``fn`` (expected to raise DatasetFormatError); return the error and the peak memory
    traced while it ran."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(DatasetFormatError) as e:
            fn()
        return e.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_cifar_batch_with_self_referencing_label_lists(tmp_path, cifar_files):
    """4 KB whose labels are a list holding one list twice, 30 levels deep: 2**30 labels for
    numpy, refused before numpy sees them."""
    cifar_files(str(tmp_path))
    labels = [0]
    for _ in range(30):
        labels = [labels, labels]
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(
        pickle.dumps({"data": np.zeros((1, 3072), np.uint8), "labels": labels}, protocol=2)
    )
    assert path.stat().st_size < 4096
    error, peak = _peak_memory(lambda: datasets.CIFAR10(str(tmp_path), train=False))
    assert str(path) in str(error) and "'labels' must be a flat list of ints" in str(error)
    assert peak < 16 << 20


def test_cifar_batch_with_a_list_holding_itself(tmp_path, cifar_files):
    cifar_files(str(tmp_path))
    labels = [1, 2]
    labels.append(labels)
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(
        pickle.dumps({"data": np.zeros((3, 3072), np.uint8), "labels": labels}, protocol=2)
    )
    with pytest.raises(DatasetFormatError, match="flat list of ints") as e:
        datasets.CIFAR10(str(tmp_path), train=False)
    assert str(path) in str(e.value)


class _ClaimedArray:
    """Pickles as an ndarray whose state claims ``shape`` but carries ``data``."""

    def __init__(self, shape, data):
        self.shape, self.data = shape, data

    def __reduce__(self):
        reconstruct = np.ndarray.__reduce__(np.zeros(1, np.uint8))[0]
        return (
            reconstruct,
            (np.ndarray, (0,), b"b"),
            (1, self.shape, np.dtype(np.uint8), False, self.data),
        )


def test_cifar_batch_claiming_more_data_than_it_holds(tmp_path, cifar_files):
    cifar_files(str(tmp_path))
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    entry = {"data": _ClaimedArray((10000, 3072), b"\0" * 3072), "labels": [0] * 10000}
    path.write_bytes(pickle.dumps(entry, protocol=2))
    error, peak = _peak_memory(lambda: datasets.CIFAR10(str(tmp_path), train=False))
    assert str(path) in str(error)
    assert peak < 16 << 20


def test_cifar_batch_copying_one_string_many_times(tmp_path, cifar_files):
    """A few kilobytes asking _codecs.encode to copy one memoised 4 KB string 20000 times: 80 MB
    unbounded, over the peak allowed below, and far over the budget (a few hundred copies)."""
    import struct

    cifar_files(str(tmp_path))
    big = "x" * 4096
    payload = bytearray(
        b"\x80\x02c_codecs\nencode\nq\x00X"
        + struct.pack("<I", len(big))
        + big.encode()
        + b"q\x01X\x06\x00\x00\x00latin1q\x02("
    )
    payload += b"h\x00h\x01h\x02\x86R" * 20_000 + b"l."
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(bytes(payload))
    error, peak = _peak_memory(lambda: datasets.CIFAR10(str(tmp_path), train=False))
    assert str(path) in str(error) and "would build more than" in str(error)
    assert peak < 64 << 20


def _short(text):
    """SHORT_BINUNICODE-free protocol 2 text: BINUNICODE ``text``."""
    import struct

    return b"X" + struct.pack("<I", len(text)) + text.encode()


def test_cifar_batch_of_a_million_images_from_110_bytes(tmp_path, cifar_files):
    """numpy.ndarray called with a one-byte buffer and zero strides: a million images (2.9 GB
    once the dataset makes them contiguous) from a batch of about 110 bytes."""
    import struct

    cifar_files(str(tmp_path))
    ndarray = b"cnumpy\nndarray\nq\x00"
    data = b"h\x00(J" + struct.pack("<i", 10**6) + b"M\x00\x0c\x86" + _short("u1")
    data += b"C\x01xK\x00K\x00K\x00\x86tR"
    labels = b"h\x00(J" + struct.pack("<i", 10**6) + b"\x85" + _short("i8")
    labels += b"C\x08" + bytes(8) + b"K\x00K\x00\x85tR"
    payload = b"\x80\x03" + ndarray + b"}(" + _short("data") + data
    payload += _short("labels") + labels + b"u."
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(payload)
    assert path.stat().st_size < 120
    error, peak = _peak_memory(lambda: datasets.CIFAR10(str(tmp_path), train=False))
    assert str(path) in str(error) and "REDUCE may only call" in str(error)
    assert peak < 16 << 20


def test_cifar_batch_reconstructing_a_huge_empty_array(tmp_path, cifar_files):
    """_reconstruct(ndarray, (10**6, 3072), 'b'): pickles ask for shape (0,), this asks for 3 GB."""
    import struct

    cifar_files(str(tmp_path))
    payload = (
        b"\x80\x02cnumpy.core.multiarray\n_reconstruct\ncnumpy\nndarray\n"
        + b"J"
        + struct.pack("<i", 10**6)
        + b"M\x00\x0c\x86"
        + b"U\x01b\x87R."
    )
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    path.write_bytes(payload)
    error, peak = _peak_memory(lambda: datasets.CIFAR10(str(tmp_path), train=False))
    assert str(path) in str(error) and "_reconstruct would build more than" in str(error)
    assert peak < 16 << 20


def test_cifar_batch_cannot_build_an_array_of_python_objects(tmp_path, cifar_files):
    cifar_files(str(tmp_path))
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    labels = np.array([0, 1], dtype=object)
    path.write_bytes(
        pickle.dumps({"data": np.zeros((2, 3072), np.uint8), "labels": labels}, protocol=2)
    )
    with pytest.raises(DatasetFormatError, match="Python objects") as e:
        datasets.CIFAR10(str(tmp_path), train=False)
    assert str(path) in str(e.value)


def test_official_size_batches_are_checked_by_md5_without_download(
    tmp_path, monkeypatch, cifar_files
):
    """Stand-in batches take the place of official ones by making the official size theirs:
    test_batch has 5 images, the training batches 4."""
    cifar_files(str(tmp_path), per_batch=4, n_test=5)
    monkeypatch.setattr(datasets.CIFAR10, "images_per_batch", 5)
    path = tmp_path / "cifar-10-batches-py" / "test_batch"
    with pytest.raises(RuntimeError, match="MD5 is [0-9a-f]{32}, not the official") as e:
        datasets.CIFAR10(str(tmp_path), train=False, download=False)
    assert str(path) in str(e.value) and "check_integrity=False" in str(e.value)
    # the flag skips the check; batches of another size are never checked
    assert len(datasets.CIFAR10(str(tmp_path), train=False, check_integrity=False)) == 5
    assert len(datasets.CIFAR10(str(tmp_path), train=True)) == 20
    # the right checksum passes
    md5 = hashlib.md5(path.read_bytes()).hexdigest()
    monkeypatch.setattr(datasets.CIFAR10, "test_list", [("test_batch", md5)])
    assert len(datasets.CIFAR10(str(tmp_path), train=False)) == 5


@pytest.mark.parametrize("gz", [False, True])
def test_idx_file_claiming_more_than_it_holds(tmp_path, idx_files, gz):
    import struct

    idx_files(str(tmp_path), gz=gz)
    name = "train-images-idx3-ubyte" + (".gz" if gz else "")
    raw = (
        struct.pack(">HBB", 0, 0x08, 3)
        + struct.pack(">3I", 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF)
        + b"\0" * 64
    )
    path = tmp_path / name
    path.write_bytes(gzip.compress(raw) if gz else raw)
    error, peak = _peak_memory(lambda: datasets.MNIST(str(tmp_path)))
    assert str(path) in str(
        error
    ) and "announces shape (4294967295, 4294967295, 4294967295)" in str(error)
    assert peak < 1 << 20


def test_gzipped_idx_file_within_the_ratio_but_truncated(tmp_path, idx_files):
    import struct

    idx_files(str(tmp_path), gz=True)
    raw = struct.pack(">HBB", 0, 0x08, 3) + struct.pack(">3I", 12, 28, 28) + b"\0" * 100
    path = tmp_path / "train-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(raw))
    with pytest.raises(DatasetFormatError, match=r"file holds 100 bytes; it is truncated") as e:
        datasets.MNIST(str(tmp_path))
    assert str(path) in str(e.value)


def _tar(path, members):
    """A tar at ``path`` from (name, kind, payload-or-linkname) triples."""
    with tarfile.open(path, "w:gz") as tar:
        for name, kind, value in members:
            info = tarfile.TarInfo(name)
            if kind == "dir":
                info.type = tarfile.DIRTYPE
                info.mode = 0o755
                tar.addfile(info)
            elif kind == "sym":
                info.type, info.linkname = tarfile.SYMTYPE, value
                tar.addfile(info)
            elif kind == "hard":
                info.type, info.linkname = tarfile.LNKTYPE, value
                tar.addfile(info)
            else:
                info.size = len(value)
                tar.addfile(info, io.BytesIO(value))
    return path


def _all_files(root):
    return sorted(
        os.path.relpath(os.path.join(d, f), root)
        for d, dirs, files in os.walk(root)
        for f in files + dirs
    )


@pytest.mark.parametrize(
    "members",
    [
        # y -> ., then x -> y/.. : each link looks harmless alone, together x is the parent folder
        [("y", "sym", "."), ("x", "sym", "y/.."), ("x/escaped.txt", "file", b"gotcha")],
        # the same chain one folder down
        [
            ("d", "dir", None),
            ("d/y", "sym", "."),
            ("d/x", "sym", "y/../.."),
            ("d/x/escaped.txt", "file", b"gotcha"),
        ],
        # long-path chain (CVE-2025-4517): links through folders whose full path exceeds PATH_MAX,
        # where realpath stops resolving
        [(("a" * 240 + "/") * i + "a" * 240, "dir", None) for i in range(18)]
        + [
            ("a" * 240 + "/l", "sym", "../" * 2 + "a" * 240),
            ("b", "sym", ("a" * 240 + "/") * 17 + "../" * 20),
            ("b/escaped.txt", "file", b"gotcha"),
        ],
        # a hard link to a file outside, then written through
        [("h", "hard", "../outside.txt"), ("h", "file", b"gotcha")],
        # a harmless-looking link inside the folder
        [("data", "dir", None), ("latest", "sym", "data")],
    ],
)
def test_extraction_refuses_every_link_and_writes_nothing(tmp_path, members):
    outer = tmp_path / "outer"
    dest = outer / "root"
    dest.mkdir(parents=True)
    (outer / "outside.txt").write_bytes(b"original")
    archive = _tar(str(tmp_path / "evil.tar.gz"), members)
    with pytest.raises(RuntimeError, match="refusing to extract .*evil.tar.gz: member .* link"):
        _download.extract_archive(archive, str(dest))
    assert _all_files(dest) == []  # checked before anything is written
    assert _all_files(outer) == ["outside.txt", "root"]  # nothing written outside
    assert (outer / "outside.txt").read_bytes() == b"original"


def test_extraction_through_a_link_already_on_disk_is_refused(tmp_path):
    outer = tmp_path / "outer"
    dest = outer / "root"
    elsewhere = tmp_path / "elsewhere"
    dest.mkdir(parents=True)
    elsewhere.mkdir()
    os.symlink(elsewhere, dest / "cifar-10-batches-py")
    archive = _tar(str(tmp_path / "a.tar.gz"), [("cifar-10-batches-py/data_batch_1", "file", b"x")])
    with pytest.raises(RuntimeError, match="would land outside the destination folder"):
        _download.extract_archive(archive, str(dest))
    assert os.listdir(elsewhere) == []


def test_extraction_of_plain_files_and_folders(tmp_path):
    archive = _tar(
        str(tmp_path / "ok.tar.gz"),
        [("top", "dir", None), ("top/a.bin", "file", b"abc"), ("top/sub/b.bin", "file", b"")],
    )
    _download.extract_archive(archive, str(tmp_path / "out"))
    assert (tmp_path / "out" / "top" / "a.bin").read_bytes() == b"abc"
    assert (tmp_path / "out" / "top" / "sub" / "b.bin").read_bytes() == b""


def test_extraction_does_not_use_tarfile_extraction(tmp_path, monkeypatch):
    """The filter some Python patch releases lack is not what keeps files inside."""

    def forbidden(*args, **kwargs):
        raise AssertionError("tarfile extraction used")

    monkeypatch.setattr(tarfile.TarFile, "extract", forbidden)
    monkeypatch.setattr(tarfile.TarFile, "extractall", forbidden)
    archive = _tar(str(tmp_path / "ok.tar.gz"), [("a.bin", "file", b"abc")])
    _download.extract_archive(archive, str(tmp_path / "out"))
    assert (tmp_path / "out" / "a.bin").read_bytes() == b"abc"
