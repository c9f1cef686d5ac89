"""Transforms against values computed by hand, per image and per batch."""

import numpy as np
import pytest

import nnlite as nl
from nnlite.data import transforms as T


def _img(h=5, w=6, c=3, seed=0):
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, c), dtype=np.uint8)


# ------------------------------------------------------------------------------------- ToTensor


@pytest.mark.parametrize(
    "shape, out_shape",
    [
        ((5, 6, 3), (3, 5, 6)),
        ((5, 6, 1), (1, 5, 6)),
        ((5, 6), (1, 5, 6)),
        ((4, 5, 6, 3), (4, 3, 5, 6)),  # an NHWC batch
    ],
)
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
    x = nl.from_numpy(
        np.stack([np.full((2, 2), 1.0), np.full((2, 2), 0.5), np.zeros((2, 2))]).astype(np.float32)
    )
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


@pytest.mark.parametrize(
    "mean, std, x, exc, message",
    [
        (
            (0.5, 0.5),
            (1, 1),
            np.zeros((3, 2, 2), np.float32),
            ValueError,
            "mean has 2 values for an input with 3 channels",
        ),
        ((0.5,), (0,), np.zeros((1, 2, 2), np.float32), ValueError, "std evaluated to zero"),
        ((0.5,), (1,), np.zeros((1, 2, 2), np.uint8), TypeError, "apply ToTensor first"),
        ((0.5,), (1,), np.zeros((2, 2), np.float32), ValueError, "CHW tensor"),
    ],
)
def test_normalize_errors(mean, std, x, exc, message):
    with pytest.raises(exc, match=message):
        T.Normalize(mean, std)(nl.from_numpy(x))


# ----------------------------------------------------------------------------------- RandomCrop


def _windows(padded, size):
    """Every size x size window of an HWC image."""
    h, w = padded.shape[:2]
    return [
        padded[i : i + size, j : j + size] for i in range(h - size + 1) for j in range(w - size + 1)
    ]


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
        np.testing.assert_array_equal(
            again.numpy() if isinstance(again, nl.Tensor) else again,
            out.numpy() if isinstance(out, nl.Tensor) else out,
        )


def test_random_crop_padding_forms_and_errors():
    img = np.ones((4, 4, 1), np.uint8)
    out = T.RandomCrop((6, 8), padding=(2, 1))(img)  # left/right 2, top/bottom 1
    assert out.shape == (6, 8, 1) and out.sum() == 16
    out = T.RandomCrop(4, padding=(1, 0, 0, 0))(img)  # left only
    assert out.shape == (4, 4, 1)
    edge = T.RandomCrop(6, padding=1, padding_mode="edge")(img)
    assert edge.sum() == 36
    assert T.RandomCrop(6, pad_if_needed=True)(img).shape == (6, 6, 1)
    with pytest.raises(
        ValueError, match=r"crop size \(5, 5\) is larger than the \(padded\) image size \(4, 4\)"
    ):
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
    tf = T.Compose(
        [T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), (0.5, 0.6, 0.7)), T.Lambda(lambda t: t * 2)]
    )
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


# ====================================================================== torchvision's vision transforms
# Expected values come from PyTorch's interpolate / pad (the functions torchvision's tensor path
# uses), from Pillow, or from the definitions in torchvision's documentation, computed by hand.


def _chw(seed=0, shape=(3, 11, 14)):
    return nl.from_numpy(np.random.default_rng(seed).random(shape, dtype=np.float32))


@pytest.mark.parametrize("mode", ["bilinear", "bicubic"])
@pytest.mark.parametrize("antialias", [True, False])
@pytest.mark.parametrize("size", [(5, 7), (23, 9), (11, 30)])
def test_resize_equals_torch_interpolate(mode, antialias, size):
    torch = pytest.importorskip("torch")
    img = _chw()
    out = T.Resize(size, interpolation=T.InterpolationMode(mode), antialias=antialias)(img)
    ref = torch.nn.functional.interpolate(
        torch.from_numpy(img.numpy()[None]),
        size=size,
        mode=mode,
        align_corners=False,
        antialias=antialias,
    )[0].numpy()
    np.testing.assert_allclose(out.numpy(), ref, rtol=1e-5, atol=2e-6)


@pytest.mark.parametrize("mode", ["nearest", "nearest-exact"])
@pytest.mark.parametrize("size", [(5, 7), (23, 9), (4, 13)])
def test_resize_nearest_equals_torch(mode, size):
    torch = pytest.importorskip("torch")
    img = np.random.default_rng(2).integers(0, 256, size=(32, 32, 3), dtype=np.uint8)  # HWC array
    out = T.Resize(size, interpolation=mode)(img)
    ref = torch.nn.functional.interpolate(
        torch.from_numpy(np.moveaxis(img, -1, 0)[None].astype(np.float32)), size=size, mode=mode
    )[0].numpy()
    np.testing.assert_array_equal(np.moveaxis(out, -1, 0), ref.astype(np.uint8))


@pytest.mark.parametrize("interpolation", ["bilinear", "bicubic"])
def test_resize_uint8_arrays_match_pillow_within_one_level(interpolation):
    Image = pytest.importorskip("PIL.Image")
    img = np.random.default_rng(3).integers(0, 256, size=(20, 30, 3), dtype=np.uint8)
    resample = {"bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC}[interpolation]
    for size in [(10, 15), (33, 17), (7, 40)]:
        ours = T.Resize(size, interpolation=interpolation)(img)
        ref = np.asarray(Image.fromarray(img).resize(size[::-1], resample))
        assert ours.dtype == np.uint8 and ours.shape == ref.shape
        assert np.abs(ours.astype(int) - ref.astype(int)).max() <= 1


@pytest.mark.parametrize(
    "shape, size, max_size, out_hw",
    [
        ((3, 32, 48), 16, None, (16, 24)),  # the shorter edge becomes 16
        ((3, 48, 32), [16], None, (24, 16)),
        ((3, 30, 45), 20, None, (20, 30)),
        ((3, 32, 64), 16, 20, (10, 20)),  # the longer edge would be 32 > max_size
        ((3, 10, 10), (4, 6), None, (4, 6)),
    ],
)
def test_resize_output_size_rules(shape, size, max_size, out_hw):
    assert T.Resize(size, max_size=max_size)(nl.rand(*shape)).shape[-2:] == out_hw


def test_resize_layouts_batches_and_errors():
    img = np.random.default_rng(4).integers(0, 256, size=(12, 10, 3), dtype=np.uint8)
    batch = np.stack([img, img[::-1]])
    one = T.Resize((6, 5))
    assert one(img).shape == (6, 5, 3) and one(img[:, :, 0]).shape == (6, 5)
    np.testing.assert_array_equal(T.apply_batch(one, batch)[1], one(img[::-1]))
    as_tensor = one(T.PILToTensor()(img))
    np.testing.assert_array_equal(as_tensor.numpy(), np.moveaxis(one(img), -1, 0))
    assert T.apply_batch(one, nl.rand(4, 3, 12, 10)).shape == (4, 3, 6, 5)
    with pytest.raises(TypeError, match="Size should be int or sequence"):
        T.Resize("big")
    with pytest.raises(ValueError, match="it should have 1 or 2 values"):
        T.Resize((1, 2, 3))
    with pytest.raises(ValueError, match="must be strictly greater than the requested size"):
        T.Resize(16, max_size=16)(nl.rand(3, 20, 30))
    assert (
        repr(T.Resize(16))
        == "Resize(size=16, interpolation=bilinear, max_size=None, antialias=True)"
    )


def test_center_crop_by_hand():
    img = np.arange(5 * 6, dtype=np.uint8).reshape(5, 6, 1)
    out = T.CenterCrop((3, 2))(img)
    # top = round((5 - 3) / 2) = 1, left = round((6 - 2) / 2) = 2
    np.testing.assert_array_equal(out[:, :, 0], img[1:4, 2:4, 0])
    out = T.CenterCrop(4)(img)  # top = round(0.5) = 0 (round half to even), left = 1
    np.testing.assert_array_equal(out[:, :, 0], img[0:4, 1:5, 0])
    tensor = nl.from_numpy(np.arange(12, dtype=np.float32).reshape(1, 3, 4))
    padded = T.CenterCrop((5, 6))(tensor).numpy()[
        0
    ]  # larger than the image: zero padding around it
    expect = np.zeros((5, 6), np.float32)
    expect[1:4, 1:5] = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(padded, expect)
    assert T.apply_batch(T.CenterCrop(2), nl.rand(3, 1, 5, 5)).shape == (3, 1, 2, 2)


def test_random_resized_crop():
    img = _chw(shape=(3, 40, 60))
    out = T.RandomResizedCrop(16)(img)
    assert out.shape == (3, 16, 16)
    for _ in range(20):
        top, left, h, w = T.RandomResizedCrop.get_params(
            img, scale=(0.08, 1.0), ratio=(0.75, 4 / 3)
        )
        assert (
            0 <= top
            and 0 <= left
            and top + h <= 40
            and left + w <= 60
            and 0.08 * 2400 * 0.9 <= h * w
        )
        assert 0.75 * 0.9 <= w / h <= 4 / 3 * 1.1
    # the whole image, at its own aspect ratio: the same as resizing it
    whole = T.RandomResizedCrop((20, 30), scale=(1.0, 1.0), ratio=(1.5, 1.5))(img)
    np.testing.assert_allclose(whole.numpy(), T.Resize((20, 30))(img).numpy(), rtol=1e-6)
    # impossible ratio: ten failed draws, then the centre crop at the closest ratio
    assert T.RandomResizedCrop.get_params(img, scale=(1.0, 1.0), ratio=(3.0, 3.0)) == (
        10,
        0,
        20,
        60,
    )
    batch = T.apply_batch(T.RandomResizedCrop(8), nl.rand(5, 3, 20, 20))
    assert batch.shape == (5, 3, 8, 8)


def test_color_jitter_fixed_factors_by_hand():
    img = nl.tensor([[[0.2, 0.9]], [[0.4, 0.1]], [[0.6, 0.5]]])  # 3 x 1 x 2
    bright = T.ColorJitter(brightness=(1.5, 1.5))(img).numpy()
    np.testing.assert_allclose(bright, np.clip(img.numpy() * 1.5, 0, 1), rtol=1e-6)
    gray = 0.2989 * img.numpy()[0] + 0.587 * img.numpy()[1] + 0.114 * img.numpy()[2]
    contrast = T.ColorJitter(contrast=(0.5, 0.5))(img).numpy()
    np.testing.assert_allclose(
        contrast, np.clip(0.5 * img.numpy() + 0.5 * gray.mean(), 0, 1), rtol=1e-5
    )
    desaturated = T.ColorJitter(saturation=(0.0, 0.0))(img).numpy()
    np.testing.assert_allclose(desaturated, np.broadcast_to(gray, (3, 1, 2)), rtol=1e-5)
    pure = nl.tensor([[[1.0, 0.0]], [[0.0, 1.0]], [[0.0, 0.0]]])  # red, green
    shifted = T.ColorJitter(hue=(0.5, 0.5))(pure).numpy()  # half-way round the hue circle
    np.testing.assert_allclose(shifted[:, 0, 0], [0.0, 1.0, 1.0], atol=1e-6)  # red -> cyan
    np.testing.assert_allclose(shifted[:, 0, 1], [1.0, 0.0, 1.0], atol=1e-6)  # green -> magenta
    third = T.ColorJitter(hue=(1 / 3, 1 / 3))(pure).numpy()
    np.testing.assert_allclose(third[:, 0, 0], [0.0, 1.0, 0.0], atol=1e-5)  # red -> green


def test_color_jitter_uint8_and_ranges():
    img = np.array([[[100, 200, 50]]], dtype=np.uint8)  # 1 x 1 HWC
    out = T.ColorJitter(brightness=(2.0, 2.0))(img)
    assert out.dtype == np.uint8 and out.tolist() == [[[200, 255, 100]]]
    jitter = T.ColorJitter(brightness=0.5, contrast=1.5, hue=0.2)
    assert (
        jitter.brightness == [0.5, 1.5]
        and jitter.contrast == [0.0, 2.5]
        and jitter.hue == [-0.2, 0.2]
    )
    assert jitter.saturation is None
    with pytest.raises(
        ValueError, match="If brightness is a single number, it must be non negative."
    ):
        T.ColorJitter(brightness=-1)
    with pytest.raises(ValueError, match="hue values should be between"):
        T.ColorJitter(hue=0.7)
    gray = np.full((4, 4, 1), 90, np.uint8)
    assert (
        T.ColorJitter(saturation=0.5, hue=0.3)(gray).tolist() == gray.tolist()
    )  # no colour to change
    batch = T.apply_batch(T.ColorJitter(brightness=0.9), nl.rand(6, 3, 4, 4) * 0.5 + 0.25)
    means = [float(b.mean()) for b in batch]
    assert len(set(round(m, 5) for m in means)) > 1  # every image draws its own factor


def test_grayscale_by_hand():
    img = np.array([[[255, 0, 0], [10, 20, 30]]], dtype=np.uint8)
    out = T.Grayscale()(img)
    # 0.2989 * 255 = 76.2 -> 76; 0.2989*10 + 0.587*20 + 0.114*30 = 18.159 -> 18 (truncated, as torchvision)
    assert out.shape == (1, 2, 1) and out[:, :, 0].tolist() == [[76, 18]]
    three = T.Grayscale(num_output_channels=3)(img)
    assert three.shape == (1, 2, 3) and three[0, 1].tolist() == [18, 18, 18]
    assert T.RandomGrayscale(p=1.0)(img).tolist() == three.tolist()
    assert T.RandomGrayscale(p=0.0)(img).tolist() == img.tolist()
    with pytest.raises(ValueError, match="num_output_channels should be either 1 or 3"):
        T.Grayscale(2)


def test_random_rotation_by_quarter_turns():
    img = np.random.default_rng(5).integers(0, 256, size=(6, 6, 2), dtype=np.uint8)
    np.testing.assert_array_equal(
        T.RandomRotation((90, 90))(img), np.rot90(img)
    )  # counter-clockwise
    np.testing.assert_array_equal(T.RandomRotation((-90, -90))(img), np.rot90(img, -1))
    t = nl.from_numpy(np.moveaxis(img, -1, 0).astype(np.float32))
    np.testing.assert_array_equal(T.RandomRotation((180, 180))(t).numpy(), t.numpy()[:, ::-1, ::-1])


@pytest.mark.parametrize("angle", [30.0, -17.0, 45.0, 123.0])
def test_random_rotation_matches_pillow_nearest(angle):
    Image = pytest.importorskip("PIL.Image")
    img = np.random.default_rng(6).integers(1, 256, size=(9, 14), dtype=np.uint8)
    for expand in (False, True):
        ours = T.RandomRotation((angle, angle), expand=expand)(img)
        ref = np.asarray(Image.fromarray(img).rotate(angle, resample=Image.NEAREST, expand=expand))
        assert ours.shape == ref.shape
        assert (
            ours != ref
        ).mean() < 0.02  # Pillow rounds coordinates in fixed point: a rare pixel differs


def test_random_rotation_fill_and_bilinear():
    img = nl.ones(3, 8, 8)
    out = T.RandomRotation((45, 45), fill=(0.5, 0.25, 0.0))(img).numpy()
    assert out[:, 0, 0].tolist() == [0.5, 0.25, 0.0] and out[:, 4, 4].tolist() == [1.0, 1.0, 1.0]
    smooth = T.RandomRotation((10, 10), interpolation=T.InterpolationMode.BILINEAR)(img).numpy()
    assert smooth[:, 4, 4].tolist() == [1.0, 1.0, 1.0] and 0 < smooth.min() < 1
    with pytest.raises(ValueError, match="If degrees is a single number, it must be positive."):
        T.RandomRotation(-5)
    with pytest.raises(ValueError, match="apply it to single images"):
        T.apply_batch(T.RandomRotation(30, expand=True), nl.rand(2, 1, 5, 5))
    batch = T.apply_batch(T.RandomRotation(90), nl.rand(1, 1, 6, 6).expand(8, 1, 6, 6))
    assert len({tuple(b.numpy().ravel().round(5)) for b in batch}) > 1  # each image its own angle


@pytest.mark.parametrize(
    "padding_mode, torch_mode", [("edge", "replicate"), ("reflect", "reflect")]
)
def test_pad_modes_equal_torch_pad(padding_mode, torch_mode):
    torch = pytest.importorskip("torch")
    img = _chw(shape=(2, 5, 6))
    out = T.Pad((1, 2, 3, 4), padding_mode=padding_mode)(img)
    ref = torch.nn.functional.pad(
        torch.from_numpy(img.numpy()[None]), (1, 3, 2, 4), mode=torch_mode
    )[0]
    np.testing.assert_array_equal(out.numpy(), ref.numpy())


def test_pad_by_hand():
    img = np.array([[1, 2], [3, 4]], dtype=np.uint8)
    assert T.Pad(1, fill=9)(img).tolist() == [
        [9, 9, 9, 9],
        [9, 1, 2, 9],
        [9, 3, 4, 9],
        [9, 9, 9, 9],
    ]
    assert T.Pad((1, 0), padding_mode="symmetric")(img).tolist() == [[1, 1, 2, 2], [3, 3, 4, 4]]
    rgb = np.zeros((1, 1, 3), np.uint8)
    assert T.Pad((0, 0, 1, 0), fill=(10, 20, 30))(rgb)[0, 1].tolist() == [10, 20, 30]
    with pytest.raises(
        ValueError, match="Padding must be an int or a 1, 2, or 4 element tuple, not a 3"
    ):
        T.Pad((1, 2, 3))
    with pytest.raises(
        ValueError, match="Padding mode should be either constant, edge, reflect or symmetric"
    ):
        T.Pad(1, padding_mode="wrap")
    assert repr(T.Pad(2)) == "Pad(padding=2, fill=0, padding_mode=constant)"


def test_pil_conversions():
    Image = pytest.importorskip("PIL.Image")
    rgb = np.random.default_rng(7).integers(0, 256, size=(4, 5, 3), dtype=np.uint8)
    pil = T.ToPILImage()(rgb)
    assert isinstance(pil, Image.Image) and pil.mode == "RGB" and pil.size == (5, 4)
    back = T.PILToTensor()(pil)
    assert back.dtype == nl.uint8 and back.numpy().tolist() == np.moveaxis(rgb, -1, 0).tolist()
    gray = T.ToPILImage()(nl.tensor([[[0.0, 0.5, 1.0]]]))
    # floats are scaled by 255 and truncated, as torchvision: 0.5 -> 127
    assert gray.mode == "L" and np.asarray(gray).tolist() == [[0, 127, 255]]
    assert T.ToPILImage()(np.zeros((2, 2, 4), np.uint8)).mode == "RGBA"
    resized = T.Resize((2, 3))(pil)  # PIL in, PIL out
    assert isinstance(resized, Image.Image) and resized.size == (3, 2)
    assert T.ToTensor()(pil).shape == (3, 4, 5)
    with pytest.raises(TypeError, match="pic should be PIL Image"):
        T.PILToTensor()(nl.zeros(3, 2, 2))
    with pytest.raises(ValueError, match="pic should be 2/3 dimensional. Got 4 dimensions."):
        T.ToPILImage()(nl.zeros(1, 3, 2, 2))


def test_convert_image_dtype_by_hand():
    u8 = nl.tensor([0, 128, 255], dtype=nl.uint8)
    as_float = T.ConvertImageDtype(nl.float32)(u8)
    assert as_float.dtype == nl.float32 and as_float.tolist() == pytest.approx(
        [0.0, 128 / 255, 1.0]
    )
    back = T.ConvertImageDtype(nl.uint8)(nl.tensor([0.0, 0.5, 1.0]))
    assert back.tolist() == [0, 127, 255]  # x * (255 + 1 - 0.001), truncated
    assert T.ConvertImageDtype(nl.int16)(u8).tolist() == [0, 128 * 128, 255 * 128]
    assert T.ConvertImageDtype(nl.uint8)(nl.tensor([0, 32767], dtype=nl.int16)).tolist() == [0, 255]
    with pytest.raises(RuntimeError, match="cannot be performed safely"):
        T.ConvertImageDtype(nl.int64)(nl.tensor([0.5]))


def test_convert_image_dtype_matches_torchvision_definition_via_torch():
    torch = pytest.importorskip("torch")
    values = np.linspace(0, 1, 101, dtype=np.float32)
    ours = T.ConvertImageDtype(nl.uint8)(nl.from_numpy(values)).numpy()
    ref = (torch.from_numpy(values) * (255 + 1.0 - 1e-3)).to(torch.uint8).numpy()
    np.testing.assert_array_equal(ours, ref)


def test_vision_transforms_compose_in_a_loader():
    from nnlite.utils.data import DataLoader, TensorDataset

    tf = T.Compose(
        [
            T.RandomResizedCrop(8),
            T.ColorJitter(0.2, 0.2, 0.2),
            T.RandomRotation(10),
            T.Grayscale(3),
            T.Pad(1),
            T.CenterCrop(8),
        ]
    )
    data = TensorDataset(nl.rand(6, 3, 12, 12))
    for (batch,) in DataLoader(data, batch_size=3):
        out = T.apply_batch(tf, batch)
        assert out.shape == (3, 3, 8, 8) and out.dtype == nl.float32
