"""``interpolate`` (nearest, linear, bilinear) and ``adaptive_max_pool2d``: composites of indexing,
so their gradients (scatter-adds into the sources) need no code of their own."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.creation import stack

if TYPE_CHECKING:
    from ..._typing import Array
    from ...autograd.tensor import Tensor


def _output_sizes(
    input: Tensor, size: Any, scale_factor: Any, spatial: int
) -> tuple[tuple[int, ...], tuple[float, ...]]:
    in_sizes = input.shape[2:]
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,) * spatial
        if len(sizes) != spatial:
            raise ValueError(
                f"Input and output must have the same number of spatial dimensions, but got input with "
                f"spatial dimensions of {list(in_sizes)} and output size of {list(sizes)}. Please "
                "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                "...,oK) format."
            )
        return tuple(int(s) for s in sizes), tuple(i / o for i, o in zip(in_sizes, sizes))
    factors = (
        tuple(scale_factor)
        if isinstance(scale_factor, (tuple, list))
        else (scale_factor,) * spatial
    )
    sizes = tuple(int(math.floor(i * f)) for i, f in zip(in_sizes, factors))
    return sizes, tuple(1.0 / f for f in factors)


def _along(dim: int, index: Array) -> tuple[slice | Array, ...]:
    return (slice(None),) * dim + (index,)


def _nearest(input: Tensor, sizes: tuple[int, ...], scales: tuple[float, ...]) -> Tensor:
    out = input
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        n_in = input.shape[2 + k]
        source = np.minimum(np.floor(np.arange(n_out) * scale).astype(np.int64), n_in - 1)
        out = out[_along(2 + k, source)]
    return out


def _linear_weights(
    n_in: int, n_out: int, scale: float, align_corners: bool
) -> tuple[Array, Array, Array]:
    """Lower source index, upper source index and the upper one's weight, per output position."""
    positions = np.arange(n_out, dtype=np.float64)
    if align_corners:
        source = positions * ((n_in - 1) / (n_out - 1)) if n_out > 1 else np.zeros(n_out)
    else:
        source = np.maximum((positions + 0.5) * scale - 0.5, 0.0)
    lower = np.minimum(np.floor(source).astype(np.int64), n_in - 1)
    upper = np.minimum(lower + 1, n_in - 1)
    return lower, upper, source - lower


def _linear(
    input: Tensor, sizes: tuple[int, ...], scales: tuple[float, ...], align_corners: bool
) -> Tensor:
    out = input
    for k, (n_out, scale) in enumerate(zip(sizes, scales)):
        dim = 2 + k
        lower, upper, weight = _linear_weights(input.shape[dim], n_out, scale, align_corners)
        shape = [1] * input.ndim
        shape[dim] = n_out
        w = weight.reshape(shape).astype(input._data.dtype)
        out = out[_along(dim, lower)] * (1 - w) + out[_along(dim, upper)] * w
    return out


_LINEAR_MODES = {"linear": 1, "bilinear": 2}


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: float | tuple[float, ...] | None = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: Any = False,
) -> Tensor:
    """Resize the spatial dimensions of (N, C, ...) input to ``size`` or by ``scale_factor``.

    Args:
        mode (str): ``"nearest"`` (any number of spatial dims), ``"linear"`` (3-D input),
            ``"bilinear"`` (4-D input).
        align_corners (bool): for the linear modes, map corner pixels' centres onto each other.

    Returns:
        Tensor: ``(N, C, *size)``.

    Examples:
        >>> F.interpolate(nl.tensor([[[1., 2.]]]), scale_factor=2).tolist()
        [[[1.0, 1.0, 2.0, 2.0]]]
    """
    spatial = input.ndim - 2
    if spatial < 1:
        raise ValueError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D)"
        )
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported by nnlite")
    if mode == "nearest":
        if align_corners is not None:
            raise ValueError(
                "align_corners option can only be set with the interpolating modes: "
                "linear | bilinear | bicubic | trilinear"
            )
        sizes, scales = _output_sizes(input, size, scale_factor, spatial)
        if recompute_scale_factor:
            scales = tuple(i / o for i, o in zip(input.shape[2:], sizes))
        return _nearest(input, sizes, scales)
    if mode in _LINEAR_MODES:
        if _LINEAR_MODES[mode] != spatial:
            raise NotImplementedError(
                f"Got {input.ndim}D input, but {mode} mode needs {_LINEAR_MODES[mode] + 2}D input"
            )
        sizes, scales = _output_sizes(input, size, scale_factor, spatial)
        if recompute_scale_factor:
            scales = tuple(i / o for i, o in zip(input.shape[2:], sizes))
        return _linear(input, sizes, scales, bool(align_corners))
    raise NotImplementedError(
        f"interpolate: mode '{mode}' is not supported by nnlite (nearest, linear, bilinear)"
    )


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max over PyTorch's adaptive windows ``[floor(i n / m), ceil((i + 1) n / m))``; indices are
    flat positions in each H x W plane.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or pair): the output's ``(H, W)``; ``None`` keeps that size.
        return_indices (bool): also return where each maximum came from. Default: False.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.adaptive_max_pool2d(nl.arange(16.).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}"
        )
    height, width = input.shape[-2:]
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else output_size
    out_h = height if out_h is None else out_h
    out_w = width if out_w is None else out_w
    rows, rows_idx = [], []
    for i in range(out_h):
        h0, h1 = (i * height) // out_h, -(-((i + 1) * height) // out_h)
        cells, cells_idx = [], []
        for j in range(out_w):
            w0, w1 = (j * width) // out_w, -(-((j + 1) * width) // out_w)
            best = input[..., h0:h1, w0:w1].flatten(-2).max(-1)
            local = best.indices._data
            cells.append(best.values)
            cells_idx.append((h0 + local // (w1 - w0)) * width + w0 + local % (w1 - w0))
        rows.append(stack(cells, -1))
        rows_idx.append(np.stack(cells_idx, -1))
    values = stack(rows, -2)
    if return_indices:
        from ...autograd.tensor import _make

        return values, _make(np.stack(rows_idx, -2).astype(np.int64))
    return values
