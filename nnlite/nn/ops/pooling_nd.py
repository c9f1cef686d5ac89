"""Pooling over one and three spatial dimensions, power-average pooling and max unpooling, built
on the 2-D pooling ops.

1-D pooling is 2-D pooling of a height-1 image. 3-D max and average pooling are separable: pooling
each depth slice over (H, W), then pooling the result over depth, gives the same windows (max of
maxes; sums of sums over counts that multiply), so each is two 2-D pooling calls. The gradients,
second order included, are those of the 2-D ops.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

import numpy as np

from .interpolate import adaptive_max_pool2d
from .pooling import adaptive_avg_pool2d, avg_pool2d, max_pool2d

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeAlias

    from ...autograd.tensor import Tensor

    # a 2-D pooling call: its output, or (output, indices)
    _Pool: TypeAlias = Callable[[Tensor], Any]


def _tuple(value: Any, n: int, name: str) -> tuple[Any, ...]:
    if isinstance(value, numbers.Integral) or value is None:
        return (value,) * n
    value = tuple(value)
    if len(value) == 1:
        return value * n
    if len(value) != n:
        raise RuntimeError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return value


def _check_rank(input: Tensor, spatial: int, name: str) -> bool:
    if input.ndim not in (spatial + 1, spatial + 2) or input.numel() == 0:
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor for input, but "
            f"got {input.ndim}D"
        )
    return input.ndim == spatial + 1


def _batched(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``fn`` on a batched (N, C, ...) input; unbatched input gets and loses a batch of one."""

    def run(input: Tensor, unbatched: bool, *args: Any) -> Any:
        out = fn(input.unsqueeze(0) if unbatched else input, *args)
        if not unbatched:
            return out
        return tuple(o.squeeze(0) for o in out) if isinstance(out, tuple) else out.squeeze(0)

    return run


# ---------------------------------------------------------------------------------------- 1-D
def _one(value: Any, default: tuple[int, int] | None = None) -> tuple[int, int] | None:
    if value is None or (not isinstance(value, numbers.Integral) and len(value) == 0):
        return default
    return (1, int(value if isinstance(value, numbers.Integral) else value[0]))


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """1-D max pooling of ``(N, C, L)`` or ``(C, L)``; ``stride`` defaults to ``kernel_size``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size, stride, padding, dilation (int): the window.
        ceil_mode (bool): round the output length up. Default: False.
        return_indices (bool): also return each maximum's position. Default: False.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.max_pool1d(nl.tensor([[[1., 3., 2., 5.]]]), 2)
        tensor([[[3., 5.]]])
    """
    _check_rank(input, 1, "max_pool1d")
    out = max_pool2d(
        input.unsqueeze(-2),
        _one(kernel_size),
        _one(stride),
        (0, _tuple(padding, 1, "padding")[0]),
        (1, _tuple(dilation, 1, "dilation")[0]),
        ceil_mode,
        return_indices,
    )
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """1-D average pooling of ``(N, C, L)`` or ``(C, L)``; ``stride`` defaults to ``kernel_size``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size, stride, padding (int): the window.
        ceil_mode (bool): round the output length up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.avg_pool1d(nl.tensor([[[1., 3., 2., 5.]]]), 2)
        tensor([[[2.0000, 3.5000]]])
    """
    _check_rank(input, 1, "avg_pool1d")
    out = avg_pool2d(
        input.unsqueeze(-2),
        _one(kernel_size),
        _one(stride),
        (0, _tuple(padding, 1, "padding")[0]),
        ceil_mode,
        count_include_pad,
    )
    return out.squeeze(-2)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` to a fixed length.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.

    Returns:
        Tensor: ``(N, C, output_size)``.

    Examples:
        >>> F.adaptive_avg_pool1d(nl.tensor([[[1., 3., 2., 5.]]]), 1)
        tensor([[[2.7500]]])
    """
    _check_rank(input, 1, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(
        input.unsqueeze(-2), (1, _tuple(output_size, 1, "output_size")[0])
    ).squeeze(-2)


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` to a fixed length.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int): the output length.
        return_indices (bool): also return each maximum's position. Default: False.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.adaptive_max_pool1d(nl.tensor([[[1., 3., 2., 5.]]]), 1)
        tensor([[[5.]]])
    """
    _check_rank(input, 1, "adaptive_max_pool1d")
    size = (1, _tuple(output_size, 1, "output_size")[0])
    out = adaptive_max_pool2d(input.unsqueeze(-2), size, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


# ---------------------------------------------------------------------------------------- 3-D
def _merge_depth(indices_hw: Tensor, indices_d: Tensor, hw: int, plane: int) -> Tensor:
    """The flat (D*H*W) position of each 3-D maximum: ``indices_d`` (flat in the (D, Ho*Wo) plane
    of the depth pass) says which depth slice won, ``indices_hw`` (flat in H*W) where in it."""
    from ...autograd.creation import tensor

    depth, point = np.divmod(indices_d._data, plane)
    n, c = indices_d.shape[:2]
    per_slice = indices_hw._data.reshape(n, c, -1)  # (N, C, D * plane)
    flat = (depth * plane + point).reshape(n, c, -1)
    within = np.take_along_axis(per_slice, flat, 2).reshape(depth.shape)
    return tensor((depth * hw + within).astype(np.int64))


def _separable_3d(x: Tensor, pool_hw: _Pool, pool_d: _Pool) -> Any:
    """``pool_d`` over depth of ``pool_hw`` over (H, W) of every depth slice of ``x`` (N, C, D, H, W)."""
    n, c, d, h, w = x.shape
    flat = pool_hw(x.reshape(n, c * d, h, w))
    first = flat[0] if isinstance(flat, tuple) else flat
    oh, ow = first.shape[-2:]
    second = pool_d(first.reshape(n, c, d, oh * ow))
    out = second[0] if isinstance(second, tuple) else second
    result = out.reshape(n, c, out.shape[2], oh, ow)
    if not isinstance(second, tuple):
        return result
    indices = _merge_depth(flat[1].reshape(n, c, d, oh * ow), second[1], h * w, oh * ow)
    return result, indices.reshape(n, c, out.shape[2], oh, ow)


@_batched
def _max_pool3d(
    x: Tensor,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil_mode: bool,
    return_indices: bool,
) -> Any:
    return _separable_3d(
        x,
        lambda t: max_pool2d(
            t, kernel[1:], stride[1:], padding[1:], dilation[1:], ceil_mode, return_indices
        ),
        lambda t: max_pool2d(
            t,
            (kernel[0], 1),
            (stride[0], 1),
            (padding[0], 0),
            (dilation[0], 1),
            ceil_mode,
            return_indices,
        ),
    )


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """3-D max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``; ``stride`` defaults to the kernel.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size, stride, padding, dilation (int or triple): the window.
        ceil_mode (bool): round the output size up. Default: False.
        return_indices (bool): also return each maximum's flat position in D*H*W. Default: False.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.max_pool3d(nl.arange(8.).reshape(1, 1, 2, 2, 2), 2)
        tensor([[[[[7.]]]]])
    """
    unbatched = _check_rank(input, 3, "max_pool3d")
    kernel = _tuple(kernel_size, 3, "kernel_size")
    stride = kernel if stride is None or stride == () else _tuple(stride, 3, "stride")
    padding, dilation = _tuple(padding, 3, "padding"), _tuple(dilation, 3, "dilation")
    return _max_pool3d(
        input, unbatched, kernel, stride, padding, dilation, ceil_mode, return_indices
    )


@_batched
def _avg_pool3d(
    x: Tensor,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    sums = divisor_override is not None  # pool sums in both passes, divide once at the end
    out: Tensor = _separable_3d(
        x,
        lambda t: avg_pool2d(
            t,
            kernel[1:],
            stride[1:],
            padding[1:],
            ceil_mode,
            count_include_pad,
            1 if sums else None,
        ),
        lambda t: avg_pool2d(
            t,
            (kernel[0], 1),
            (stride[0], 1),
            (padding[0], 0),
            ceil_mode,
            count_include_pad,
            1 if sums else None,
        ),
    )
    return out / divisor_override if divisor_override is not None else out


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """3-D average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size, stride, padding (int or triple): the window.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count padding zeros in the average. Default: True.
        divisor_override (int, optional): divide by this instead of the window size.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.avg_pool3d(nl.arange(8.).reshape(1, 1, 2, 2, 2), 2)
        tensor([[[[[3.5000]]]]])
    """
    unbatched = _check_rank(input, 3, "avg_pool3d")
    kernel = _tuple(kernel_size, 3, "kernel_size")
    stride = kernel if stride is None or stride == () else _tuple(stride, 3, "stride")
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    out: Tensor = _avg_pool3d(
        input,
        unbatched,
        kernel,
        stride,
        _tuple(padding, 3, "padding"),
        ceil_mode,
        count_include_pad,
        divisor_override,
    )
    return out


def _adaptive_size(output_size: Any, shape: Sequence[int]) -> tuple[int, ...]:
    size = _tuple(output_size, 3, "output_size")
    return tuple(shape[-3 + i] if s is None else int(s) for i, s in enumerate(size))


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to a fixed size.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size (int or triple): the output's ``(D, H, W)``; ``None`` keeps that size.

    Returns:
        Tensor: ``(N, C, *output_size)``.

    Examples:
        >>> F.adaptive_avg_pool3d(nl.ones(1, 2, 3, 4, 5), 1).shape
        nnlite.Size([1, 2, 1, 1, 1])
    """
    unbatched = _check_rank(input, 3, "adaptive_avg_pool3d")
    size = _adaptive_size(output_size, input.shape)

    @_batched
    def pool(x: Tensor) -> Any:
        return _separable_3d(
            x,
            lambda t: adaptive_avg_pool2d(t, size[1:]),
            lambda t: adaptive_avg_pool2d(t, (size[0], t.shape[-1])),
        )

    out: Tensor = pool(input, unbatched)
    return out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """Max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` to a fixed size.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size (int or triple): the output's ``(D, H, W)``; ``None`` keeps that size.
        return_indices (bool): also return each maximum's flat position in D*H*W. Default: False.

    Returns:
        Tensor, or ``(output, indices)`` with ``return_indices``.

    Examples:
        >>> F.adaptive_max_pool3d(nl.arange(8.).reshape(1, 1, 2, 2, 2), 1)
        tensor([[[[[7.]]]]])
    """
    unbatched = _check_rank(input, 3, "adaptive_max_pool3d")
    size = _adaptive_size(output_size, input.shape)

    @_batched
    def pool(x: Tensor) -> Any:
        return _separable_3d(
            x,
            lambda t: adaptive_max_pool2d(t, size[1:], return_indices),
            lambda t: adaptive_max_pool2d(t, (size[0], t.shape[-1]), return_indices),
        )

    return pool(input, unbatched)


# ---------------------------------------------------------------------------------------- lp
def _lp_pool(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any, ceil_mode: bool, spatial: int
) -> Tensor:
    from ...autograd.ops.activation import relu

    kernel = _tuple(kernel_size, spatial, "kernel_size")
    pool = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}[spatial]
    window = int(np.prod(kernel))
    powered = input**norm_type
    out = pool(powered, kernel, stride, 0, ceil_mode)
    return (out.sign() * relu(out.abs()) * window) ** (1.0 / norm_type)


def lp_pool1d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling: ``(sum of x^p over the window)^(1/p)`` over ``(N, C, L)``.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        norm_type (float): ``p``.
        kernel_size (int): the window.
        stride (int, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output length up. Default: False.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.lp_pool1d(nl.tensor([[[3., 4.]]]), 2, 2)
        tensor([[[5.]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over ``(N, C, H, W)``: ``(sum of x^p over the window)^(1/p)``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        norm_type (float): ``p``.
        kernel_size (int or pair): the window.
        stride (int or pair, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: False.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.lp_pool2d(nl.ones(1, 1, 2, 2), 1, 2)
        tensor([[[[4.]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(
    input: Tensor, norm_type: float, kernel_size: Any, stride: Any = None, ceil_mode: bool = False
) -> Tensor:
    """Power-average pooling over ``(N, C, D, H, W)``: ``(sum of x^p over the window)^(1/p)``.

    Args:
        input (Tensor): ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        norm_type (float): ``p``.
        kernel_size (int or triple): the window.
        stride (int or triple, optional): the step. Default: ``kernel_size``.
        ceil_mode (bool): round the output size up. Default: False.

    Returns:
        Tensor: the pooled tensor.

    Examples:
        >>> F.lp_pool3d(nl.ones(1, 1, 2, 2, 2), 1, 2)
        tensor([[[[[8.]]]]])
    """
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


# ---------------------------------------------------------------------------------------- unpool
def _max_unpool(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    output_size: Any,
    spatial: int,
    name: str,
) -> Tensor:
    from ...autograd.creation import zeros

    kernel = _tuple(kernel_size, spatial, "kernel_size")
    stride = kernel if stride is None else _tuple(stride, spatial, "stride")
    padding = _tuple(padding, spatial, "padding")
    unbatched = input.ndim == spatial + 1
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(
            f"{name}: Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor for input, but "
            f"got {input.ndim}D"
        )
    in_size = tuple(input.shape[-spatial:])
    default = tuple(
        (in_size[i] - 1) * stride[i] - 2 * padding[i] + kernel[i] for i in range(spatial)
    )
    if output_size is None:
        size = default
    else:
        size = tuple(int(s) for s in output_size)[-spatial:]
        for i in range(spatial):
            low, high = default[i] - stride[i], default[i] + stride[i]
            if not low < size[i] < high:
                raise ValueError(
                    f'invalid output_size "{output_size}" (dim {i} must be between {low} '
                    f"and {high})"
                )
    x = input.unsqueeze(0) if unbatched else input
    idx = indices.unsqueeze(0) if unbatched else indices
    n, c = x.shape[:2]
    plane = int(np.prod(size))
    positions = idx._data.reshape(n, c, -1)
    if positions.size and (positions.min() < 0 or positions.max() >= plane):
        raise RuntimeError(
            f"Found an invalid max index: {int(positions.max())} (output volumes are of size "
            f"{'x'.join(str(s) for s in size)}"
        )
    canvas = zeros(n, c, plane, dtype=x.dtype)
    out = canvas.scatter_add(2, idx.reshape(n, c, -1), x.reshape(n, c, -1)).reshape(n, c, *size)
    return out.squeeze(0) if unbatched else out


def max_unpool1d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of ``max_pool1d``: each value back at its maximum's position, zeros elsewhere.

    Args:
        input (Tensor): the pooled ``(N, C, L)``.
        indices (Tensor): ``max_pool1d(..., return_indices=True)``'s indices.
        kernel_size, stride, padding (int): the pooling's window.
        output_size (sequence, optional): the output's size, when pooling rounded it down.

    Returns:
        Tensor: ``(N, C, L_out)``.

    Examples:
        >>> x = nl.tensor([[[1., 3., 2., 5.]]])
        >>> F.max_unpool1d(*F.max_pool1d(x, 2, return_indices=True), 2)
        tensor([[[0., 3., 0., 5.]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1, "max_unpool1d")


def max_unpool2d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of ``max_pool2d``: each value back at its maximum's position, zeros elsewhere.

    Args:
        input (Tensor): the pooled ``(N, C, H, W)``.
        indices (Tensor): ``max_pool2d(..., return_indices=True)``'s indices.
        kernel_size, stride, padding (int or pair): the pooling's window.
        output_size (sequence, optional): the output's size, when pooling rounded it down.

    Returns:
        Tensor: ``(N, C, H_out, W_out)``.

    Examples:
        >>> x = nl.arange(4.).reshape(1, 1, 2, 2)
        >>> F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2)
        tensor([[[[0., 0.],
                  [0., 3.]]]])
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2, "max_unpool2d")


def max_unpool3d(
    input: Tensor,
    indices: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    output_size: Any = None,
) -> Tensor:
    """The partial inverse of ``max_pool3d``: each value back at its maximum's position, zeros elsewhere.

    Args:
        input (Tensor): the pooled ``(N, C, D, H, W)``.
        indices (Tensor): ``max_pool3d(..., return_indices=True)``'s indices.
        kernel_size, stride, padding (int or triple): the pooling's window.
        output_size (sequence, optional): the output's size, when pooling rounded it down.

    Returns:
        Tensor: ``(N, C, D_out, H_out, W_out)``.

    Examples:
        >>> x = nl.arange(8.).reshape(1, 1, 2, 2, 2)
        >>> F.max_unpool3d(*F.max_pool3d(x, 2, return_indices=True), 2).sum()
        tensor(7.)
    """
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3, "max_unpool3d")


def _with_indices(pool: Any, name: str) -> Any:
    """PyTorch's ``pool_with_indices``: ``pool`` returning ``(output, indices)``."""

    def with_indices(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        kwargs.pop("return_indices", None)
        return pool(input, *args, **kwargs, return_indices=True)

    spatial = 3 if "3d" in name else (2 if "2d" in name else 1)
    shape = ", ".join(["1", "1"] + ["4"] * spatial)
    with_indices.__name__ = with_indices.__qualname__ = name
    with_indices.__doc__ = f"""``{pool.__name__}(..., return_indices=True)``.

    Args:
        input (Tensor): the input.
        *args, **kwargs: as for ``{pool.__name__}``.

    Returns:
        tuple: ``(output, indices)``.

    Examples:
        >>> out, indices = F.{name}(nl.ones({shape}), 2)
        >>> indices.dtype
        nnlite.int64
    """
    return with_indices


max_pool1d_with_indices = _with_indices(max_pool1d, "max_pool1d_with_indices")
max_pool2d_with_indices = _with_indices(max_pool2d, "max_pool2d_with_indices")
max_pool3d_with_indices = _with_indices(max_pool3d, "max_pool3d_with_indices")
adaptive_max_pool1d_with_indices = _with_indices(
    adaptive_max_pool1d, "adaptive_max_pool1d_with_indices"
)
adaptive_max_pool2d_with_indices = _with_indices(
    adaptive_max_pool2d, "adaptive_max_pool2d_with_indices"
)
adaptive_max_pool3d_with_indices = _with_indices(
    adaptive_max_pool3d, "adaptive_max_pool3d_with_indices"
)
