"""Image transforms, per sample and per batch.

Layouts: numpy arrays are channels-last (``HW``, ``HWC``; a batch is ``NHWC``), tensors are
channels-first (``HW``, ``CHW``; a batch is ``NCHW``), as a dataset's raw images and
``ToTensor``'s output are. Called on one image, a transform also accepts a 4-d batch.
``apply_batch(batch)`` is the batched path the built-in datasets' ``__getitems__`` uses: a 3-d
batch there is ``NHW``. Random transforms draw from numpy's global RNG (each DataLoader worker
seeds it), one draw per image, so each image of a batch gets its own crop or flip.
"""

from __future__ import annotations

import enum
import math
import numbers
import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar, cast

import numpy as np

from .._pillow import image_from_array, import_pillow, is_pil_image
from . import _core, _image_ops

if TYPE_CHECKING:
    import numpy.typing as npt
    from PIL.Image import Image as PILImage

    from .._typing import Array, DTypeLike, ImageT
    from ..autograd.tensor import Tensor

#: a tensor image or batch, or a numpy one: the kinds a tensor transform takes and gives back
_TensorOrArray = TypeVar("_TensorOrArray", "Tensor", "Array")
#: a transform's ``fill``: one value, or one per channel
_Fill: TypeAlias = float | Sequence[float]
#: torchvision's padding: all sides, ``(left/right, top/bottom)`` or ``(left, top, right, bottom)``
_Padding: TypeAlias = int | Sequence[int]
#: a transform's ``padding_mode`` (each one numpy's ``np.pad`` mode of the same name)
_PaddingMode: TypeAlias = Literal["constant", "edge", "reflect", "symmetric"]
_PADDING_MODES: tuple[_PaddingMode, ...] = ("constant", "edge", "reflect", "symmetric")

__all__ = [
    "Transform",
    "Compose",
    "ToTensor",
    "Normalize",
    "RandomCrop",
    "RandomHorizontalFlip",
    "Lambda",
    "apply_batch",
    "InterpolationMode",
    "Resize",
    "CenterCrop",
    "RandomResizedCrop",
    "ColorJitter",
    "Grayscale",
    "RandomGrayscale",
    "RandomRotation",
    "Pad",
    "ToPILImage",
    "PILToTensor",
    "ConvertImageDtype",
]


def apply_batch(transform: Callable[[Any], Any], batch: Tensor | Array) -> Any:
    """Apply ``transform`` to a whole batch: its ``apply_batch`` when it has one, else image by
    image (the results stacked into one batch).

    Args:
        transform (callable): a transform.
        batch (Tensor or numpy.ndarray): a 4-d batch.

    Returns:
        The transformed batch.

    Examples:
        >>> apply_batch(Compose([ToTensor(), Normalize((0.5,), (0.5,))]), np.zeros((2, 4, 4, 1), np.uint8)).shape
        nnlite.Size([2, 1, 4, 4])
    """
    fn = getattr(transform, "apply_batch", None)
    if fn is not None:
        return fn(batch)
    n = batch.shape[0]
    outs = [transform(batch[i]) for i in range(n)]
    return _stack(outs)


def _stack(items: Sequence[Any]) -> Any:
    if not items:
        raise ValueError("cannot apply a transform to an empty batch")
    if _core.is_tensor(items[0]):
        return _core.from_numpy(np.stack([_core.array_of(t) for t in items]))
    if isinstance(items[0], np.ndarray):
        return np.stack(items)
    return np.asarray(items)


def _name(x: object) -> str:
    return type(x).__name__


class Transform:
    """Base class: ``__call__`` on one image (or a 4-d batch), ``apply_batch`` on a batch.

    Examples:
        >>> class Invert(Transform):
        ...     def __call__(self, img):
        ...         return 1 - img
        >>> Invert()(nl.tensor([[[0.25]]]))
        tensor([[[0.7500]]])
        >>> Invert().apply_batch(nl.zeros(2, 1, 1, 1)).shape  # image by image
        nnlite.Size([2, 1, 1, 1])
    """

    def __call__(self, img: Any) -> Any:
        raise NotImplementedError

    def apply_batch(self, batch: Any) -> Any:
        """The transform of a 4-d batch: by default image by image, stacked; subclasses vectorise it.

        Args:
            batch (Tensor or numpy.ndarray): ``NCHW`` (tensors) or ``NHWC`` (arrays).

        Returns:
            The transformed batch.

        Examples:
            >>> ToTensor().apply_batch(np.zeros((2, 4, 5, 3), np.uint8)).shape
            nnlite.Size([2, 3, 4, 5])
        """
        return _stack([self(batch[i]) for i in range(batch.shape[0])])

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Compose(Transform):
    """Apply ``transforms`` one after the other.

    Args:
        transforms (list of callables): applied in order.

    Examples:
        >>> tf = Compose([ToTensor(), Normalize((0.5,), (0.5,))])
        >>> tf(np.zeros((2, 2, 1), np.uint8))
        tensor([[[-1., -1.],
                 [-1., -1.]]])
    """

    def __init__(self, transforms: Iterable[Callable[[Any], Any]]) -> None:
        self.transforms = list(transforms)
        for i, t in enumerate(self.transforms):
            if not callable(t):
                raise TypeError(f"Compose: transform {i} is not callable: {t!r}")

    def __call__(self, img: Any) -> Any:
        for t in self.transforms:
            img = t(img)
        return img

    def apply_batch(self, batch: Any) -> Any:
        for t in self.transforms:
            batch = apply_batch(t, batch)
        return batch

    def __repr__(self) -> str:
        lines = "".join(f"    {t!r}\n" for t in self.transforms)
        return f"Compose(\n{lines})"


def _to_chw_float(arr: Array, batched: bool) -> Array:
    """uint8 -> float32 in [0, 1]; other dtypes kept. Channels moved first."""
    if arr.ndim == (3 if batched else 2):  # (N)HW: one channel
        arr = arr[..., None]
    if arr.ndim != (4 if batched else 3):
        raise ValueError(
            f"ToTensor expects an HW or HWC image or an NHWC batch, got an array of shape {arr.shape}"
        )
    moved = arr.transpose(0, 3, 1, 2) if batched else arr.transpose(2, 0, 1)
    if arr.dtype == np.uint8:
        out: npt.NDArray[np.float32] = moved.astype(np.float32)  # C-contiguous, new layout
        out /= np.float32(255)
        return out
    return np.ascontiguousarray(moved)


class ToTensor(Transform):
    """An ``HWC`` or ``HW`` numpy image (or an ``NHWC`` batch) to a ``CHW`` (``NCHW``) Tensor;
    uint8 values are scaled to float32 in ``[0, 1]``, other dtypes are kept as they are.

    Examples:
        >>> ToTensor()(np.full((4, 5, 3), 255, np.uint8))[:, 0, 0]
        tensor([1., 1., 1.])
    """

    def __call__(self, pic: Array | PILImage) -> Tensor:
        arr = _as_image_array(pic, "ToTensor")
        return _core.from_numpy(_to_chw_float(arr, batched=arr.ndim == 4))

    def apply_batch(self, batch: Array) -> Tensor:
        arr = _as_image_array(batch, "ToTensor")
        return _core.from_numpy(_to_chw_float(arr, batched=True))


def _as_image_array(pic: object, who: str) -> Array:
    if isinstance(pic, np.ndarray):
        return pic
    if _core.is_tensor(pic):
        raise TypeError(
            f"{who} expects a numpy array (HWC image), got a Tensor: it is already converted"
        )
    if hasattr(pic, "__array_interface__") or hasattr(pic, "__array__"):  # e.g. a PIL image
        return np.asarray(pic)
    raise TypeError(f"{who} expects a numpy array (HWC image), got {_name(pic)}")


class Normalize(Transform):
    """``(x - mean[c]) / std[c]`` per channel of a ``CHW`` tensor or ``NCHW`` batch (numpy arrays
    in the same layout also work). Returns a new tensor; the input is not modified.

    Args:
        mean (sequence of floats): one mean per channel.
        std (sequence of floats): one standard deviation per channel.
        inplace (bool): accepted for compatibility (a new tensor is returned).

    Examples:
        >>> Normalize((0.5,), (0.25,))(nl.ones(1, 1, 2))
        tensor([[[2., 2.]]])
    """

    def __init__(
        self, mean: float | Sequence[float], std: float | Sequence[float], inplace: bool = False
    ) -> None:
        self.mean = _as_seq(mean, "mean")
        self.std = _as_seq(std, "std")
        self.inplace = inplace
        self._cache: dict[tuple[np.dtype[Any], int], tuple[Array, Array]] = {}

    def _apply(self, x: _TensorOrArray, batched: bool) -> _TensorOrArray:
        arr = _core.array_of(x) if _core.is_tensor(x) else np.asarray(x)
        if arr.dtype.kind != "f":
            raise TypeError(
                f"Normalize expects a floating point tensor, got dtype {arr.dtype}: apply ToTensor first"
            )
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
        return _in_kind(x, out)

    def _params(self, dtype: np.dtype[Any], channels: int) -> tuple[Array, Array]:
        """mean and std as ``(C, 1, 1)`` arrays of ``dtype``, checked once per (dtype, C)."""
        key = (dtype, channels)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        mean = np.asarray(self.mean, dtype=dtype)
        std = np.asarray(self.std, dtype=dtype)
        for name, v in (("mean", mean), ("std", std)):
            if v.size not in (1, channels):
                raise ValueError(
                    f"Normalize: {name} has {v.size} values for an input with {channels} channels"
                )
        if np.any(std == 0):
            raise ValueError(
                f"Normalize: std evaluated to zero after conversion to {dtype}, leading to "
                f"division by zero"
            )
        cached = self._cache[key] = (mean.reshape(-1, 1, 1), std.reshape(-1, 1, 1))
        return cached

    def __call__(self, tensor: _TensorOrArray) -> _TensorOrArray:
        arr = _core.array_of(tensor) if _core.is_tensor(tensor) else tensor
        return self._apply(tensor, batched=getattr(arr, "ndim", 0) == 4)

    def apply_batch(self, batch: _TensorOrArray) -> _TensorOrArray:
        return self._apply(batch, batched=True)

    def __repr__(self) -> str:
        return f"Normalize(mean={self.mean}, std={self.std})"


def _as_seq(v: Any, name: str) -> tuple[float, ...]:
    # ``v``: a number or an iterable of numbers, checked here
    if isinstance(v, numbers.Real):
        return (float(v),)
    try:
        out = tuple(float(x) for x in v)
    except TypeError:
        raise TypeError(
            f"Normalize: {name} must be a number or a sequence of numbers, got {v!r}"
        ) from None
    if not out:
        raise ValueError(f"Normalize: {name} is empty")
    return out


def _layout(x: Any, batched: bool) -> tuple[Array, bool, int, int]:
    """``(array, is_tensor, row_axis, col_axis)`` of an image or batch in nnlite's layouts."""
    is_t = _core.is_tensor(x)
    arr = _core.array_of(x) if is_t else np.asarray(x)
    nd = arr.ndim
    if nd == 4 or (batched and nd == 3):  # NCHW tensor / NHWC array / NHW
        return (arr, is_t, 2, 3) if is_t and nd == 4 else (arr, is_t, 1, 2)
    if not batched and nd in (2, 3):  # HW / CHW tensor / HWC array
        return (arr, is_t, 1, 2) if is_t and nd == 3 else (arr, is_t, 0, 1)
    what = (
        "a batch (NHW, NHWC array or NCHW tensor)"
        if batched
        else "an image (HW, HWC array or CHW tensor)"
    )
    raise ValueError(f"expected {what}, got shape {tuple(arr.shape)}")


def _padding_ltrb(padding: _Padding) -> tuple[int, ...]:
    """torchvision's padding forms (an int for all sides, ``(left/right, top/bottom)`` or
    ``(left, top, right, bottom)``) as ``(left, top, right, bottom)``."""
    if isinstance(padding, (int, numbers.Integral)):
        padding = (int(padding),) * 4
    else:
        padding = tuple(int(p) for p in padding)
        if len(padding) == 1:
            padding = padding * 4
        elif len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        elif len(padding) != 4:
            raise ValueError(
                f"Padding must be an int or a 1, 2, or 4 element tuple, not a {len(padding)} element "
                f"tuple"
            )
    if min(padding) < 0:
        raise ValueError(f"padding must be non-negative, got {padding!r}")
    return padding


def _padding_mode(padding_mode: str) -> _PaddingMode:
    """``padding_mode``, checked to be one of the modes."""
    for mode in _PADDING_MODES:
        if padding_mode == mode:
            return mode
    raise ValueError("Padding mode should be either constant, edge, reflect or symmetric")


def _in_kind(like: _TensorOrArray, out: Array) -> _TensorOrArray:
    """``out`` in the kind of ``like``: a Tensor (no copy) when ``like`` is one, else ``out``."""
    if _core.is_tensor(like):
        return _core.from_numpy(out)
    return out


def _pair(size: int | Sequence[int], name: str) -> tuple[int, int]:
    if isinstance(size, (int, numbers.Integral)):
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
    an image smaller than ``size``.

    Args:
        size (int or pair): the window's ``(H, W)``.
        padding (int or tuple, optional): added before cropping.
        pad_if_needed (bool): pad an image smaller than ``size``. Default: False.
        fill (number or tuple): the value of ``constant`` padding. Default: 0.
        padding_mode (str): ``constant``, ``edge``, ``reflect`` or ``symmetric``. Default: ``constant``.

    Examples:
        >>> RandomCrop(32, padding=4)(nl.zeros(3, 32, 32)).shape
        nnlite.Size([3, 32, 32])
    """

    def __init__(
        self,
        size: int | Sequence[int],
        padding: _Padding | None = None,
        pad_if_needed: bool = False,
        fill: _Fill = 0,
        padding_mode: str = "constant",
    ) -> None:
        self.size = _pair(size, "size")
        if padding is not None:
            padding = _padding_ltrb(padding)
        self.padding = padding  # (left, top, right, bottom)
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode: _PaddingMode = _padding_mode(padding_mode)

    def _pad(self, arr: Array, ra: int, ca: int) -> Array:
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

    def _check(self, h: int, w: int) -> None:
        th, tw = self.size
        if h < th or w < tw:
            raise ValueError(
                f"RandomCrop: crop size {(th, tw)} is larger than the (padded) image size {(h, w)}"
            )

    def __call__(self, img: _TensorOrArray) -> _TensorOrArray:
        arr, _, ra, ca = _layout(img, batched=False)
        if arr.ndim == 4:
            return self._batch(img, arr, ra, ca)
        arr = self._pad(arr, ra, ca)
        h, w = arr.shape[ra], arr.shape[ca]
        self._check(h, w)
        th, tw = self.size
        top = np.random.randint(0, h - th + 1)
        left = np.random.randint(0, w - tw + 1)
        index = [slice(None)] * arr.ndim
        index[ra] = slice(top, top + th)
        index[ca] = slice(left, left + tw)
        return _in_kind(img, np.ascontiguousarray(arr[tuple(index)]))

    def apply_batch(self, batch: _TensorOrArray) -> _TensorOrArray:
        arr, _, ra, ca = _layout(batch, batched=True)
        return self._batch(batch, arr, ra, ca)

    def _batch(self, like: _TensorOrArray, arr: Array, ra: int, ca: int) -> _TensorOrArray:
        # ``arr``: the array of ``like``, the batch the result is given back in the kind of
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
        return _in_kind(like, np.ascontiguousarray(out))

    def __repr__(self) -> str:
        return f"RandomCrop(size={self.size}, padding={self.padding})"


class RandomHorizontalFlip(Transform):
    """Mirror left-right with probability ``p`` (each image of a batch decided on its own).

    Args:
        p (float): the probability. Default: 0.5.

    Examples:
        >>> RandomHorizontalFlip(p=1.0)(nl.tensor([[[1., 2.]]]))
        tensor([[[2., 1.]]])
    """

    def __init__(self, p: float = 0.5) -> None:
        if not 0 <= p <= 1:
            raise ValueError(f"RandomHorizontalFlip: p must be in [0, 1], got {p}")
        self.p = p

    def __call__(self, img: _TensorOrArray) -> _TensorOrArray:
        arr, _, _, ca = _layout(img, batched=False)
        if arr.ndim == 4:
            return self._batch(img, arr, ca)
        if np.random.random() < self.p:
            return _in_kind(img, np.ascontiguousarray(np.flip(arr, axis=ca)))
        return img

    def apply_batch(self, batch: _TensorOrArray) -> _TensorOrArray:
        arr, _, _, ca = _layout(batch, batched=True)
        return self._batch(batch, arr, ca)

    def _batch(self, original: _TensorOrArray, arr: Array, ca: int) -> _TensorOrArray:
        flip = np.random.random(arr.shape[0]) < self.p
        if not flip.any():
            return original
        out = arr.copy()
        out[flip] = np.flip(arr[flip], axis=ca)
        return _in_kind(original, out)

    def __repr__(self) -> str:
        return f"RandomHorizontalFlip(p={self.p})"


class Lambda(Transform):
    """A user function as a transform. With ``batched=True`` the function also handles batches
    (``apply_batch`` calls it once on the whole batch); otherwise batches go image by image.

    Args:
        lambd (callable): the function, of one image (or of a batch with ``batched``).
        batched (bool): the function handles batches too. Default: False.

    Examples:
        >>> Lambda(lambda x: x * 2)(nl.ones(1))
        tensor([2.])
    """

    def __init__(self, lambd: Callable[[Any], Any], batched: bool = False) -> None:
        if not callable(lambd):
            raise TypeError(f"Argument lambd should be callable, got {repr(type(lambd).__name__)}")
        self.lambd = lambd
        self.batched = batched

    def __call__(self, img: Any) -> Any:
        return self.lambd(img)

    def apply_batch(self, batch: Any) -> Any:
        if self.batched:
            return self.lambd(batch)
        return Transform.apply_batch(self, batch)

    def __repr__(self) -> str:
        return f"Lambda({getattr(self.lambd, '__name__', repr(self.lambd))})"


# ====================================================================== torchvision's vision transforms
# The transforms below work on an image's planes: any input (HW / HWC array, HW / CHW tensor, a
# batch, a PIL image) is viewed as a channels-first array ``(..., C, H, W)``, changed by the
# functions of ``_image_ops``, and returned in the layout and type it came in.


class InterpolationMode(enum.Enum):
    """Interpolation modes, as ``torchvision.transforms.InterpolationMode``.

    Examples:
        >>> InterpolationMode.BILINEAR, InterpolationMode("nearest")
        (<InterpolationMode.BILINEAR: 'bilinear'>, <InterpolationMode.NEAREST: 'nearest'>)
    """

    NEAREST = "nearest"
    NEAREST_EXACT = "nearest-exact"
    BILINEAR = "bilinear"
    BICUBIC = "bicubic"
    BOX = "box"
    HAMMING = "hamming"
    LANCZOS = "lanczos"


# Pillow's integer constants, which torchvision also accepts
_PIL_INTERPOLATION = {
    0: InterpolationMode.NEAREST,
    2: InterpolationMode.BILINEAR,
    3: InterpolationMode.BICUBIC,
    4: InterpolationMode.BOX,
    5: InterpolationMode.HAMMING,
    1: InterpolationMode.LANCZOS,
}
_SUPPORTED = (
    InterpolationMode.NEAREST,
    InterpolationMode.NEAREST_EXACT,
    InterpolationMode.BILINEAR,
    InterpolationMode.BICUBIC,
)


def _interpolation(
    mode: InterpolationMode | int | str,
    allowed: tuple[InterpolationMode, ...] = _SUPPORTED,
) -> InterpolationMode:
    if isinstance(mode, numbers.Integral) and mode in _PIL_INTERPOLATION:
        mode = _PIL_INTERPOLATION[int(mode)]
    elif isinstance(mode, str):
        mode = InterpolationMode(mode)
    if not isinstance(mode, InterpolationMode):
        raise TypeError(
            "Argument interpolation should be a InterpolationMode or a corresponding Pillow integer "
            "constant"
        )
    if mode not in allowed:
        raise ValueError(
            f"interpolation {mode.value!r} is not supported here; use one of "
            f"{', '.join(m.value for m in allowed)}"
        )
    return mode


def _planes(img: ImageT, batched: bool) -> tuple[Array, Callable[[Array], ImageT]]:
    """``(planes, restore)``: ``img`` as a ``(..., C, H, W)`` array, and the function that turns a
    result in that layout back into ``img``'s layout and type."""
    if is_pil_image(img):
        mode = img.mode if img.mode in ("L", "RGB", "RGBA") else None
        planes, restore = _planes(np.asarray(img), batched=False)
        return planes, lambda out: image_from_array(restore(out), mode, "ToPILImage")
    if _core.is_tensor(img):
        arr = _core.array_of(img)
        if arr.ndim in (3, 4):
            return arr, _core.from_numpy
        if arr.ndim == 2:
            return arr[None], lambda out: _core.from_numpy(np.ascontiguousarray(out[0]))
    else:
        arr = np.asarray(img)
        if arr.ndim == 2 or (arr.ndim == 3 and batched):  # HW, or an NHW batch: one channel
            return arr[..., None, :, :], lambda out: np.ascontiguousarray(out[..., 0, :, :])
        if arr.ndim in (3, 4):  # HWC, NHWC
            return np.moveaxis(arr, -1, -3), lambda out: np.ascontiguousarray(
                np.moveaxis(out, -3, -1)
            )
    what = (
        "a batch (NHW, NHWC array or NCHW tensor)"
        if batched
        else "an image (HW, HWC array, CHW tensor)"
    )
    raise ValueError(f"expected {what}, got shape {tuple(arr.shape)}")


class _PlaneTransform(Transform):
    """A transform written once on ``(..., C, H, W)`` planes. ``_image(planes)`` transforms one
    image (``(C, H, W)``); ``_batch`` transforms ``(N, C, H, W)``: image by image by default (each
    draws its own random parameters), or all at once in deterministic transforms."""

    deterministic = False

    def _image(self, planes: Array) -> Array:
        raise NotImplementedError

    def _batch(self, planes: Array) -> Array:
        if self.deterministic:
            return self._image(planes)
        return np.stack([self._image(p) for p in planes])

    def __call__(self, img: ImageT) -> ImageT:
        planes, restore = _planes(img, batched=False)
        # (a name with its type: without Pillow installed, mypy reads PIL images as Any)
        result: ImageT = restore(self._batch(planes) if planes.ndim == 4 else self._image(planes))
        return result

    def apply_batch(self, batch: _TensorOrArray) -> _TensorOrArray:
        planes, restore = _planes(batch, batched=True)
        result: _TensorOrArray = restore(self._batch(planes))
        return result


def _size_arg(size: int | Sequence[int]) -> int | list[int]:
    if isinstance(size, numbers.Integral):
        return int(size)
    if not isinstance(size, (list, tuple)):
        raise TypeError(f"Size should be int or sequence. Got {type(size)}")
    if len(size) not in (1, 2):
        raise ValueError("If size is a sequence, it should have 1 or 2 values")
    return [int(s) for s in size]


def _resized_size(
    height: int, width: int, size: int | list[int], max_size: int | None
) -> tuple[int, int]:
    """torchvision's output size: ``[h, w]`` as given, or the shorter edge made ``size`` with the
    aspect ratio kept (the longer edge at most ``max_size``)."""
    if isinstance(size, list) and len(size) == 2:
        return size[0], size[1]
    short_target = size if isinstance(size, int) else size[0]
    short, long = (width, height) if width <= height else (height, width)
    new_short, new_long = short_target, int(short_target * long / short)
    if max_size is not None:
        if max_size <= short_target:
            raise ValueError(
                f"max_size = {max_size} must be strictly greater than the requested size for the "
                f"smaller edge size = {size}"
            )
        if new_long > max_size:
            new_short, new_long = int(max_size * new_short / new_long), max_size
    return (new_long, new_short) if width <= height else (new_short, new_long)


class Resize(_PlaneTransform):
    """Resize to ``size``: ``(h, w)``, or an int for the shorter edge (aspect ratio kept, the
    longer edge capped by ``max_size``), as ``torchvision.transforms.Resize``.

    Args:
        size: ``(h, w)``, or an int (or one-element sequence) for the shorter edge.
        interpolation: ``InterpolationMode.BILINEAR`` (default), ``NEAREST``, ``NEAREST_EXACT``
            or ``BICUBIC`` (or Pillow's integer constants).
        max_size: the largest allowed longer edge when ``size`` is an int.
        antialias: low-pass filter when shrinking (bilinear and bicubic), as Pillow always does.

    Integer images are rounded. Works on HW/HWC arrays, CHW tensors and batches.

    Examples:
        >>> Resize(16)(nl.rand(3, 32, 48)).shape
        nnlite.Size([3, 16, 24])
    """

    deterministic = True

    def __init__(
        self,
        size: int | Sequence[int],
        interpolation: InterpolationMode | int = InterpolationMode.BILINEAR,
        max_size: int | None = None,
        antialias: bool = True,
    ) -> None:
        self._size = _size_arg(size)
        self.size = size
        if max_size is not None and not (isinstance(self._size, int) or len(self._size) == 1):
            raise ValueError(
                "max_size should only be passed if size specifies the length of the smaller edge, "
                "i.e. size should be an int or a sequence of length 1 in torchscript mode."
            )
        self.max_size = max_size
        self.interpolation = _interpolation(interpolation)
        self.antialias = antialias

    def _image(self, planes: Array) -> Array:
        height, width = planes.shape[-2:]
        out_size = _resized_size(height, width, self._size, self.max_size)
        return _image_ops.resize(planes, out_size, self.interpolation.value, bool(self.antialias))

    def __repr__(self) -> str:
        return (
            f"Resize(size={self.size}, interpolation={self.interpolation.value}, max_size={self.max_size}, "
            f"antialias={self.antialias})"
        )


def _center_crop(planes: Array, out_h: int, out_w: int) -> Array:
    """torchvision's centre crop: zero padding first when the crop is larger than the image."""
    height, width = planes.shape[-2:]
    if out_h > height or out_w > width:
        pad_w, pad_h = max(out_w - width, 0), max(out_h - height, 0)
        planes = _image_ops.pad(planes, pad_w // 2, pad_h // 2, (pad_w + 1) // 2, (pad_h + 1) // 2)
        height, width = planes.shape[-2:]
    top = int(round((height - out_h) / 2.0))
    left = int(round((width - out_w) / 2.0))
    return _image_ops.crop(planes, top, left, out_h, out_w)


class CenterCrop(_PlaneTransform):
    """Crop the centre ``size`` (an int for a square), zero-padding an image smaller than it, as
    ``torchvision.transforms.CenterCrop``.

    Args:
        size (int or pair): the output's ``(H, W)``; an int for a square.

    Examples:
        >>> CenterCrop(24)(np.zeros((32, 32, 3), np.uint8)).shape
        (24, 24, 3)
    """

    deterministic = True

    def __init__(self, size: int | Sequence[int]) -> None:
        self.size = _pair(size, "size")

    def _image(self, planes: Array) -> Array:
        return _center_crop(planes, *self.size)

    def __repr__(self) -> str:
        return f"CenterCrop(size={self.size})"


class RandomResizedCrop(_PlaneTransform):
    """Crop a random area (a ``scale`` fraction of the image, aspect ratio in ``ratio``) and resize
    it to ``size``, as ``torchvision.transforms.RandomResizedCrop`` (ten tries, then a centre crop).

    Args:
        size (int or pair): the output's ``(H, W)``.
        scale (pair of floats): the range of the crop's area fraction. Default: (0.08, 1.0).
        ratio (pair of floats): the range of its aspect ratio. Default: (3/4, 4/3).
        interpolation (InterpolationMode): the resizing. Default: bilinear.
        antialias (bool): accepted for compatibility.

    Examples:
        >>> RandomResizedCrop(224)(np.zeros((300, 400, 3), np.uint8)).shape
        (224, 224, 3)
    """

    def __init__(
        self,
        size: int | Sequence[int],
        scale: tuple[float, float] = (0.08, 1.0),
        ratio: tuple[float, float] = (3.0 / 4.0, 4.0 / 3.0),
        interpolation: InterpolationMode | int = InterpolationMode.BILINEAR,
        antialias: bool = True,
    ) -> None:
        self.size = _pair(size, "size")
        if not isinstance(scale, (tuple, list)) or not isinstance(ratio, (tuple, list)):
            raise TypeError("Scale and ratio should be sequences")
        if scale[0] > scale[1] or ratio[0] > ratio[1]:
            warnings.warn("Scale and ratio should be of kind (min, max)", stacklevel=2)
        self.scale = scale
        self.ratio = ratio
        self.interpolation = _interpolation(interpolation)
        self.antialias = antialias

    @staticmethod
    def get_params(
        img: Any, scale: Sequence[float], ratio: Sequence[float]
    ) -> tuple[int, int, int, int]:
        # ``img``: an image of any kind, or its ``(H, W)``
        """``(top, left, height, width)`` of a random crop of ``img`` (an image, or its ``(H, W)``).

        Args:
            img: an image, or its ``(H, W)``.
            scale (pair of floats): the range of the area fraction.
            ratio (pair of floats): the range of the aspect ratio.

        Returns:
            tuple of ints: ``(top, left, height, width)``.

        Examples:
            >>> top, left, h, w = RandomResizedCrop.get_params((10, 10), (0.5, 1.0), (0.75, 1.33))
            >>> 0 <= top <= 10 - h and 0 <= left <= 10 - w
            True
        """
        height, width = img if isinstance(img, tuple) else _planes(img, batched=False)[0].shape[-2:]
        area = height * width
        log_ratio = np.log(np.asarray(ratio, dtype=np.float64))
        for _ in range(10):
            target_area = area * np.random.uniform(scale[0], scale[1])
            aspect = math.exp(np.random.uniform(log_ratio[0], log_ratio[1]))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= width and 0 < h <= height:
                return (
                    np.random.randint(0, height - h + 1),
                    np.random.randint(0, width - w + 1),
                    h,
                    w,
                )
        in_ratio = width / height
        if in_ratio < min(ratio):
            w, h = width, int(round(width / min(ratio)))
        elif in_ratio > max(ratio):
            h, w = height, int(round(height * max(ratio)))
        else:
            w, h = width, height
        return (height - h) // 2, (width - w) // 2, h, w

    def _image(self, planes: Array) -> Array:
        top, left, h, w = self.get_params(tuple(planes.shape[-2:]), self.scale, self.ratio)
        window = _image_ops.crop(planes, top, left, h, w)
        return _image_ops.resize(window, self.size, self.interpolation.value, bool(self.antialias))

    def __repr__(self) -> str:
        return (
            f"RandomResizedCrop(size={self.size}, scale={tuple(round(s, 4) for s in self.scale)}, "
            f"ratio={tuple(round(r, 4) for r in self.ratio)}, interpolation={self.interpolation.value}, "
            f"antialias={self.antialias})"
        )


def _jitter_range(
    value: float | Sequence[float],
    name: str,
    center: float = 1.0,
    bound: tuple[float, float] = (0, float("inf")),
    clip_first_on_zero: bool = True,
) -> list[float] | None:
    if isinstance(value, numbers.Number):
        number = cast(float, value)  # (a complex one fails below with Python's TypeError)
        if number < 0:
            raise ValueError(f"If {name} is a single number, it must be non negative.")
        value = [center - float(number), center + float(number)]
        if clip_first_on_zero:
            value[0] = max(value[0], 0.0)
    elif isinstance(value, (tuple, list)) and len(value) == 2:
        value = [float(value[0]), float(value[1])]
    else:
        raise TypeError(f"{name} should be a single number or a list/tuple with length 2.")
    if not bound[0] <= value[0] <= value[1] <= bound[1]:
        raise ValueError(f"{name} values should be between {bound}, but got {value}.")
    return None if value[0] == value[1] == center else value


class ColorJitter(_PlaneTransform):
    """Randomly change brightness, contrast, saturation and hue, in a random order, as
    ``torchvision.transforms.ColorJitter``.

    Args:
        brightness, contrast, saturation: ``b`` draws a factor from ``[max(0, 1 - b), 1 + b]``;
            ``(min, max)`` from that range.
        hue: ``h`` (at most 0.5) draws a hue shift from ``[-h, h]``; or ``(min, max)``.

    Images are RGB (3 channels) or grayscale (1 channel: saturation and hue leave it unchanged),
    floating in [0, 1] or uint8.

    Examples:
        >>> image = nl.rand(3, 8, 8)
        >>> ColorJitter(brightness=0.4, contrast=0.4, saturation=0.4, hue=0.1)(image).shape
        nnlite.Size([3, 8, 8])
    """

    def __init__(
        self,
        brightness: float | Sequence[float] = 0,
        contrast: float | Sequence[float] = 0,
        saturation: float | Sequence[float] = 0,
        hue: float | Sequence[float] = 0,
    ) -> None:
        self.brightness = _jitter_range(brightness, "brightness")
        self.contrast = _jitter_range(contrast, "contrast")
        self.saturation = _jitter_range(saturation, "saturation")
        self.hue = _jitter_range(hue, "hue", center=0, bound=(-0.5, 0.5), clip_first_on_zero=False)

    @staticmethod
    def get_params(
        brightness: Sequence[float] | None,
        contrast: Sequence[float] | None,
        saturation: Sequence[float] | None,
        hue: Sequence[float] | None,
    ) -> tuple[Any, ...]:
        # ``(order, b, c, s, h)``: an int array, then a float or None per adjustment
        """``(order, b, c, s, h)``: the order of the four adjustments and their factors (``None``
        for an adjustment that is off).

        Args:
            brightness, contrast, saturation, hue (pair or None): the ranges to draw the factors from.

        Returns:
            tuple: ``(order, b, c, s, h)``.

        Examples:
            >>> order, b, c, s, h = ColorJitter.get_params((0.6, 1.4), None, None, None)
            >>> sorted(order.tolist()), 0.6 <= b <= 1.4, c is None
            ([0, 1, 2, 3], True, True)
        """
        order = np.random.permutation(4)
        factors = [
            None if r is None else float(np.random.uniform(r[0], r[1]))
            for r in (brightness, contrast, saturation, hue)
        ]
        return (order, *factors)

    def _image(self, planes: Array) -> Array:
        order, *factors = self.get_params(self.brightness, self.contrast, self.saturation, self.hue)
        adjust = (
            _image_ops.adjust_brightness,
            _image_ops.adjust_contrast,
            _image_ops.adjust_saturation,
            _image_ops.adjust_hue,
        )
        for k in order:
            if factors[k] is not None:
                planes = adjust[k](planes, factors[k])
        return planes

    def __repr__(self) -> str:
        return (
            f"ColorJitter(brightness={self.brightness}, contrast={self.contrast}, "
            f"saturation={self.saturation}, hue={self.hue})"
        )


def _grayscale(planes: Array, channels: int) -> Array:
    gray = _image_ops.rgb_to_grayscale(planes)
    return np.repeat(gray, channels, axis=-3) if channels > 1 else gray


class Grayscale(_PlaneTransform):
    """RGB to grayscale (``0.2989 R + 0.587 G + 0.114 B``) with ``num_output_channels`` (1 or 3)
    equal channels, as ``torchvision.transforms.Grayscale``.

    Args:
        num_output_channels (int): 1 or 3. Default: 1.

    Examples:
        >>> Grayscale()(nl.ones(3, 2, 2)).shape
        nnlite.Size([1, 2, 2])
    """

    deterministic = True

    def __init__(self, num_output_channels: int = 1) -> None:
        if num_output_channels not in (1, 3):
            raise ValueError("num_output_channels should be either 1 or 3")
        self.num_output_channels = num_output_channels

    def _image(self, planes: Array) -> Array:
        return _grayscale(planes, self.num_output_channels)

    def __repr__(self) -> str:
        return f"Grayscale(num_output_channels={self.num_output_channels})"


class RandomGrayscale(_PlaneTransform):
    """Grayscale with probability ``p``, keeping the number of channels.

    Args:
        p (float): the probability. Default: 0.1.

    Examples:
        >>> RandomGrayscale(p=1.0)(nl.rand(3, 2, 2)).shape  # three equal channels
        nnlite.Size([3, 2, 2])
    """

    def __init__(self, p: float = 0.1) -> None:
        self.p = p

    def _image(self, planes: Array) -> Array:
        if np.random.random() < self.p:
            return _grayscale(planes, planes.shape[-3])
        return planes

    def __repr__(self) -> str:
        return f"RandomGrayscale(p={self.p})"


class RandomRotation(_PlaneTransform):
    """Rotate by an angle drawn from ``degrees`` (``d`` means ``(-d, d)``), counter-clockwise, as
    ``torchvision.transforms.RandomRotation``.

    Args:
        degrees: ``d`` or ``(min, max)`` in degrees.
        interpolation: ``InterpolationMode.NEAREST`` (default) or ``BILINEAR``.
        expand: grow the output to hold the whole rotated image (single images only).
        center: ``(x, y)`` in pixels; the image centre by default.
        fill: value of the pixels that come from outside the image (a number or one per channel).

    Examples:
        >>> RandomRotation(30)(nl.zeros(1, 8, 8)).shape
        nnlite.Size([1, 8, 8])
    """

    def __init__(
        self,
        degrees: float | Sequence[float],
        interpolation: InterpolationMode | int = InterpolationMode.NEAREST,
        expand: bool = False,
        center: Sequence[float] | None = None,
        fill: _Fill | None = 0,
    ) -> None:
        if isinstance(degrees, numbers.Number):
            degree = cast(float, degrees)  # (a complex one fails below with Python's TypeError)
            if degree < 0:
                raise ValueError("If degrees is a single number, it must be positive.")
            degrees = [-float(degree), float(degree)]
        elif isinstance(degrees, (tuple, list)) and len(degrees) == 2:
            degrees = [float(d) for d in degrees]
        else:
            raise ValueError("If degrees is a sequence, it must be of len 2.")
        if center is not None and (not isinstance(center, (tuple, list)) or len(center) != 2):
            raise ValueError("If center is a sequence, it must be of len 2.")
        if fill is None:
            fill = 0
        elif not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Fill should be either a sequence or a number.")
        self.degrees = degrees
        self.interpolation = _interpolation(
            interpolation, (InterpolationMode.NEAREST, InterpolationMode.BILINEAR)
        )
        self.expand = expand
        self.center = center
        self.fill = fill

    @staticmethod
    def get_params(degrees: Sequence[float]) -> float:
        """A random angle in ``[degrees[0], degrees[1]]``.

        Args:
            degrees (pair of floats): ``(min, max)``.

        Returns:
            float: the angle in degrees.

        Examples:
            >>> -30 <= RandomRotation.get_params((-30, 30)) <= 30
            True
        """
        return float(np.random.uniform(degrees[0], degrees[1]))

    def _image(self, planes: Array) -> Array:
        angle = self.get_params(self.degrees)
        return _image_ops.rotate(
            planes, angle, self.interpolation.value, self.expand, self.center, self.fill
        )

    def _batch(self, planes: Array) -> Array:
        if self.expand:
            raise ValueError(
                "RandomRotation(expand=True) gives each image its own size: apply it to single "
                "images, not to a batch"
            )
        return super()._batch(planes)

    def __repr__(self) -> str:
        return (
            f"RandomRotation(degrees={self.degrees}, interpolation={self.interpolation.value}, "
            f"expand={self.expand}, fill={self.fill})"
        )


class Pad(_PlaneTransform):
    """Pad every side, as ``torchvision.transforms.Pad``.

    Args:
        padding: an int for all sides, ``(left/right, top/bottom)`` or ``(left, top, right, bottom)``.
        fill: the value of ``constant`` padding (a number, or one per channel).
        padding_mode: ``constant``, ``edge``, ``reflect`` or ``symmetric``.

    Examples:
        >>> Pad(2)(nl.zeros(3, 4, 4)).shape
        nnlite.Size([3, 8, 8])
    """

    deterministic = True

    def __init__(self, padding: _Padding, fill: _Fill = 0, padding_mode: str = "constant") -> None:
        if not isinstance(padding, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate padding arg")
        if not isinstance(fill, (numbers.Number, tuple, list)):
            raise TypeError("Got inappropriate fill arg")
        self._ltrb = _padding_ltrb(padding)
        self.padding = padding
        self.fill = fill
        self.padding_mode = _padding_mode(padding_mode)

    def _image(self, planes: Array) -> Array:
        left, top, right, bottom = self._ltrb
        return _image_ops.pad(
            planes, left, top, right, bottom, fill=self.fill, mode=self.padding_mode
        )

    def __repr__(self) -> str:
        return f"Pad(padding={self.padding}, fill={self.fill}, padding_mode={self.padding_mode})"


_PIL_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


class ToPILImage(Transform):
    """A ``CHW`` (or ``HW``) tensor or an ``HWC`` (or ``HW``) numpy array to a PIL image, as
    ``torchvision.transforms.ToPILImage``: floating tensors are scaled by 255 to uint8; the mode
    follows the channels (1 ``L``, 2 ``LA``, 3 ``RGB``, 4 ``RGBA``) unless ``mode`` is given.
    Needs Pillow (``pip install 'nnlite[vision]'``).

    Args:
        mode (str, optional): the PIL mode; by default from the channels.

    Examples:
        >>> ToPILImage()(nl.zeros(3, 4, 5)).size  # PIL gives (width, height)
        (5, 4)
    """

    def __init__(self, mode: str | None = None) -> None:
        self.mode = mode

    def __call__(self, pic: Tensor | Array) -> PILImage:
        import_pillow("ToPILImage")  # its ImportError first, before the checks of ``pic``
        is_t = _core.is_tensor(pic)
        if not is_t and not isinstance(pic, np.ndarray):
            raise TypeError(f"pic should be Tensor or ndarray. Got {type(pic)}.")
        arr = _core.array_of(pic) if _core.is_tensor(pic) else pic
        if arr.ndim not in (2, 3):
            raise ValueError(f"pic should be 2/3 dimensional. Got {arr.ndim} dimensions.")
        if arr.ndim == 2:
            arr = arr[None] if is_t else arr[:, :, None]
        if is_t:
            if arr.dtype.kind == "f" and self.mode != "F":
                arr = np.clip(arr * 255, 0, 255).astype(np.uint8)
            arr = arr.transpose(1, 2, 0)
        channels = arr.shape[-1]
        if channels > 4:
            raise ValueError(f"pic should not have > 4 channels. Got {channels} channels.")
        mode = self.mode
        if channels == 1:
            arr = arr[:, :, 0]
            if mode is None:
                mode = {
                    np.dtype(np.uint8): "L",
                    np.dtype(np.int16): "I;16",
                    np.dtype(np.int32): "I",
                    np.dtype(np.float32): "F",
                }.get(arr.dtype)
        elif arr.dtype != np.uint8:
            raise TypeError(f"Input type {arr.dtype} is not supported")
        mode = mode or _PIL_MODES[channels]
        if mode is None:
            raise TypeError(f"Input type {arr.dtype} is not supported")
        return image_from_array(np.ascontiguousarray(arr), mode, "ToPILImage")

    def __repr__(self) -> str:
        return "ToPILImage()" if self.mode is None else f"ToPILImage(mode={self.mode})"


class PILToTensor(Transform):
    """A PIL image (or nnlite's ``HWC``/``HW`` uint8 array image, or an ``NHWC`` batch) to a ``CHW``
    tensor of the same dtype, without scaling, as ``torchvision.transforms.PILToTensor``.

    Examples:
        >>> PILToTensor()(np.zeros((4, 5, 3), np.uint8)).shape
        nnlite.Size([3, 4, 5])
    """

    def __call__(self, pic: PILImage | Array) -> Tensor:
        if _core.is_tensor(pic):
            raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
        if not (is_pil_image(pic) or isinstance(pic, np.ndarray)):
            raise TypeError(f"pic should be PIL Image. Got {type(pic)}")
        arr = np.asarray(pic)
        if arr.ndim == 2:
            arr = arr[:, :, None]
        if arr.ndim not in (3, 4):
            raise ValueError(
                f"PILToTensor expects an HW or HWC image or an NHWC batch, got shape {arr.shape}"
            )
        return _core.from_numpy(np.ascontiguousarray(np.moveaxis(arr, -1, -3)))

    def apply_batch(self, batch: Array) -> Tensor:
        arr = np.asarray(batch)
        return self(arr[..., None] if arr.ndim == 3 else arr)


class ConvertImageDtype(Transform):
    """Convert an image tensor to ``dtype``, rescaling the values between the dtypes' intensity
    ranges (uint8 255 <-> float 1.0), as ``torchvision.transforms.ConvertImageDtype``.

    Args:
        dtype (nl.dtype): the target type.

    Examples:
        >>> ConvertImageDtype(nl.float32)(nl.tensor([[[0, 255]]], dtype=nl.uint8))
        tensor([[[0., 1.]]])
    """

    def __init__(self, dtype: DTypeLike) -> None:
        from ..autograd.dtypes import to_numpy_dtype

        self.dtype = dtype
        self._np_dtype: np.dtype[Any] = to_numpy_dtype(dtype)

    def __call__(self, image: _TensorOrArray) -> _TensorOrArray:
        arr = _core.array_of(image) if _core.is_tensor(image) else np.asarray(image)
        return _in_kind(image, _image_ops.convert_dtype(arr, self._np_dtype))

    def __repr__(self) -> str:
        return "ConvertImageDtype()"
