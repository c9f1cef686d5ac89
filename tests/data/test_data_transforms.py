"""Transforms against values computed by hand, per image and per batch."""
import numpy as np
import pytest

import nnlite as nl
from nnlite.data import transforms as T


def _img(h=5, w=6, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, c), dtype=np.uint8)


# ------------------------------------------------------------------------------------- ToTensor

@pytest.mark.parametrize("shape, out_shape", [
    ((5, 6, 3), (3, 5, 6)),
    ((5, 6, 1), (1, 5, 6)),
    ((5, 6), (1, 5, 6)),
    ((4, 5, 6, 3), (4, 3, 5, 6)),  # an NHWC batch
])
def test_to_tensor_layouts_and_scale(shape, out_shape):
    arr = np.random.default_rng(1).integers(0, 256, size=shape, dtype=np.uint8)
    out = T.ToTensor()(arr)
    assert isinstance(out, nl.Tensor) and out.dtype == nl.float32 and tuple(out.shape) == out_shape
    chw = arr[..., None] if arr.ndim == 2 else arr
    expect = np.moveaxis(chw, -1, -3).astype(np.float32) / np.float32(255)
    np.testing.assert_array_equal(out.numpy(), expect)
    assert out.numpy().min() >= 0 and out.numpy().max() <= 1


def test_to_tensor_values_and_dtypes():
    arr = np.array([[[0, 255, 51]]], dtype=np.uint8)  # 1x1x3
    assert T.ToTensor()(arr).numpy().ravel().tolist() == pytest.approx([0.0, 1.0, 0.2])
    f = np.full((2, 2, 1), 3.5, dtype=np.float64)  # non-uint8: no scaling, dtype kept
    out = T.ToTensor()(f)
    assert out.dtype == nl.float64 and out.numpy().ravel().tolist() == [3.5] * 4
    with pytest.raises(TypeError, match="got a Tensor"):
        T.ToTensor()(out)
    with pytest.raises(ValueError, match="HW or HWC image"):
        T.ToTensor()(np.zeros(3, np.uint8))


def test_to_tensor_batch_of_grayscale():
    batch = np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4)  # NHW
    out = T.ToTensor().apply_batch(batch)
    assert tuple(out.shape) == (2, 1, 3, 4)
    np.testing.assert_array_equal(out.numpy()[:, 0], batch / np.float32(255))


# ------------------------------------------------------------------------------------ Normalize

def test_normalize_per_channel():
    x = nl.from_numpy(np.stack([np.full((2, 2), 1.0), np.full((2, 2), 0.5), np.zeros((2, 2))]).astype(np.float32))
    before = x.numpy().copy()
    out = T.Normalize((0.5, 0.5, 0.0), (0.5, 0.25, 2.0))(x)
    assert out.dtype == nl.float32
    assert out.numpy()[:, 0, 0].tolist() == [1.0, 0.0, 0.0]
    np.testing.assert_array_equal(x.numpy(), before)  # input untouched
    batch = nl.from_numpy(np.stack([x.numpy(), x.numpy() * 2]))
    out_b = T.Normalize((0.5, 0.5, 0.0), (0.5, 0.25, 2.0))(batch)
    assert out_b.numpy()[1, :, 1, 1].tolist() == [3.0, 2.0, 0.0]
    single = T.Normalize(0.5, 0.5)(x)  # one value for every channel
    assert single.numpy()[:, 0, 0].tolist() == [1.0, 0.0, -1.0]


@pytest.mark.parametrize("mean, std, x, exc, message", [
    ((0.5, 0.5), (1, 1), np.zeros((3, 2, 2), np.float32), ValueError, "mean has 2 values for an input with 3 channels"),
    ((0.5,), (0,), np.zeros((1, 2, 2), np.float32), ValueError, "std evaluated to zero"),
    ((0.5,), (1,), np.zeros((1, 2, 2), np.uint8), TypeError, "apply ToTensor first"),
    ((0.5,), (1,), np.zeros((2, 2), np.float32), ValueError, "CHW tensor"),
])
def test_normalize_errors(mean, std, x, exc, message):
    with pytest.raises(exc, match=message):
        T.Normalize(mean, std)(nl.from_numpy(x))


# ----------------------------------------------------------------------------------- RandomCrop

def _windows(padded, size):
    """Every size x size window of an HWC image."""
    h, w = padded.shape[:2]
    return [padded[i:i + size, j:j + size] for i in range(h - size + 1) for j in range(w - size + 1)]


def _is_window(out, padded, size):
    return any(np.array_equal(out, win) for win in _windows(padded, size))


def test_random_crop_hwc_is_a_window_of_the_padded_image():
    img = _img(6, 6)
    padded = np.pad(img, ((2, 2), (2, 2), (0, 0)))
    np.random.seed(0)
    crop = T.RandomCrop(6, padding=2)
    outs = [crop(img) for _ in range(30)]
    assert all(o.shape == (6, 6, 3) and o.dtype == np.uint8 for o in outs)
    assert all(_is_window(o, padded, 6) for o in outs)
    assert len({o.tobytes() for o in outs}) > 5  # several different offsets


def test_random_crop_same_rng_same_crop_for_hwc_array_and_chw_tensor():
    img = _img(8, 8)
    np.random.seed(3)
    a = T.RandomCrop(5, padding=1)(img)
    np.random.seed(3)
    b = T.RandomCrop(5, padding=1)(nl.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))))
    assert isinstance(b, nl.Tensor) and tuple(b.shape) == (3, 5, 5)
    np.testing.assert_array_equal(b.numpy(), a.transpose(2, 0, 1))


@pytest.mark.parametrize("layout", ["NHWC array", "NCHW tensor", "NHW array"])
def test_random_crop_batch_each_image_its_own_window(layout):
    base = _img(6, 6)
    batch = np.stack([base] * 40)
    if layout == "NCHW tensor":
        batch = nl.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2)))
    elif layout == "NHW array":
        batch = np.ascontiguousarray(batch[..., 0])
    np.random.seed(1)
    out = T.RandomCrop(4, padding=1).apply_batch(batch)
    arr = out.numpy() if isinstance(out, nl.Tensor) else out
    if layout == "NCHW tensor":
        arr = arr.transpose(0, 2, 3, 1)
    padded = np.pad(base, ((1, 1), (1, 1), (0, 0)))
    if layout == "NHW array":
        padded = padded[..., 0]
    assert arr.shape[:3] == (40, 4, 4)
    assert all(_is_window(o, padded, 4) for o in arr)
    assert len({o.tobytes() for o in arr}) > 5
    # __call__ on a 4-d batch takes the same path
    np.random.seed(1)
    again = T.RandomCrop(4, padding=1)(batch)
    if layout != "NHW array":
        np.testing.assert_array_equal(again.numpy() if isinstance(again, nl.Tensor) else again,
                                      out.numpy() if isinstance(out, nl.Tensor) else out)


def test_random_crop_padding_forms_and_errors():
    img = np.ones((4, 4, 1), np.uint8)
    out = T.RandomCrop((6, 8), padding=(2, 1))(img)  # left/right 2, top/bottom 1
    assert out.shape == (6, 8, 1) and out.sum() == 16
    out = T.RandomCrop(4, padding=(1, 0, 0, 0))(img)  # left only
    assert out.shape == (4, 4, 1)
    edge = T.RandomCrop(6, padding=1, padding_mode="edge")(img)
    assert edge.sum() == 36
    assert T.RandomCrop(6, pad_if_needed=True)(img).shape == (6, 6, 1)
    with pytest.raises(ValueError, match=r"crop size \(5, 5\) is larger than the \(padded\) image size \(4, 4\)"):
        T.RandomCrop(5)(img)


# ------------------------------------------------------------------------- RandomHorizontalFlip

def test_flip_hwc_and_chw():
    img = _img(3, 4)
    np.testing.assert_array_equal(T.RandomHorizontalFlip(p=1)(img), img[:, ::-1])
    assert T.RandomHorizontalFlip(p=0)(img) is img
    chw = nl.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1)))
    np.testing.assert_array_equal(T.RandomHorizontalFlip(p=1)(chw).numpy(), chw.numpy()[:, :, ::-1])
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\]"):
        T.RandomHorizontalFlip(p=2)


@pytest.mark.parametrize("as_tensor", [False, True])
def test_flip_batch_per_image(as_tensor):
    base = _img(3, 4)
    batch = np.stack([base] * 64)
    if as_tensor:
        batch = nl.from_numpy(np.ascontiguousarray(batch.transpose(0, 3, 1, 2)))
    np.random.seed(0)
    out = T.RandomHorizontalFlip().apply_batch(batch)
    arr = out.numpy().transpose(0, 2, 3, 1) if as_tensor else out
    flipped = [np.array_equal(o, base[:, ::-1]) for o in arr]
    same = [np.array_equal(o, base) for o in arr]
    assert all(f or s for f, s in zip(flipped, same))
    assert 10 < sum(flipped) < 54
    np.random.seed(0)
    expect = np.random.random(64) < 0.5
    assert flipped == expect.tolist()


# ------------------------------------------------------------------------------ Compose, Lambda

def test_compose_batch_equals_per_image():
    tf = T.Compose([T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7)), T.Lambda(lambda t: t * 2)])
    batch = np.stack([_img(seed=s) for s in range(4)])
    per = np.stack([tf(b).numpy() for b in batch])
    whole = tf.apply_batch(batch)
    assert isinstance(whole, nl.Tensor)
    np.testing.assert_array_equal(whole.numpy(), per)
    assert "Normalize(mean=(0.1, 0.2, 0.3)" in repr(tf)


def test_lambda():
    assert T.Lambda(lambda x: x + 1)(1) == 2
    calls = []
    lam = T.Lambda(lambda b: calls.append(b.shape) or b, batched=True)
    lam.apply_batch(np.zeros((3, 2, 2)))
    assert calls == [(3, 2, 2)]
    with pytest.raises(TypeError, match="should be callable"):
        T.Lambda(3)


def test_random_transforms_reproducible_with_numpy_seed():
    tf = T.Compose([T.RandomCrop(4, padding=2), T.RandomHorizontalFlip(), T.ToTensor()])
    batch = np.stack([_img(6, 6, seed=s) for s in range(8)])
    np.random.seed(11)
    a = tf.apply_batch(batch).numpy()
    np.random.seed(11)
    b = tf.apply_batch(batch).numpy()
    np.testing.assert_array_equal(a, b)
