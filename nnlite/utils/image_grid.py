"""``make_grid`` and ``save_image``: torchvision's helpers to look at a batch of images."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypedDict

import numpy as np

from .._pillow import import_pillow

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from .._typing import Array, FileLike
    from ..autograd.tensor import Tensor


class _GridOptions(TypedDict, total=False):
    """The keyword arguments ``save_image`` passes on to ``make_grid``."""

    nrow: int
    padding: int
    normalize: bool
    value_range: tuple[float, float] | None
    scale_each: bool
    pad_value: float


def _as_batch(tensor: Tensor | Sequence[Tensor]) -> Array:
    """A float ``(B, C, H, W)`` array from a 4-d tensor, a 3-d ``CHW``/2-d ``HW`` image or a list of
    images; one-channel images become three channels, as torchvision does."""
    from ..autograd.tensor import Tensor

    if isinstance(tensor, (list, tuple)):
        if not tensor or not all(isinstance(t, Tensor) for t in tensor):
            raise TypeError("make_grid: expected a Tensor or a non-empty list of Tensors")
        arr = np.stack([t.detach().numpy() for t in tensor])
    elif isinstance(tensor, Tensor):
        arr = tensor.detach().numpy()
    else:
        raise TypeError(
            f"make_grid: expected a Tensor or a list of Tensors, got {type(tensor).__name__}"
        )
    if arr.ndim == 2:
        arr = arr[None]
    if arr.ndim == 3:
        arr = arr[None]
    if arr.ndim != 4:
        raise ValueError(
            f"make_grid: expected images of shape (B, C, H, W), (C, H, W) or (H, W), got {arr.shape}"
        )
    if arr.shape[1] == 1:
        arr = np.repeat(arr, 3, axis=1)
    return arr


def _normalize(arr: Array, value_range: tuple[float, float] | None, scale_each: bool) -> Array:
    if value_range is not None and not (isinstance(value_range, tuple) and len(value_range) == 2):
        raise TypeError(
            "value_range has to be a tuple (min, max) if specified. min and max are numbers"
        )
    arr = arr.astype(np.result_type(arr.dtype, np.float32), copy=True)

    def scale(x: Array, low: float, high: float) -> None:
        np.clip(x, low, high, out=x)
        x -= low
        x /= max(high - low, 1e-5)

    if scale_each:
        for img in arr:
            scale(img, *(value_range or (float(img.min()), float(img.max()))))
    else:
        scale(arr, *(value_range or (float(arr.min()), float(arr.max()))))
    return arr


def make_grid(
    tensor: Tensor | Sequence[Tensor],
    nrow: int = 8,
    padding: int = 2,
    normalize: bool = False,
    value_range: tuple[float, float] | None = None,
    scale_each: bool = False,
    pad_value: float = 0.0,
) -> Tensor:
    """Tile a batch of images into one ``(C, H', W')`` image, as ``torchvision.utils.make_grid``.

    Args:
        tensor: a ``(B, C, H, W)`` tensor, or a list of ``(C, H, W)`` images of one size.
        nrow: images per row of the grid.
        padding: pixels between images and around the grid.
        normalize: shift and scale values into [0, 1] (by ``value_range``, else by the min and max).
        value_range: ``(min, max)`` for ``normalize``.
        scale_each: normalize each image by its own min and max.
        pad_value: value of the padding pixels.

    Returns:
        Tensor: the grid (a single image is returned as it is, after the channel expansion).

    Examples:
        >>> nl.utils.make_grid(nl.rand(10, 1, 28, 28), nrow=5).shape
        nnlite.Size([3, 62, 152])
    """
    from ..autograd.tensor import _make

    arr = _as_batch(tensor)
    if normalize:
        arr = _normalize(arr, value_range, scale_each)
    if arr.shape[0] == 1:
        return _make(np.ascontiguousarray(arr[0]))
    count, channels, height, width = arr.shape
    columns = min(nrow, count)
    rows = int(math.ceil(count / columns))
    cell_h, cell_w = height + padding, width + padding
    grid = np.full(
        (channels, cell_h * rows + padding, cell_w * columns + padding), pad_value, dtype=arr.dtype
    )
    for k in range(count):
        top, left = (k // columns) * cell_h + padding, (k % columns) * cell_w + padding
        grid[:, top : top + height, left : left + width] = arr[k]
    return _make(grid)


def save_image(
    tensor: Tensor | Sequence[Tensor],
    fp: FileLike,
    format: str | None = None,
    **kwargs: Unpack[_GridOptions],
) -> None:
    """Save a tensor (or a batch, tiled by ``make_grid(**kwargs)``) as an image file through Pillow.

    Values in [0, 1] map to 0..255 (rounded, clamped). The format comes from the file name
    unless ``format`` is given; PNG keeps the values exactly.

    Args:
        tensor (Tensor): a ``(C, H, W)`` image or a ``(B, C, H, W)`` batch, values in [0, 1].
        fp (str or file): where to write.
        format (str, optional): the image format; by default from the file name.
        **kwargs: passed to ``make_grid`` (``nrow``, ``padding``, ``normalize``, ...).

    Examples:
        >>> nl.utils.save_image(nl.rand(16, 1, 28, 28), "samples.png", nrow=4)
        >>> from PIL import Image
        >>> Image.open("samples.png").size  # 4 x 4 tiles of 28 pixels, 2-pixel borders
        (122, 122)
    """
    image = import_pillow("save_image")
    grid = make_grid(tensor, **kwargs).numpy()
    pixels = np.clip(grid * 255 + 0.5, 0, 255).astype(np.uint8).transpose(1, 2, 0)
    if pixels.shape[2] == 1:
        pixels = pixels[:, :, 0]
    image.fromarray(np.ascontiguousarray(pixels)).save(fp, format=format)
