"""``unfold`` (im2col) and ``fold`` (col2im): sliding blocks of an image as columns and back.

Both are composites: ``unfold`` gathers the padded image's pixels at precomputed flat positions
(``index_select``), ``fold`` sums the columns into those positions (``scatter_add``), so each is the
other's gradient and every order of derivative comes from those two ops.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._messages import pair

if TYPE_CHECKING:
    from typing import TypeAlias

    from ..._typing import Array, _size_any
    from ...autograd.tensor import Tensor

    _Pair: TypeAlias = tuple[int, int]


def _args(
    kernel_size: _size_any, dilation: _size_any, padding: _size_any, stride: _size_any, fn: str
) -> tuple[_Pair, _Pair, _Pair, _Pair]:
    kernel, dilation = pair(kernel_size, "kernel_size", fn), pair(dilation, "dilation", fn)
    padding, stride = pair(padding, "padding", fn), pair(stride, "stride", fn)
    for name, values, low in (
        ("kernel", kernel, 1),
        ("dilation", dilation, 1),
        ("stride", stride, 1),
        ("padding", padding, 0),
    ):
        if min(values) < low:
            what = "non-negative" if low == 0 else "greater than zero"
            raise RuntimeError(
                f"{name} should be {what}, but got {name}_height: {values[0]} {name}_width: "
                f"{values[1]}"
            )
    return kernel, dilation, padding, stride


def _blocks(
    size: _Pair, kernel: _Pair, dilation: _Pair, padding: _Pair, stride: _Pair
) -> tuple[int, ...]:
    """The number of block positions along each dimension of an image of ``size``."""
    return tuple(
        (size[i] + 2 * padding[i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
        for i in range(2)
    )


def _positions(
    padded_w: int, kernel: _Pair, dilation: _Pair, stride: _Pair, blocks: tuple[int, ...]
) -> Array:
    """The flat index in the padded (H, W) plane of every (kernel tap, block) pair, tap-major."""
    taps_h = np.arange(kernel[0])[:, None] * dilation[0]
    taps_w = np.arange(kernel[1])[None, :] * dilation[1]
    rows = (taps_h[..., None, None] + (np.arange(blocks[0]) * stride[0])[:, None]).astype(np.int64)
    cols = (taps_w[..., None, None] + (np.arange(blocks[1]) * stride[1])[None, :]).astype(np.int64)
    return (rows * padded_w + cols).reshape(-1)


def _index(positions: Array) -> Tensor:
    from ...autograd.creation import tensor

    return tensor(positions)


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """Extract sliding local blocks: ``(N, C, H, W)`` to ``(N, C * kh * kw, L)`` (im2col).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or pair): the block's size.
        dilation (int or pair): the spacing of a block's elements. Default: 1.
        padding (int or pair): zeros added on each side. Default: 0.
        stride (int or pair): the step between blocks. Default: 1.

    Returns:
        Tensor: ``(N, C * kh * kw, L)``, ``L`` the number of blocks.

    Examples:
        >>> F.unfold(nl.arange(9.).reshape(1, 1, 3, 3), 2)
        tensor([[[0., 1., 3., 4.],
                 [1., 2., 4., 5.],
                 [3., 4., 6., 7.],
                 [4., 5., 7., 8.]]])
    """
    from .padding import pad

    if input.ndim not in (3, 4):
        raise RuntimeError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)"
        )
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride, "unfold")
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    blocks = _blocks((h, w), kernel, dilation, padding, stride)
    if min(blocks) < 1:
        raise RuntimeError(
            f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, calculated shape of the array of sliding blocks as {blocks}, "
            "but its components must be at least one."
        )
    if max(padding) > 0:
        x = pad(x, (padding[1], padding[1], padding[0], padding[0]))
    positions = _positions(w + 2 * padding[1], kernel, dilation, stride, blocks)
    cols = x.reshape(n, c, -1).index_select(2, _index(positions))
    out = cols.reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])
    return out.squeeze(0) if unbatched else out


def fold(
    input: Tensor,
    output_size: Any,
    kernel_size: Any,
    dilation: Any = 1,
    padding: Any = 0,
    stride: Any = 1,
) -> Tensor:
    """Sum sliding local blocks into an image: ``(N, C * kh * kw, L)`` to ``(N, C, H, W)`` (col2im).

    Overlapping blocks add up, so ``fold(unfold(x))`` multiplies each pixel by the number of blocks
    covering it.

    Args:
        input (Tensor): ``(N, C * kh * kw, L)`` or ``(C * kh * kw, L)``.
        output_size (int or pair): the image's ``(H, W)``.
        kernel_size (int or pair): the block's size.
        dilation (int or pair): the spacing of a block's elements. Default: 1.
        padding (int or pair): the padding the blocks were taken with. Default: 0.
        stride (int or pair): the step between blocks. Default: 1.

    Returns:
        Tensor: ``(N, C, H, W)``.

    Examples:
        >>> F.fold(nl.ones(1, 4, 4), (3, 3), 2)
        tensor([[[[1., 2., 1.],
                  [2., 4., 2.],
                  [1., 2., 1.]]]])
    """
    from ...autograd.creation import zeros

    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got "
            f"{input.ndim}D)"
        )
    size = pair(output_size, "output_size", "fold")
    kernel, dilation, padding, stride = _args(kernel_size, dilation, padding, stride, "fold")
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    n, rows, length = x.shape
    taps = kernel[0] * kernel[1]
    if rows % taps:
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={rows} and kernel_size={kernel}."
        )
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(
            f"Given output_size={size}, kernel_size={kernel}, dilation={dilation}, "
            f"padding={padding}, stride={stride}, expected size of input's dimension 2 to match "
            f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
            f"{blocks[0] * blocks[1]}, but got input.size(2)={length}."
        )
    c = rows // taps
    padded = (size[0] + 2 * padding[0], size[1] + 2 * padding[1])
    positions = _positions(padded[1], kernel, dilation, stride, blocks)
    index = _index(np.broadcast_to(positions, (n, c, positions.size)).copy())
    canvas = zeros(n, c, padded[0] * padded[1], dtype=x.dtype)
    out = canvas.scatter_add(2, index, x.reshape(n, c, taps * length)).reshape(n, c, *padded)
    out = out[:, :, padding[0] : padding[0] + size[0], padding[1] : padding[1] + size[1]]
    return out.squeeze(0) if unbatched else out
