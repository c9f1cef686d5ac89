"""Image transforms, per sample and per batch.

Layouts: numpy arrays are channels-last (``HW``, ``HWC``; a batch is ``NHWC``), tensors are
channels-first (``HW``, ``CHW``; a batch is ``NCHW``), as a dataset's raw images and
``ToTensor``'s output are. Called on one image, a transform also accepts a 4-d batch.
``apply_batch(batch)`` is the batched path the built-in datasets' ``__getitems__`` uses: a 3-d
batch there is ``NHW``. Random transforms draw from numpy's global RNG (each DataLoader worker
seeds it), one draw per image, so each image of a batch gets its own crop or flip.
"""
import numbers

import numpy as np

from . import _core

__all__ = ["Transform", "Compose", "ToTensor", "Normalize", "RandomCrop", "RandomHorizontalFlip", "Lambda",
           "apply_batch"]


def apply_batch(transform, batch):
    """Apply ``transform`` to a whole batch: its ``apply_batch`` when it has one, else image by
    image (the results stacked into one batch)."""
    fn = getattr(transform, "apply_batch", None)
    if fn is not None:
        return fn(batch)
    n = batch.shape[0]
    outs = [transform(batch[i]) for i in range(n)]
    return _stack(outs)


def _stack(items):
    if not items:
        raise ValueError("cannot apply a transform to an empty batch")
    if _core.is_tensor(items[0]):
        return _core.from_numpy(np.stack([_core.array_of(t) for t in items]))
    if isinstance(items[0], np.ndarray):
        return np.stack(items)
    return np.asarray(items)


def _name(x):
    return type(x).__name__


class Transform:
    """Base class: ``__call__`` on one image (or a 4-d batch), ``apply_batch`` on a batch."""

    def __call__(self, img):
        raise NotImplementedError

    def apply_batch(self, batch):
        return _stack([self(batch[i]) for i in range(batch.shape[0])])

    def __repr__(self):
        return f"{type(self).__name__}()"


class Compose(Transform):
    """Apply ``transforms`` one after the other."""

    def __init__(self, transforms):
        self.transforms = list(transforms)
        for i, t in enumerate(self.transforms):
            if not callable(t):
                raise TypeError(f"Compose: transform {i} is not callable: {t!r}")

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img

    def apply_batch(self, batch):
        for t in self.transforms:
            batch = apply_batch(t, batch)
        return batch

    def __repr__(self):
        lines = "".join(f"    {t!r}\n" for t in self.transforms)
        return f"Compose(\n{lines})"


def _to_chw_float(arr, batched):
    """uint8 -> float32 in [0, 1]; other dtypes kept. Channels moved first."""
    if arr.ndim == (3 if batched else 2):  # (N)HW: one channel
        arr = arr[..., None]
    if arr.ndim != (4 if batched else 3):
        raise ValueError(f"ToTensor expects an HW or HWC image or an NHWC batch, got an array of shape {arr.shape}")
    moved = arr.transpose(0, 3, 1, 2) if batched else arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        out = moved.astype(np.float32)  # C-contiguous copy in the new layout
        out /= np.float32(255)
        return out
    return np.ascontiguousarray(moved)


class ToTensor(Transform):
    """An ``HWC`` or ``HW`` numpy image (or an ``NHWC`` batch) to a ``CHW`` (``NCHW``) Tensor;
    uint8 values are scaled to float32 in ``[0, 1]``, other dtypes are kept as they are."""

    def __call__(self, pic):
        arr = _as_image_array(pic, "ToTensor")
        return _core.from_numpy(_to_chw_float(arr, batched=arr.ndim == 4))

    def apply_batch(self, batch):
        arr = _as_image_array(batch, "ToTensor")
        return _core.from_numpy(_to_chw_float(arr, batched=True))


def _as_image_array(pic, who):
    if isinstance(pic, np.ndarray):
        return pic
    if _core.is_tensor(pic):
        raise TypeError(f"{who} expects a numpy array (HWC image), got a Tensor: it is already converted")
    if hasattr(pic, "__array_interface__") or hasattr(pic, "__array__"):  # e.g. a PIL image
        return np.asarray(pic)
    raise TypeError(f"{who} expects a numpy array (HWC image), got {_name(pic)}")


class Normalize(Transform):
    """``(x - mean[c]) / std[c]`` per channel of a ``CHW`` tensor or ``NCHW`` batch (numpy arrays
    in the same layout also work). Returns a new tensor; the input is not modified."""

    def __init__(self, mean, std, inplace=False):
        self.mean = _as_seq(mean, "mean")
        self.std = _as_seq(std, "std")
        self.inplace = inplace
        self._cache = {}

    def _apply(self, x, batched):
        is_t = _core.is_tensor(x)
        arr = _core.array_of(x) if is_t else np.asarray(x)
        if arr.dtype.kind != "f":
            raise TypeError(f"Normalize expects a floating point tensor, got dtype {arr.dtype}: apply ToTensor first")
        need = 4 if batched else 3
        if arr.ndim != need:
            what = "an NCHW batch" if batched else "a CHW tensor (or an NCHW batch)"
            raise ValueError(f"Normalize expects {what}, got shape {tuple(arr.shape)}")
        mean, std = self._params(arr.dtype, arr.shape[-3])
        if self.inplace and arr.flags.writeable:
            out = arr
            out -= mean
        else:
            out = arr - mean
        out /= std
        if out is arr:  # inplace
            return x
        return _core.from_numpy(out) if is_t else out

    def _params(self, dtype, channels):
        """mean and std as ``(C, 1, 1)`` arrays of ``dtype``, checked once per (dtype, C)."""
        key = (dtype, channels)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        mean = np.asarray(self.mean, dtype=dtype)
        std = np.asarray(self.std, dtype=dtype)
        for name, v in (("mean", mean), ("std", std)):
            if v.size not in (1, channels):
                raise ValueError(f"Normalize: {name} has {v.size} values for an input with {channels} channels")
        if np.any(std == 0):
            raise ValueError(f"Normalize: std evaluated to zero after conversion to {dtype}, leading to "
                             f"division by zero")
        cached = self._cache[key] = (mean.reshape(-1, 1, 1), std.reshape(-1, 1, 1))
        return cached

    def __call__(self, tensor):
        arr = _core.array_of(tensor) if _core.is_tensor(tensor) else tensor
        return self._apply(tensor, batched=getattr(arr, "ndim", 0) == 4)

    def apply_batch(self, batch):
        return self._apply(batch, batched=True)

    def __repr__(self):
        return f"Normalize(mean={self.mean}, std={self.std})"


def _as_seq(v, name):
    if isinstance(v, numbers.Real):
        return (float(v),)
    try:
        out = tuple(float(x) for x in v)
    except TypeError:
        raise TypeError(f"Normalize: {name} must be a number or a sequence of numbers, got {v!r}") from None
    if not out:
        raise ValueError(f"Normalize: {name} is empty")
    return out


def _layout(x, batched):
    """``(array, is_tensor, row_axis, col_axis)`` of an image or batch in nnlite's layouts."""
    is_t = _core.is_tensor(x)
    arr = _core.array_of(x) if is_t else np.asarray(x)
    nd = arr.ndim
    if nd == 4 or (batched and nd == 3):  # NCHW tensor / NHWC array / NHW
        return (arr, is_t, 2, 3) if is_t and nd == 4 else (arr, is_t, 1, 2)
    if not batched and nd in (2, 3):  # HW / CHW tensor / HWC array
        return (arr, is_t, 1, 2) if is_t and nd == 3 else (arr, is_t, 0, 1)
    what = "a batch (NHW, NHWC array or NCHW tensor)" if batched else "an image (HW, HWC array or CHW tensor)"
    raise ValueError(f"expected {what}, got shape {tuple(arr.shape)}")


def _wrap(out, is_t):
    return _core.from_numpy(out) if is_t else out


def _pair(size, name):
    if isinstance(size, numbers.Integral):
        return int(size), int(size)
    size = tuple(size)
    if len(size) == 1:
        return int(size[0]), int(size[0])
    if len(size) != 2:
        raise ValueError(f"{name} must be an int or a sequence of 1 or 2 ints, got {size!r}")
    return int(size[0]), int(size[1])


class RandomCrop(Transform):
    """Crop a random ``size`` window (after optional ``padding``, as torchvision's: an int for all
    sides, ``(left/right, top/bottom)`` or ``(left, top, right, bottom)``). ``padding_mode`` is
    ``constant`` (with ``fill``), ``edge``, ``reflect`` or ``symmetric``; ``pad_if_needed`` pads
    an image smaller than ``size``."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill=0, padding_mode="constant"):
        self.size = _pair(size, "size")
        if padding is not None:
            if isinstance(padding, numbers.Integral):
                padding = (int(padding),) * 4
            else:
                padding = tuple(int(p) for p in padding)
                if len(padding) == 1:
                    padding = padding * 4
                elif len(padding) == 2:
                    padding = (padding[0], padding[1], padding[0], padding[1])
                elif len(padding) != 4:
                    raise ValueError(f"padding must be an int or a sequence of 1, 2 or 4 ints, got {padding!r}")
            if min(padding) < 0:
                raise ValueError(f"padding must be non-negative, got {padding!r}")
        if padding_mode not in ("constant", "edge", "reflect", "symmetric"):
            raise ValueError(f"padding_mode must be constant, edge, reflect or symmetric, got {padding_mode!r}")
        self.padding = padding  # (left, top, right, bottom)
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def _pad(self, arr, ra, ca):
        left = top = right = bottom = 0
        if self.padding is not None:
            left, top, right, bottom = self.padding
        th, tw = self.size
        if self.pad_if_needed:
            h, w = arr.shape[ra] + top + bottom, arr.shape[ca] + left + right
            if h < th:
                top += th - h
                bottom += th - h
            if w < tw:
                left += tw - w
                right += tw - w
        if not (left or top or right or bottom):
            return arr
        width = [(0, 0)] * arr.ndim
        width[ra] = (top, bottom)
        width[ca] = (left, right)
        if self.padding_mode == "constant":
            return np.pad(arr, width, mode="constant", constant_values=self.fill)
        return np.pad(arr, width, mode=self.padding_mode)

    def _check(self, h, w):
        th, tw = self.size
        if h < th or w < tw:
            raise ValueError(f"RandomCrop: crop size {(th, tw)} is larger than the (padded) image size {(h, w)}")

    def __call__(self, img):
        arr, is_t, ra, ca = _layout(img, batched=False)
        if arr.ndim == 4:
            return self._batch(arr, is_t, ra, ca)
        arr = self._pad(arr, ra, ca)
        h, w = arr.shape[ra], arr.shape[ca]
        self._check(h, w)
        th, tw = self.size
        top = np.random.randint(0, h - th + 1)
        left = np.random.randint(0, w - tw + 1)
        index = [slice(None)] * arr.ndim
        index[ra] = slice(top, top + th)
        index[ca] = slice(left, left + tw)
        return _wrap(np.ascontiguousarray(arr[tuple(index)]), is_t)

    def apply_batch(self, batch):
        arr, is_t, ra, ca = _layout(batch, batched=True)
        return self._batch(arr, is_t, ra, ca)

    def _batch(self, arr, is_t, ra, ca):
        arr = self._pad(arr, ra, ca)
        n, h, w = arr.shape[0], arr.shape[ra], arr.shape[ca]
        self._check(h, w)
        th, tw = self.size
        tops = np.random.randint(0, h - th + 1, size=n)
        lefts = np.random.randint(0, w - tw + 1, size=n)
        # every window of the batch, then image i's window at (tops[i], lefts[i])
        windows = np.lib.stride_tricks.sliding_window_view(arr, (th, tw), axis=(ra, ca))
        rows = np.arange(n)
        if ra == 1:  # NHW or NHWC: windows is (N, H', W', [C,] th, tw)
            out = windows[rows, tops, lefts]  # (N, [C,] th, tw)
            if arr.ndim == 4:
                out = np.moveaxis(out, 1, -1)
        else:  # NCHW: windows is (N, C, H', W', th, tw)
            out = windows[rows, :, tops, lefts]  # (N, C, th, tw)
        return _wrap(np.ascontiguousarray(out), is_t)

    def __repr__(self):
        return f"RandomCrop(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(Transform):
    """Mirror left-right with probability ``p`` (each image of a batch decided on its own)."""

    def __init__(self, p=0.5):
        if not 0 <= p <= 1:
            raise ValueError(f"RandomHorizontalFlip: p must be in [0, 1], got {p}")
        self.p = p

    def __call__(self, img):
        arr, is_t, ra, ca = _layout(img, batched=False)
        if arr.ndim == 4:
            return self._batch(img, arr, is_t, ca)
        if np.random.random() < self.p:
            return _wrap(np.ascontiguousarray(np.flip(arr, axis=ca)), is_t)
        return img

    def apply_batch(self, batch):
        arr, is_t, ra, ca = _layout(batch, batched=True)
        return self._batch(batch, arr, is_t, ca)

    def _batch(self, original, arr, is_t, ca):
        flip = np.random.random(arr.shape[0]) < self.p
        if not flip.any():
            return original
        out = arr.copy()
        out[flip] = np.flip(arr[flip], axis=ca)
        return _wrap(out, is_t)

    def __repr__(self):
        return f"RandomHorizontalFlip(p={self.p})"


class Lambda(Transform):
    """A user function as a transform. With ``batched=True`` the function also handles batches
    (``apply_batch`` calls it once on the whole batch); otherwise batches go image by image."""

    def __init__(self, lambd, batched=False):
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd
        self.batched = batched

    def __call__(self, img):
        return self.lambd(img)

    def apply_batch(self, batch):
        if self.batched:
            return self.lambd(batch)
        return Transform.apply_batch(self, batch)

    def __repr__(self):
        return f"Lambda({getattr(self.lambd, '__name__', repr(self.lambd))})"
