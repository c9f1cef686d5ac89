"""Sampling of volumes at grid points: the 5-D case of PyTorch's ``grid_sampler`` (``nl.grid_sampler_3d``),
trilinear or nearest, with zeros, border or reflection padding.

It is a composite: the eight (or one) neighbours of each point are gathered from the flattened
volume and weighted by the point's fractional position, so gradients reach both the volume and
the grid through the ops it is made of.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from .autograd.tensor import Tensor

__all__ = ["grid_sample_volume"]


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(x: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """``x`` reflected into ``[twice_low / 2, twice_high / 2]`` (PyTorch's reflect_coordinates)."""
    from .autograd.creation import where

    if twice_low == twice_high:
        return x * 0
    low = twice_low / 2
    span = (twice_high - twice_low) / 2
    x = (x - low).abs()
    extra = x.fmod(span)
    flips = (x.detach() / span).floor()
    even = flips.fmod(2) == 0
    return where(even, extra + low, span - extra + low)


def _source_index(coord: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    x = _unnormalize(coord, size, align_corners)
    if padding_mode == "border":
        x = x.clamp(0, size - 1)
    elif padding_mode == "reflection":
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        x = x.clamp(0, size - 1)
    return x


def grid_sample_volume(
    input: Tensor, grid: Tensor, mode: str, padding_mode: str, align_corners: bool
) -> Tensor:
    """Sample ``input`` ``(N, C, D, H, W)`` at ``grid`` ``(N, Do, Ho, Wo, 3)`` (points ``(x, y, z)``
    in [-1, 1]); returns ``(N, C, Do, Ho, Wo)``.

    Args:
        input (Tensor): the volume.
        grid (Tensor): the points.
        mode (str): ``"bilinear"`` (trilinear) or ``"nearest"``.
        padding_mode (str): ``"zeros"``, ``"border"`` or ``"reflection"``.
        align_corners (bool): -1 and 1 are the corner voxels' centres.

    Returns:
        Tensor: the samples.

    Examples:
        >>> from nnlite.grid_sample_volume import grid_sample_volume
        >>> grid_sample_volume(nl.ones(1, 1, 2, 2, 2), nl.zeros(1, 1, 1, 1, 3), "bilinear", "zeros", False)
        tensor([[[[[1.]]]]])
    """
    from .autograd.creation import tensor

    if input.ndim != 5 or grid.ndim != 5 or grid.shape[-1] != 3 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            f"grid_sampler_3d(): expected 5D input and grid with same batch size and last dimension "
            f"3, but got input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    n, c, depth, height, width = input.shape
    out_shape = grid.shape[1:4]
    points = grid.reshape(n, -1, 3)
    ix = _source_index(points[..., 0], width, padding_mode, align_corners)
    iy = _source_index(points[..., 1], height, padding_mode, align_corners)
    iz = _source_index(points[..., 2], depth, padding_mode, align_corners)
    volume = input.reshape(n, c, -1)
    count = points.shape[1]

    def corner(xs: np.ndarray, ys: np.ndarray, zs: np.ndarray) -> tuple[Tensor, np.ndarray]:
        inside = (xs >= 0) & (xs < width) & (ys >= 0) & (ys < height) & (zs >= 0) & (zs < depth)
        flat = np.where(inside, (zs * height + ys) * width + xs, 0).astype(np.int64)
        index = tensor(np.broadcast_to(flat[:, None, :], (n, c, count)).copy())
        return volume.gather(2, index), inside

    if mode == "nearest":
        coords = [np.rint(t._data).astype(np.int64) for t in (ix, iy, iz)]
        values, inside = corner(*coords)
        picked = values * tensor(inside[:, None, :].astype(input._data.dtype))
        return picked.reshape(n, c, *out_shape)
    floors = [np.floor(t._data).astype(np.int64) for t in (ix, iy, iz)]
    fractions = [t - tensor(f.astype(t._data.dtype)) for t, f in zip((ix, iy, iz), floors)]
    out: Any = None
    for dz in (0, 1):
        for dy in (0, 1):
            for dx in (0, 1):
                weight: Any = None
                for frac, step in zip(fractions, (dx, dy, dz)):
                    w = frac if step else 1 - frac
                    weight = w if weight is None else weight * w
                values, inside = corner(floors[0] + dx, floors[1] + dy, floors[2] + dz)
                mask = tensor(inside.astype(input._data.dtype))
                term = values * (weight * mask).unsqueeze(1)
                out = term if out is None else out + term
    sampled: Tensor = out.reshape(n, c, *out_shape)
    return sampled
