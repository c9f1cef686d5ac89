"""Fractional max pooling (Graham, 2014), as PyTorch's ``fractional_max_pool2d/3d``.

Each plane (sample, channel) gets pseudo-random window starts from its ``_random_samples`` entry,
drawn in ``[0, 1)``: along a dimension of input size ``n``, output size ``o`` and window ``k``,
with ``alpha = (n - k) / (o - 1)`` computed in the input's dtype, window ``i`` starts at
``int((i + u) * alpha) - int(u * alpha)`` and the last one at ``n - k``, exactly as PyTorch's
kernel does, so the same samples pick the same windows. The maximum of each window is found on
arrays (its flat index within the plane, first maximum in row-major order); the output is then
a ``gather`` of those indices, so gradients of every order flow through ``gather``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.tensor import _make
from ..functional_helpers import boolean_dispatch

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = [
    "fractional_max_pool2d",
    "fractional_max_pool2d_with_indices",
    "fractional_max_pool3d",
    "fractional_max_pool3d_with_indices",
]

# PyTorch's kernel names the dimensions it checks: (time,) height, width
_DIM_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}
_KERNEL_NAME = {2: "fractional_max_pool2d()", 3: "fractional_max_pool3d_out()"}
# which entry of a plane's samples drives each dimension, as in PyTorch's kernels
_SAMPLE_OF_DIM = {2: (1, 0), 3: (0, 1, 2)}


def _tuple(value: Any, n: int) -> tuple[Any, ...]:
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


def _starts(samples: np.ndarray, size: int, out: int, kernel: int) -> np.ndarray:
    """(N, C, out) window starts along one dimension from the samples (N, C) of each plane."""
    dtype = samples.dtype
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = dtype.type(size - kernel) / dtype.type(out - 1)
        steps = np.arange(out - 1, dtype=dtype)
        first = ((steps + samples[..., None]) * alpha).astype(np.int64)
        starts[..., :-1] = first - (samples * alpha).astype(np.int64)[..., None]
    if out > 0:
        starts[..., -1] = size - kernel
    return starts


def _pool(
    input: Tensor,
    kernel_size: Any,
    output_size: Any,
    output_ratio: Any,
    random_samples: Tensor | None,
    dims: int,
) -> tuple[Tensor, Tensor]:
    name = f"fractional_max_pool{dims}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if input.dim() not in (dims + 1, dims + 2):
        raise RuntimeError(
            f"{name}(): Expected {dims + 1}D or {dims + 2}D tensor, but got: {list(input.shape)}"
        )
    batched = input.dim() == dims + 2
    x = input if batched else input.unsqueeze(0)
    spatial = tuple(x.shape[2:])
    if output_size is None:
        # len() of a plain float raises TypeError here, as in PyTorch (the layers pass tuples)
        if len(output_ratio) > dims:
            raise ValueError(
                f"{name} requires output_ratio to either be a single Int or tuple of Ints."
            )
        ratio = _tuple(output_ratio, dims)
        output_size = [int(n * r) for n, r in zip(spatial, ratio)]
    out = tuple(int(o) for o in _tuple(output_size, dims))
    kernel = tuple(int(k) for k in _tuple(kernel_size, dims))
    batch, channels = x.shape[0], x.shape[1]
    if random_samples is None:
        random_samples = x.new_empty((batch, channels, dims)).uniform_()
    samples = random_samples._data
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[2] != dims:
        raise RuntimeError(
            f"Expect _random_samples.size(2) equals to {dims}; got {samples.shape[2]}."
        )
    for label, n, o, k in zip(_DIM_NAMES[dims], spatial, out, kernel):
        if o + k - 1 > n:
            raise RuntimeError(
                f"{_KERNEL_NAME[dims]}: pool {label} {k} too large relative to input {label} {n}"
            )
    samples = samples.astype(x._data.dtype, copy=False)
    # the flat in-plane index of every element of every window: (N, C, *out, prod(kernel))
    flat = np.zeros((batch, channels) + out + (int(np.prod(kernel)),), dtype=np.int64)
    stride = 1
    for d in reversed(range(dims)):
        starts = _starts(samples[:, :, _SAMPLE_OF_DIM[dims][d]], spatial[d], out[d], kernel[d])
        view = [1] * dims
        view[d] = out[d]
        starts = starts.reshape((batch, channels, *view, 1))
        offsets = np.indices(kernel)[d].reshape(-1)
        flat += (starts + offsets) * stride
        stride *= spatial[d]
    planes = x._data.reshape(batch, channels, -1)
    values = np.take_along_axis(planes, flat.reshape(batch, channels, -1), axis=2)
    winner = values.reshape(flat.shape).argmax(axis=-1)[..., None]
    indices = np.take_along_axis(flat, winner, axis=-1)[..., 0]
    index = _make(indices)
    output = x.flatten(2).gather(2, index.reshape(batch, channels, -1))
    output = output.reshape(batch, channels, *out)
    if not batched:
        return output.squeeze(0), index.squeeze(0)
    return output, index


def fractional_max_pool2d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)``, with the indices.

    Args:
        input (Tensor): the input.
        kernel_size (int or pair): the pooling window.
        output_size (int or pair, optional): the output's ``(oH, oW)``.
        output_ratio (float or pair, optional): the output's size as a fraction of the input's
            (when ``output_size`` is not given).
        return_indices (bool): accepted for PyTorch's signature; the indices are always returned.
        _random_samples (Tensor, optional): ``(N, C, 2)`` values in ``[0, 1)`` that place the
            windows (drawn with ``nl.rand`` when not given).

    Returns:
        tuple: the pooled tensor and the flat index of each maximum within its plane.

    Examples:
        >>> x = nl.arange(16.0).reshape(1, 1, 4, 4)
        >>> out, idx = F.fractional_max_pool2d_with_indices(
        ...     x, 2, output_size=2, _random_samples=nl.zeros(1, 1, 2))
        >>> out, idx
        (tensor([[[[ 5.,  7.],
                  [13., 15.]]]]), tensor([[[[ 5,  7],
                  [13, 15]]]]))
    """
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def _fractional_max_pool2d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Tensor:
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 2)[0]


def fractional_max_pool3d_with_indices(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)``, with the indices.

    Args:
        input (Tensor): the input.
        kernel_size (int or triple): the pooling window.
        output_size (int or triple, optional): the output's ``(oT, oH, oW)``.
        output_ratio (float or triple, optional): the output's size as a fraction of the input's.
        return_indices (bool): accepted for PyTorch's signature; the indices are always returned.
        _random_samples (Tensor, optional): ``(N, C, 3)`` values in ``[0, 1)`` that place the
            windows.

    Returns:
        tuple: the pooled tensor and the flat index of each maximum within its volume.

    Examples:
        >>> x = nl.arange(27.0).reshape(1, 1, 3, 3, 3)
        >>> out, idx = F.fractional_max_pool3d_with_indices(x, 2, output_size=1)
        >>> out.flatten(), idx.flatten()
        (tensor([26.]), tensor([26]))
    """
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def _fractional_max_pool3d(
    input: Tensor,
    kernel_size: Any,
    output_size: Any = None,
    output_ratio: Any = None,
    return_indices: bool = False,
    _random_samples: Tensor | None = None,
) -> Tensor:
    return _pool(input, kernel_size, output_size, output_ratio, _random_samples, 3)[0]


fractional_max_pool2d = boolean_dispatch(
    arg_name="return_indices",
    arg_index=4,
    default=False,
    if_true=fractional_max_pool2d_with_indices,
    if_false=_fractional_max_pool2d,
    module_name=__name__,
    func_name="fractional_max_pool2d",
)

fractional_max_pool3d = boolean_dispatch(
    arg_name="return_indices",
    arg_index=4,
    default=False,
    if_true=fractional_max_pool3d_with_indices,
    if_false=_fractional_max_pool3d,
    module_name=__name__,
    func_name="fractional_max_pool3d",
)
