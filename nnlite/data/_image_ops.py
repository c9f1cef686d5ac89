"""Image operations on channels-first numpy arrays ``(..., C, H, W)``, the arithmetic behind the
vision transforms: resampling, padding, cropping, colour adjustments, rotation, dtype conversion.

They follow torchvision's tensor functions (``torchvision.transforms.functional``): the same
sampling grid as ``torch.nn.functional.interpolate`` (``align_corners=False``; with
``antialias=True`` the widened, normalised filters that Pillow also uses), the same luma weights,
HSV conversion and blending rules. Integer images are computed in floating point and rounded.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .._typing import Array

#: a resampling filter: the weights of distances to the sample (an array of them, or one number)
_Kernel = Callable[[Any], Any]
#: a fill value: one number, or one per channel
_Fill = float | Sequence[float]

NEAREST, NEAREST_EXACT, BILINEAR, BICUBIC = "nearest", "nearest-exact", "bilinear", "bicubic"


# ---------------------------------------------------------------------- value ranges
def max_value(dtype: Any) -> float:  # anything np.dtype takes
    """The value of full intensity: 1.0 for floating images, the dtype's maximum for integers."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return 1.0
    if dtype == np.bool_:
        return 1
    return np.iinfo(dtype).max


def _cast_like(values: Array, dtype: Any, round_integers: bool = True) -> Array:
    """Float ``values`` back to ``dtype``: rounded and clipped for integer images."""
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return values.astype(dtype, copy=False)
    if round_integers:
        values = np.round(values)
    info = np.iinfo(dtype)
    return np.clip(values, info.min, info.max).astype(dtype)


# ---------------------------------------------------------------------- resampling
def _triangle(x: Array) -> Array:
    return np.maximum(0.0, 1.0 - np.abs(x))


def _cubic(a: float) -> _Kernel:
    def kernel(x: Any) -> Any:
        x = np.abs(x)
        near = ((a + 2) * x - (a + 3)) * x * x + 1
        far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
        return np.where(x < 1, near, np.where(x < 2, far, 0.0))

    return kernel


def _antialias_weights(in_size: int, out_size: int, support: float, kernel: _Kernel) -> Array:
    """Rows of resampling weights with the filter widened by the downscaling factor (so every
    input pixel contributes), normalised to sum 1."""
    scale = in_size / out_size
    widen = max(scale, 1.0)
    reach = support * widen
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        center = (i + 0.5) * scale
        lo = max(int(center - reach + 0.5), 0)
        hi = min(int(center + reach + 0.5), in_size)
        taps = kernel((np.arange(lo, hi) - center + 0.5) / widen)
        total = taps.sum()
        weights[i, lo:hi] = taps / total if total else taps
    return weights


def _bilinear_weights(in_size: int, out_size: int) -> Array:
    scale = in_size / out_size
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        src = max((i + 0.5) * scale - 0.5, 0.0)
        i0 = int(src)
        i1 = min(i0 + 1, in_size - 1)
        frac = src - i0
        weights[i, i0] += 1.0 - frac
        weights[i, i1] += frac
    return weights


def _bicubic_weights(in_size: int, out_size: int) -> Array:
    scale = in_size / out_size
    kernel = _cubic(-0.75)
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        src = (i + 0.5) * scale - 0.5
        i0 = math.floor(src)
        frac = src - i0
        for offset in (-1, 0, 1, 2):
            weights[i, min(max(i0 + offset, 0), in_size - 1)] += kernel(offset - frac)
    return weights


def _nearest_indices(in_size: int, out_size: int, exact: bool) -> Array:
    scale = np.float32(in_size / out_size)
    positions = np.arange(out_size, dtype=np.float32) + np.float32(0.5 if exact else 0.0)
    result: Array = np.minimum(np.floor(positions * scale).astype(np.int64), in_size - 1)
    return result


def _weights(in_size: int, out_size: int, mode: str, antialias: bool) -> Array:
    if mode == BILINEAR:
        return (
            _antialias_weights(in_size, out_size, 1.0, _triangle)
            if antialias
            else _bilinear_weights(in_size, out_size)
        )
    if mode == BICUBIC:
        return (
            _antialias_weights(in_size, out_size, 2.0, _cubic(-0.5))
            if antialias
            else _bicubic_weights(in_size, out_size)
        )
    raise ValueError(
        f"unsupported interpolation mode {mode!r} (nearest, nearest-exact, bilinear, bicubic)"
    )


def resize(arr: Array, size: Sequence[int], mode: str = BILINEAR, antialias: bool = True) -> Array:
    """Resample the last two axes of ``arr`` to ``size = (height, width)``."""
    out_h, out_w = size
    in_h, in_w = arr.shape[-2:]
    if (out_h, out_w) == (in_h, in_w):
        result: Array = arr.copy()
        return result
    if mode in (NEAREST, NEAREST_EXACT):
        rows = _nearest_indices(in_h, out_h, mode == NEAREST_EXACT)
        cols = _nearest_indices(in_w, out_w, mode == NEAREST_EXACT)
        return arr[..., rows[:, None], cols]
    work = np.float64 if arr.dtype == np.float64 else np.float32
    rows = _weights(in_h, out_h, mode, antialias).astype(work)
    cols = _weights(in_w, out_w, mode, antialias).astype(work)
    out = rows @ arr.astype(work, copy=False) @ cols.T
    return _cast_like(out, arr.dtype)


# ---------------------------------------------------------------------- padding and cropping
def pad(
    arr: Array,
    left: int,
    top: int,
    right: int,
    bottom: int,
    fill: _Fill = 0,
    mode: str = "constant",
) -> Array:
    """Pad the last two axes; ``mode`` is ``constant`` (with ``fill``), ``edge``, ``reflect`` or
    ``symmetric``."""
    width = [(0, 0)] * (arr.ndim - 2) + [(top, bottom), (left, right)]
    if mode != "constant":
        # ``mode`` is one of numpy's modes (the transforms check it)
        result: Array = np.pad(arr, width, mode=mode)  # type: ignore[call-overload]
        return result
    if isinstance(fill, (tuple, list)):  # one value per channel
        if len(fill) == 1:
            fill = fill[0]
        else:
            if len(fill) != arr.shape[-3]:
                raise ValueError(
                    f"fill has {len(fill)} values for an image with {arr.shape[-3]} channels"
                )
            return np.stack(
                [
                    pad(arr[..., c, :, :], left, top, right, bottom, value)
                    for c, value in enumerate(fill)
                ],
                axis=-3,
            )
    return np.pad(arr, width, mode="constant", constant_values=fill)


def crop(arr: Array, top: int, left: int, height: int, width: int) -> Array:
    """The ``height x width`` window at ``(top, left)``; parts outside the image are zeros."""
    in_h, in_w = arr.shape[-2:]
    if top >= 0 and left >= 0 and top + height <= in_h and left + width <= in_w:
        return np.ascontiguousarray(arr[..., top : top + height, left : left + width])
    padded = pad(
        arr, max(-left, 0), max(-top, 0), max(left + width - in_w, 0), max(top + height - in_h, 0)
    )
    top, left = max(top, 0), max(left, 0)
    return np.ascontiguousarray(padded[..., top : top + height, left : left + width])


# ---------------------------------------------------------------------- colour
def rgb_to_grayscale(arr: Array) -> Array:
    """Luma ``0.2989 R + 0.587 G + 0.114 B`` as one channel of ``arr``'s dtype (``(..., 1, H, W)``)."""
    if arr.shape[-3] == 1:
        result: Array = arr.copy()
        return result
    if arr.shape[-3] != 3:
        raise TypeError(
            f"Input image tensor permitted channel values are [1, 3], but found {arr.shape[-3]}"
        )
    r, g, b = (arr[..., c, :, :].astype(np.float32) for c in range(3))
    luma = (0.2989 * r + 0.587 * g + 0.114 * b)[..., None, :, :]
    return _cast_like(luma, arr.dtype, round_integers=False)


def blend(image: Array, other: Array | float, ratio: float) -> Array:
    """``ratio * image + (1 - ratio) * other``, clipped to the image's value range."""
    work = image.dtype if image.dtype.kind == "f" else np.float32
    mixed = ratio * image.astype(work) + (1.0 - ratio) * np.asarray(other, dtype=work)
    mixed = np.clip(mixed, 0, max_value(image.dtype))
    return _cast_like(mixed, image.dtype, round_integers=False)


def adjust_brightness(arr: Array, factor: float) -> Array:
    return blend(arr, 0.0, factor)


def adjust_contrast(arr: Array, factor: float) -> Array:
    work = arr.dtype if arr.dtype.kind == "f" else np.float32
    mean = rgb_to_grayscale(arr).astype(work).mean(axis=(-3, -2, -1), keepdims=True)
    return blend(arr, mean, factor)


def adjust_saturation(arr: Array, factor: float) -> Array:
    if arr.shape[-3] == 1:
        return arr
    return blend(arr, rgb_to_grayscale(arr), factor)


def _rgb_to_hsv(rgb: Array) -> tuple[Array, Array, Array]:
    r, g, b = rgb[..., 0, :, :], rgb[..., 1, :, :], rgb[..., 2, :, :]
    maxc, minc = rgb.max(axis=-3), rgb.min(axis=-3)
    flat = maxc == minc
    spread = maxc - minc
    saturation = spread / np.where(flat, 1.0, maxc)
    divisor = np.where(flat, 1.0, spread)
    rc, gc, bc = (maxc - r) / divisor, (maxc - g) / divisor, (maxc - b) / divisor
    hue = np.where(maxc == r, bc - gc, np.where(maxc == g, 2.0 + rc - bc, 4.0 + gc - rc))
    hue = np.fmod(hue / 6.0 + 1.0, 1.0)
    return hue, saturation, maxc


def _hsv_to_rgb(hue: Array, saturation: Array, value: Array) -> Array:
    sector = np.floor(hue * 6.0)
    frac = hue * 6.0 - sector
    sector = sector.astype(np.int64) % 6
    p = np.clip(value * (1.0 - saturation), 0.0, 1.0)
    q = np.clip(value * (1.0 - saturation * frac), 0.0, 1.0)
    t = np.clip(value * (1.0 - saturation * (1.0 - frac)), 0.0, 1.0)
    # (R, G, B) of each of the six hue sectors
    table = [
        (value, t, p),
        (q, value, p),
        (p, value, t),
        (p, q, value),
        (t, p, value),
        (value, p, q),
    ]
    channels = [
        np.select([sector == k for k in range(6)], [row[c] for row in table]) for c in range(3)
    ]
    return np.stack(channels, axis=-3)


def adjust_hue(arr: Array, factor: float) -> Array:
    if not -0.5 <= factor <= 0.5:
        raise ValueError(f"hue_factor ({factor}) is not in [-0.5, 0.5].")
    if arr.shape[-3] == 1:
        return arr
    integer = arr.dtype.kind != "f"
    rgb = arr.astype(np.float32) / np.float32(255) if integer else arr
    hue, saturation, value = _rgb_to_hsv(rgb)
    out = _hsv_to_rgb((hue + factor) % 1.0, saturation, value)
    if integer:
        return (out * 255.0).astype(arr.dtype)
    return out.astype(arr.dtype, copy=False)


# ---------------------------------------------------------------------- rotation
def _rotated_size(height: int, width: int, cos: float, sin: float) -> tuple[int, int]:
    """The size that holds the whole image rotated (torchvision's tolerance against round-off)."""
    corners = np.array(
        [
            [-0.5 * width, -0.5 * height],
            [-0.5 * width, 0.5 * height],
            [0.5 * width, 0.5 * height],
            [0.5 * width, -0.5 * height],
        ],
        np.float32,
    )
    rotated = corners @ np.array([[cos, sin], [-sin, cos]], np.float32)
    tol = np.float32(1e-4)
    shift = np.array(
        [0.5 * width, 0.5 * height], np.float32
    )  # measured from the top-left corner, as Pillow
    high = np.ceil(np.trunc((rotated.max(axis=0) + shift) / tol) * tol)
    low = np.floor(np.trunc((rotated.min(axis=0) + shift) / tol) * tol)
    new_w, new_h = (high - low).astype(int)
    return int(new_h), int(new_w)


def rotate(
    arr: Array,
    angle: float,
    mode: str = NEAREST,
    expand: bool = False,
    center: Sequence[float] | None = None,
    fill: _Fill = 0,
) -> Array:
    """Rotate the last two axes ``angle`` degrees counter-clockwise about ``center`` (``(x, y)`` in
    pixels; default the image centre); pixels that come from outside the image get ``fill``."""
    in_h, in_w = arr.shape[-2:]
    theta = math.radians(angle)
    cos, sin = math.cos(theta), math.sin(theta)
    cx, cy = (in_w * 0.5, in_h * 0.5) if center is None else (float(center[0]), float(center[1]))
    out_h, out_w = _rotated_size(in_h, in_w, cos, sin) if expand else (in_h, in_w)
    # output pixel centres, relative to the centre of the output image shifted like ``center``
    ys = np.arange(out_h) + 0.5 - out_h * 0.5 - (cy - in_h * 0.5)
    xs = np.arange(out_w) + 0.5 - out_w * 0.5 - (cx - in_w * 0.5)
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    # source positions, in input pixel units with pixel centres at integers
    src_x = cos * gx - sin * gy + cx - 0.5
    src_y = sin * gx + cos * gy + cy - 0.5
    work = np.float64 if arr.dtype == np.float64 else np.float32
    if mode == NEAREST:
        ix, iy = np.rint(src_x).astype(np.int64), np.rint(src_y).astype(np.int64)
        inside = (ix >= 0) & (ix < in_w) & (iy >= 0) & (iy < in_h)
        out = arr[..., np.clip(iy, 0, in_h - 1), np.clip(ix, 0, in_w - 1)].astype(work)
        mask = inside.astype(work)
    elif mode == BILINEAR:
        x0, y0 = np.floor(src_x).astype(np.int64), np.floor(src_y).astype(np.int64)
        fx, fy = (src_x - x0).astype(work), (src_y - y0).astype(work)
        out = np.zeros(arr.shape[:-2] + (out_h, out_w), work)
        mask = np.zeros((out_h, out_w), work)
        for dy, wy in ((0, 1 - fy), (1, fy)):
            for dx, wx in ((0, 1 - fx), (1, fx)):
                ix, iy = x0 + dx, y0 + dy
                inside = (ix >= 0) & (ix < in_w) & (iy >= 0) & (iy < in_h)
                weight = wx * wy * inside
                out += arr[..., np.clip(iy, 0, in_h - 1), np.clip(ix, 0, in_w - 1)] * weight
                mask += weight
    else:
        raise ValueError(
            f"rotation supports the nearest and bilinear interpolation modes, got {mode!r}"
        )
    fill = np.asarray(0 if fill is None else fill, dtype=work)
    if fill.ndim == 1:
        fill = fill[:, None, None]
    if mode == NEAREST:
        out = np.where(mask > 0.5, out, fill)
    else:
        out = out * mask + (1.0 - mask) * fill
    return _cast_like(out, arr.dtype)


# ---------------------------------------------------------------------- dtype
def convert_dtype(arr: Array, dtype: Any) -> Array:  # anything np.dtype takes
    """torchvision's ``convert_image_dtype``: rescale values between the dtypes' intensity ranges."""
    src, dst = arr.dtype, np.dtype(dtype)
    if src == dst:
        return arr
    if src.kind == "f":
        if dst.kind == "f":
            return arr.astype(dst)
        if (src == np.float32 and dst in (np.int32, np.int64)) or (
            src == np.float64 and dst == np.int64
        ):
            raise RuntimeError(
                f"The cast from {_torch_name(src)} to {_torch_name(dst)} cannot be performed "
                f"safely."
            )
        eps = 1e-3
        return (arr * (max_value(dst) + 1.0 - eps)).astype(dst)
    src_max = max_value(src)
    if dst.kind == "f":
        result: Array = arr.astype(dst) / dst.type(src_max)
        return result
    dst_max = max_value(dst)
    if src_max > dst_max:
        factor = (src_max + 1) // (dst_max + 1)
        return (arr // factor).astype(dst)
    factor = (dst_max + 1) // (src_max + 1)
    result = arr.astype(dst) * dst.type(factor)
    return result


def _torch_name(dtype: Any) -> str:
    return f"nnlite.{np.dtype(dtype).name}"
