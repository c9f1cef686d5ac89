"""``affine_grid`` and ``grid_sample``: spatial transformer sampling, as composites.

``grid_sample`` turns the grid's normalised coordinates into pixel positions (differentiable),
picks the neighbouring pixels with ``gather`` at integer positions computed on arrays, and weights
them by the fractional parts: the gradients to the input and to the grid, of every order, come from
those ops.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.ops.where import Where

if TYPE_CHECKING:
    from numpy.typing import DTypeLike

    from ..._typing import Array
    from ...autograd.tensor import Tensor

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
    "Please specify align_corners=True if the old behavior is desired. See the documentation of "
    "grid_sample for details."
)


def _base_coordinates(size: int, align_corners: bool, dtype: DTypeLike) -> Array:
    """PyTorch's normalised pixel centres along one dimension: -1..1 at the corners or centres."""
    steps = np.linspace(-1.0, 1.0, size) if size > 1 else np.zeros(1)
    return (steps if align_corners else steps * (size - 1) / size).astype(dtype)


def affine_grid(theta: Tensor, size: Any, align_corners: bool | None = None) -> Tensor:
    """The sampling grid of a batch of affine maps: ``(N, H, W, 2)`` for ``theta`` ``(N, 2, 3)``
    (or ``(N, D, H, W, 3)`` for ``(N, 3, 4)``), in ``grid_sample``'s normalised coordinates.

    Args:
        theta (Tensor): ``(N, 2, 3)`` or ``(N, 3, 4)`` affine matrices.
        size (sequence): the output's ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners (bool, optional): -1 and 1 are the corner pixels' centres (True) or the
            image's edges (False, the default; None warns as PyTorch does).

    Returns:
        Tensor: the grid, one ``(x, y[, z])`` point per output pixel.

    Examples:
        >>> theta = nl.tensor([[[1., 0., 0.], [0., 1., 0.]]])
        >>> F.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, 0]
        tensor([[-1., -1.],
                [ 1., -1.]])
    """
    from ...autograd.creation import tensor

    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    given, size = size, tuple(int(s) for s in size)
    dims = len(size) - 2
    if dims not in (2, 3):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {given}."
        )
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (dims, dims + 1):
        kind = (
            "2D affine matrices of shape Nx2x3"
            if dims == 2
            else "3D affine matrices of shape Nx3x4"
        )
        raise ValueError(f"Expected a batch of {kind} for size {given}. Got {theta.shape}.")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
            "align_corners=True. This is not an intended use case of affine_grid. See the "
            "documentation of affine_grid for details.",
            stacklevel=2,
        )
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {given}")
    dtype = theta._data.dtype
    axes = [_base_coordinates(s, align_corners, dtype) for s in spatial]
    mesh = np.meshgrid(*axes, indexing="ij")  # (D,) H, W
    points = [*reversed(mesh), np.ones_like(mesh[0])]  # x, y[, z], 1
    base = tensor(np.stack(points, axis=-1).reshape(1, -1, dims + 1))
    grid = base @ theta.transpose(1, 2)  # (N, points, dims)
    return grid.reshape(size[0], *spatial, dims)


def _unnormalise(coordinate: Tensor, size: int, align_corners: bool) -> Tensor:
    if align_corners:
        return (coordinate + 1) * ((size - 1) / 2)
    return ((coordinate + 1) * size - 1) / 2


def _reflect(coordinate: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """PyTorch's ``reflect_coordinates``: fold ``coordinate`` into ``[low, high]`` by mirroring."""
    if twice_low == twice_high:
        return coordinate * 0.0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coordinate - low).abs()
    flips = np.floor(distance._data / span)
    extra = distance - flips * span
    out: Tensor = Where.apply(flips % 2 == 0, extra + low, span - extra + low)
    return out


def _source_coordinate(
    coordinate: Tensor, size: int, padding_mode: str, align_corners: bool
) -> Tensor:
    """A grid coordinate as a (fractional) pixel position, after the padding mode's folding."""
    x = _unnormalise(coordinate, size, align_corners)
    if padding_mode == "border":
        return x.clamp(0, size - 1)
    if padding_mode == "reflection":
        if align_corners:
            x = _reflect(x, 0, 2 * (size - 1))
        else:
            x = _reflect(x, -1, 2 * size - 1)
        return x.clamp(0, size - 1)
    return x


def _pick(flat: Tensor, rows: Array, cols: Array, height: int, width: int) -> tuple[Tensor, Array]:
    """``flat[n, c, rows * width + cols]`` per output point (zero where outside the image):
    ``flat`` (N, C, H*W), ``rows``/``cols`` int arrays (N, P)."""
    from ...autograd.creation import tensor

    inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width)
    index = np.where(inside, rows * width + cols, 0).astype(np.int64)
    index = np.broadcast_to(index[:, None, :], flat.shape[:2] + index.shape[1:]).copy()
    values = flat.gather(2, tensor(index))
    return values, inside[:, None, :]


def grid_sample(
    input: Tensor,
    grid: Tensor,
    mode: str = "bilinear",
    padding_mode: str = "zeros",
    align_corners: bool | None = None,
) -> Tensor:
    """Sample ``input`` at the grid's points: ``(N, C, H, W)`` and ``(N, Ho, Wo, 2)`` give
    ``(N, C, Ho, Wo)``. Grid points are ``(x, y)`` in [-1, 1] (outside: ``padding_mode``).

    Args:
        input (Tensor): ``(N, C, H, W)``.
        grid (Tensor): ``(N, Ho, Wo, 2)`` normalised ``(x, y)`` points.
        mode (str): ``"bilinear"`` or ``"nearest"`` (``"bicubic"`` is not implemented).
            Default: ``"bilinear"``.
        padding_mode (str): ``"zeros"``, ``"border"`` or ``"reflection"``. Default: ``"zeros"``.
        align_corners (bool, optional): as for ``affine_grid``. Default: False (None warns).

    Returns:
        Tensor: ``(N, C, Ho, Wo)``.

    Examples:
        >>> image = nl.arange(4.).reshape(1, 1, 2, 2)
        >>> F.grid_sample(image, nl.zeros(1, 1, 1, 2), align_corners=False)
        tensor([[[[1.5000]]]])
    """
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
            f"but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
            f"'reflection', but got: '{padding_mode}'"
        )
    if mode == "bicubic":
        raise NotImplementedError("grid_sample: mode='bicubic' is not implemented in nnlite")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if input.ndim != 4:
        raise NotImplementedError(
            f"grid_sample: nnlite samples 4-D (N, C, H, W) input; got a {input.ndim}-D input"
        )
    if grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid to have size 2 in last dimension and the same batch "
            f"size as input, but got input of shape {list(input.shape)} and grid of shape "
            f"{list(grid.shape)}"
        )
    n, c, height, width = input.shape
    out_h, out_w = grid.shape[1:3]
    points = grid.reshape(n, out_h * out_w, 2)
    x = _source_coordinate(points[..., 0], width, padding_mode, align_corners)
    y = _source_coordinate(points[..., 1], height, padding_mode, align_corners)
    flat = input.reshape(n, c, height * width)
    if mode == "nearest":
        values, inside = _pick(flat, np.rint(y._data), np.rint(x._data), height, width)
        out: Tensor | None = Where.apply(inside, values, 0.0)
    else:
        left, top = np.floor(x._data), np.floor(y._data)
        fx, fy = (x - left).unsqueeze(1), (y - top).unsqueeze(1)  # (N, 1, P)
        out = None
        for rows, cols, weight in (
            (top, left, (1 - fx) * (1 - fy)),
            (top, left + 1, fx * (1 - fy)),
            (top + 1, left, (1 - fx) * fy),
            (top + 1, left + 1, fx * fy),
        ):
            values, inside = _pick(flat, rows, cols, height, width)
            term = Where.apply(inside, values * weight, 0.0)
            out = term if out is None else out + term
    assert out is not None
    return out.reshape(n, c, out_h, out_w)
