"""ImageFolder (PNG/JPEG files in class folders, decoded by Pillow) and FakeData."""

import sys

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import datasets
from nnlite.data import transforms as T
from nnlite.utils.data import DataLoader


@pytest.fixture
def image_root(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    rng = np.random.default_rng(0)
    written = {}
    for name, size, ext in [
        ("dog/b.png", (6, 5), "png"),
        ("cat/a.png", (4, 7), "png"),
        ("cat/nested/c.jpg", (8, 8), "jpeg"),
        ("dog/a.PNG", (3, 3), "png"),
    ]:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        pixels = rng.integers(0, 256, size=size + (3,), dtype=np.uint8)
        Image.fromarray(pixels).save(path, format=ext)
        written[name] = pixels
    (tmp_path / "cat" / "notes.txt").write_text("not an image")
    (tmp_path / "README").write_text("a file next to the class folders")
    return tmp_path, written


def test_classes_samples_and_items(image_root):
    root, written = image_root
    data = datasets.ImageFolder(root)
    assert data.classes == ["cat", "dog"] and data.class_to_idx == {"cat": 0, "dog": 1}
    relative = [(str(p)[len(str(root)) + 1 :], c) for p, c in data.samples]
    assert relative == [
        ("cat/a.png", 0),
        ("cat/nested/c.jpg", 0),
        ("dog/a.PNG", 1),
        ("dog/b.png", 1),
    ]
    assert data.targets == [0, 0, 1, 1] and data.imgs == data.samples and len(data) == 4
    image, label = data[0]
    assert label == 0 and image.dtype == np.uint8 and image.shape == (4, 7, 3)
    np.testing.assert_array_equal(image, written["cat/a.png"])  # PNG is lossless
    jpeg, _ = data[1]
    assert jpeg.shape == (8, 8, 3)  # JPEG decodes (lossy: values are close, not equal)
    assert np.abs(jpeg.astype(int) - written["cat/nested/c.jpg"].astype(int)).mean() < 60


def test_gray_images_are_converted_to_rgb(tmp_path):
    Image = pytest.importorskip("PIL.Image")
    (tmp_path / "x").mkdir()
    Image.fromarray(np.full((3, 4), 77, np.uint8)).save(tmp_path / "x" / "g.png")
    image, _ = datasets.ImageFolder(tmp_path)[0]
    assert image.shape == (3, 4, 3) and (image == 77).all()


def test_transforms_and_loader(image_root):
    root, _ = image_root
    tf = T.Compose([T.Resize((8, 8)), T.ToTensor(), T.Normalize((0.5,) * 3, (0.5,) * 3)])
    data = datasets.ImageFolder(root, transform=tf, target_transform=lambda c: c * 10)
    images, labels = next(iter(DataLoader(data, batch_size=4, shuffle=False)))
    assert images.shape == (4, 3, 8, 8) and labels.tolist() == [0, 0, 10, 10]
    assert -1.0 <= images.min().item() and images.max().item() <= 1.0


def test_is_valid_file_and_empty_classes(image_root, tmp_path):
    root, _ = image_root
    only_png = datasets.ImageFolder(root, is_valid_file=lambda p: p.endswith(".png"))
    assert len(only_png) == 2
    (root / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes empty"):
        datasets.ImageFolder(root)
    assert datasets.ImageFolder(root, allow_empty=True).classes == ["cat", "dog", "empty"]
    bare = tmp_path / "bare"
    bare.mkdir()
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder in"):
        datasets.ImageFolder(bare)
    with pytest.raises(FileNotFoundError, match="does not exist"):
        datasets.ImageFolder(tmp_path / "missing")


def test_without_pillow_the_error_names_the_extra(image_root, monkeypatch):
    root, _ = image_root
    data = datasets.ImageFolder(root)
    monkeypatch.setitem(sys.modules, "PIL", None)  # as if Pillow were not installed
    monkeypatch.setitem(sys.modules, "PIL.Image", None)
    with pytest.raises(
        ImportError, match=r"ImageFolder .*needs Pillow.*pip install 'nnlite\[vision\]'"
    ):
        data[0]


def test_fake_data():
    data = datasets.FakeData(size=20, image_size=(1, 28, 28), num_classes=3)
    image, label = data[5]
    assert image.shape == (28, 28, 1) and image.dtype == np.uint8 and label in (0, 1, 2)
    again, label_again = data[5]
    assert (image == again).all() and label == label_again  # the same item on every access
    assert not (data[6][0] == image).all()
    assert len(data) == 20 and {data[i][1] for i in range(20)} <= {0, 1, 2}
    shifted = datasets.FakeData(size=20, image_size=(1, 28, 28), num_classes=3, random_offset=1)
    assert (shifted[4][0] == image).all()
    state = nl.get_rng_state()
    np_state = np.random.get_state()[1].copy()  # noqa: NPY002  (FakeData must not touch it)
    data[0]
    assert nl.get_rng_state() == state and (np.random.get_state()[1] == np_state).all()  # noqa: NPY002  (FakeData must not touch it)
    with pytest.raises(IndexError, match="FakeData index out of range"):
        data[20]


def test_fake_data_in_a_loader():
    data = datasets.FakeData(size=10, image_size=(3, 8, 8), transform=T.ToTensor())
    images, labels = next(iter(DataLoader(data, batch_size=4, shuffle=True, seed=0)))
    assert images.shape == (4, 3, 8, 8) and images.dtype == nl.float32 and labels.dtype == nl.int64


# ------------------------------------------------------------------ hostile folders


def _listing(root, timeout=20):
    """``ImageFolder(root).samples`` as paths relative to ``root``, computed in a thread that
    must end within ``timeout`` seconds (a walk that never ends fails the test, not the run)."""
    import os
    import threading

    out = {}

    def run():
        try:
            out["samples"] = datasets.ImageFolder(root, allow_empty=True).samples
        except BaseException as e:  # handed to the test
            out["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout)
    assert not worker.is_alive(), f"listing {root} did not end in {timeout} s"
    if "error" in out:
        raise out["error"]
    return [(os.path.relpath(p, root), c) for p, c in out["samples"]]


def _touch(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\x89PNG")  # listing never opens the files


needs_links = pytest.mark.skipif(sys.platform == "win32", reason="symlinks and FIFOs: POSIX")


@needs_links
def test_links_to_their_own_folder_do_not_make_the_walk_endless(tmp_path):
    _touch(tmp_path / "cat" / "a.png")
    _touch(tmp_path / "cat" / "sub" / "b.png")
    for where in (tmp_path / "cat", tmp_path / "cat" / "sub"):
        (where / "self1").symlink_to(".")
        (where / "self2").symlink_to(".")
    (tmp_path / "cat" / "sub" / "parent").symlink_to("..")  # back to cat: a cycle too
    assert _listing(tmp_path) == [("cat/a.png", 0), ("cat/sub/b.png", 0)]


@needs_links
def test_a_link_up_to_the_root_does_not_relist_other_classes(tmp_path):
    _touch(tmp_path / "cat" / "c.png")
    _touch(tmp_path / "dog" / "d.png")
    (tmp_path / "cat" / "up").symlink_to("..")
    (tmp_path / "cat" / "elsewhere").symlink_to(tmp_path / "dog")
    with pytest.warns(UserWarning, match=r"not following 2 link\(s\) .*cat.*elsewhere -> .*dog"):
        listed = _listing(tmp_path)
    assert listed == [("cat/c.png", 0), ("dog/d.png", 1)]


@needs_links
def test_links_inside_the_class_folder_are_followed_once(tmp_path):
    _touch(tmp_path / "cat" / "real" / "r.png")
    (tmp_path / "cat" / "alias").symlink_to("real")  # walked first (sorted), real skipped
    outside = tmp_path.parent / (tmp_path.name + "_photos")
    _touch(outside / "o.png")
    (tmp_path / "cat" / "linked.png").symlink_to(outside / "o.png")  # a file link: kept
    (tmp_path / "cat" / "broken.png").symlink_to(tmp_path / "missing.png")
    (tmp_path / "dog").symlink_to(outside)  # a class folder that is a link: its own root
    assert _listing(tmp_path) == [
        ("cat/linked.png", 0),
        ("cat/alias/r.png", 0),
        ("dog/o.png", 1),
    ]


@needs_links
def test_a_fifo_named_like_an_image_is_not_listed(tmp_path):
    import os

    _touch(tmp_path / "cat" / "a.png")
    os.mkfifo(tmp_path / "cat" / "x.png")  # opening it would block until a writer came
    assert _listing(tmp_path) == [("cat/a.png", 0)]
