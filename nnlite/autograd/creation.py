"""Tensor creation (``nl.tensor``, ``nl.zeros``, ``nl.randn`` ...) and joining (``nl.cat``, ``nl.stack``, ``nl.where``)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, Protocol

import numpy as np

from ..device import check_device
from .creation_keywords import creation_keywords
from .dtypes import from_numpy_dtype, to_numpy_dtype
from .ops.shape import Cat, Stack
from .ops.where import Where
from .out_arg import write_out
from .promotion import default_float
from .providers import provide
from .random import default_generator
from .sizes import shape_arg as _shape_arg
from .tensor import _INT_REQUIRES_GRAD, Tensor, _as_array, _make

if TYPE_CHECKING:
    from .._typing import Device, DTypeLike, Number, TensorOrScalar, _size


class _Filled(Protocol):
    """The signature of ``zeros``, ``ones`` and ``empty``."""

    def __call__(
        self,
        *size: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: bool = False,
        out: Tensor | None = None,
    ) -> Tensor: ...


class _Like(Protocol):
    """The signature of ``zeros_like``, ``ones_like``, ``rand_like`` ..."""

    def __call__(
        self,
        input: Tensor,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: bool = False,
        memory_format: Any = None,
    ) -> Tensor: ...


def _finish(array: np.ndarray, requires_grad: bool, device: Device = None) -> Tensor:
    check_device(device)
    t = _make(array)
    if requires_grad:
        if array.dtype.kind not in "fc":
            raise RuntimeError(_INT_REQUIRES_GRAD)
        t._requires_grad = True
    return t


def _dtype_or(dtype: DTypeLike | None, default: np.dtype[Any] | None = None) -> np.dtype[Any]:
    """``dtype`` as a numpy dtype; when omitted, ``default`` or else the default float."""
    if dtype is not None:
        return to_numpy_dtype(dtype)
    return default_float() if default is None else default


@creation_keywords("pin_memory")
def tensor(
    data: Any, dtype: DTypeLike | None = None, device: Device = None, requires_grad: bool = False
) -> Tensor:
    """A new tensor holding a copy of ``data``.

    Python floats give float32, Python ints int64, bools bool; numpy arrays keep their dtype.

    Args:
        data: a number, a (nested) list, a numpy array or a Tensor.
        dtype (nl.dtype, optional): the element type; inferred from ``data`` when omitted.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: a tensor that owns its data.

    Examples:
        >>> nl.tensor([[1., 0.], [0., 1.]], requires_grad=True)
        tensor([[1., 0.],
                [0., 1.]], requires_grad=True)
    """
    if isinstance(data, Tensor):
        array = data._data.copy()
    elif isinstance(data, np.ndarray):
        array = data.copy()
    else:
        array = _as_array(data, None if dtype is None else to_numpy_dtype(dtype))
        if array.base is not None or array is data:
            array = array.copy()
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return _finish(array, requires_grad, device)


def as_tensor(data: Any, dtype: DTypeLike | None = None, device: Device = None) -> Tensor:
    """``data`` as a tensor, without a copy when it already is one (or a numpy array) of ``dtype``.

    Args:
        data: a Tensor, a numpy array (memory is shared), a number or a (nested) list.
        dtype (nl.dtype, optional): the element type; a different one makes a converted copy.
        device (str or nl.device, optional): only ``"cpu"``.

    Returns:
        Tensor: ``data`` itself, a tensor sharing its memory, or a new tensor.

    Examples:
        >>> t = nl.zeros(2)
        >>> nl.as_tensor(t) is t
        True
        >>> nl.as_tensor([1, 2])
        tensor([1, 2])
    """
    check_device(device)
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with the numpy ``array``: changing one changes the other.

    Args:
        array (numpy.ndarray): an array of a dtype nnlite holds (floats, ints, bool).

    Returns:
        Tensor: a tensor of the array's dtype and shape over the same memory.

    Examples:
        >>> n = np.ones(5)
        >>> t = nl.from_numpy(n)
        >>> n += 1
        >>> t
        tensor([2., 2., 2., 2., 2.], dtype=nnlite.float64)
    """
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    from_numpy_dtype(array.dtype)  # rejects dtypes nnlite cannot hold
    return _make(array)


def _filled(fill: Callable[..., np.ndarray], *keywords: str) -> _Filled:
    def create(
        *size: Any,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: bool = False,
        out: Tensor | None = None,
    ) -> Tensor:
        result = _finish(fill(_shape_arg(size), _dtype_or(dtype)), requires_grad, device)
        return result if out is None else write_out(fill.__name__, result, out)

    return creation_keywords("layout", "pin_memory", *keywords, name=fill.__name__)(create)


zeros = _filled(np.zeros)
ones = _filled(np.ones)
empty = _filled(np.empty, "memory_format")
zeros.__doc__ = """A tensor of zeros of the given shape (``nl.zeros(2, 3)`` or ``nl.zeros((2, 3))``).

Args:
    *size (ints or a tuple of ints): the shape.
    dtype (nl.dtype, optional): the element type. Default: float32.
    device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    out (Tensor, optional): a tensor to write the result into.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.zeros(2, 3)
    tensor([[0., 0., 0.],
            [0., 0., 0.]])
"""
ones.__doc__ = """A tensor of ones of the given shape.

Args:
    *size (ints or a tuple of ints): the shape.
    dtype (nl.dtype, optional): the element type. Default: float32.
    device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    out (Tensor, optional): a tensor to write the result into.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.ones(2, dtype=nl.int64)
    tensor([1, 1])
"""
empty.__doc__ = """An uninitialised tensor of the given shape: its values are whatever memory held.

Args:
    *size (ints or a tuple of ints): the shape.
    dtype (nl.dtype, optional): the element type. Default: float32.
    device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    out (Tensor, optional): a tensor to write the result into.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.empty(2, 3).shape
    nnlite.Size([2, 3])
"""


@creation_keywords("out", "layout", "pin_memory")
def full(
    size: _size,
    fill_value: Number,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of shape ``size`` filled with ``fill_value``.

    Args:
        size (tuple of ints): the shape.
        fill_value (number): the value of every element; it sets the dtype when ``dtype`` is
            omitted (bool, int64 for ints, float32 for floats), as in PyTorch.
        dtype (nl.dtype, optional): the element type. Default: from ``fill_value``.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> nl.full((2, 2), 7.)
        tensor([[7., 7.],
                [7., 7.]])
    """
    if dtype is None:
        dtype = (
            np.bool_
            if isinstance(fill_value, bool)
            else np.int64
            if isinstance(fill_value, int)
            else default_float()
        )
    target = to_numpy_dtype(dtype)
    fill = _as_array(fill_value, target) if isinstance(fill_value, float) else fill_value
    return _finish(np.full(_shape_arg((size,)), fill, dtype=target), requires_grad, device)


@creation_keywords("out", "layout", "pin_memory")
def rand(
    *size: Any,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Samples from the uniform distribution on [0, 1), drawn from nnlite's generator.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nl.dtype, optional): the element type. Default: float32.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.
        generator (numpy.random.Generator, optional): draw from this generator instead.

    Returns:
        Tensor: the samples.

    Examples:
        >>> nl.rand(2, 3).shape
        nnlite.Size([2, 3])
    """
    gen = generator or default_generator
    return _finish(
        gen.random(_shape_arg(size), dtype=np.float64).astype(_dtype_or(dtype)),
        requires_grad,
        device,
    )


@creation_keywords("out", "layout", "pin_memory")
def randn(
    *size: Any,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Samples from the standard normal distribution, drawn from nnlite's generator.

    Args:
        *size (ints or a tuple of ints): the shape.
        dtype (nl.dtype, optional): the element type. Default: float32.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.
        generator (numpy.random.Generator, optional): draw from this generator instead.

    Returns:
        Tensor: the samples.

    Examples:
        >>> x = nl.randn(2, 3)
        >>> x.shape, x.dtype
        (nnlite.Size([2, 3]), nnlite.float32)
    """
    gen = generator or default_generator
    return _finish(
        gen.standard_normal(_shape_arg(size)).astype(_dtype_or(dtype)), requires_grad, device
    )


@creation_keywords("out", "layout", "pin_memory")
def randint(
    low: int,
    high: Any = None,
    size: Any = None,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    """Integers drawn uniformly from ``[low, high)``; ``randint(high, size)`` takes ``low = 0``.

    Args:
        low (int): the smallest value. Default: 0.
        high (int): one above the largest value.
        size (tuple of ints): the shape.
        dtype (nl.dtype, optional): the element type. Default: int64.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.
        generator (numpy.random.Generator, optional): draw from this generator instead.

    Returns:
        Tensor: the integers.

    Examples:
        >>> x = nl.randint(0, 10, (3,))
        >>> x.shape, x.dtype, bool(((x >= 0) & (x < 10)).all())
        (nnlite.Size([3]), nnlite.int64, True)
    """
    if size is None:
        low, high, size = 0, low, high
    gen = generator or default_generator
    return _finish(
        gen.integers(low, high, size=_shape_arg((size,))).astype(
            _dtype_or(dtype, np.dtype(np.int64))
        ),
        requires_grad,
        device,
    )


@creation_keywords("out", "layout", "pin_memory")
def randperm(
    n: int,
    dtype: DTypeLike | None = None,
    device: Device = None,
    generator: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """A random permutation of the integers ``0 .. n - 1``.

    Args:
        n (int): how many integers.
        dtype (nl.dtype, optional): the element type. Default: int64.
        device (str or nl.device, optional): only ``"cpu"``.
        generator (numpy.random.Generator, optional): draw from this generator instead.
        requires_grad (bool): only False for this integer result. Default: False.

    Returns:
        Tensor: the permutation.

    Examples:
        >>> sorted(nl.randperm(4).tolist())
        [0, 1, 2, 3]
    """
    gen = generator or default_generator
    return _finish(
        gen.permutation(n).astype(_dtype_or(dtype, np.dtype(np.int64))), requires_grad, device
    )


@creation_keywords("out", "layout", "pin_memory")
def arange(
    start: Number,
    end: Number | None = None,
    step: Number = 1,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    """Values from ``start`` to ``end`` (excluded) in steps of ``step``; ``arange(end)`` starts at 0.

    Args:
        start (number): the first value. Default: 0.
        end (number): the bound, not included.
        step (number): the gap between values. Default: 1.
        dtype (nl.dtype, optional): the element type. Default: int64 when every argument is an int, else float32.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: a 1-D tensor.

    Examples:
        >>> nl.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> nl.arange(0, 1, 0.25)
        tensor([0.0000, 0.2500, 0.5000, 0.7500])
    """
    if end is None:
        start, end = 0, start
    if dtype is None:
        floats = any(isinstance(v, float) for v in (start, end, step))
        dtype = default_float() if floats else np.int64
    return _finish(np.arange(start, end, step).astype(to_numpy_dtype(dtype)), requires_grad, device)


@creation_keywords("out", "layout", "pin_memory")
def linspace(
    start: Number,
    end: Number,
    steps: int,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    Args:
        start (number): the first value.
        end (number): the last value.
        steps (int): how many values.
        dtype (nl.dtype, optional): the element type. Default: float32.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: a 1-D tensor of ``steps`` values.

    Examples:
        >>> nl.linspace(0, 1, 5)
        tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    return _finish(np.linspace(start, end, steps).astype(_dtype_or(dtype)), requires_grad, device)


@creation_keywords("out", "layout", "pin_memory")
def eye(
    n: int,
    m: int | None = None,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    """A 2-D tensor with ones on the diagonal and zeros elsewhere.

    Args:
        n (int): the number of rows.
        m (int, optional): the number of columns. Default: ``n``.
        dtype (nl.dtype, optional): the element type. Default: float32.
        device (str or nl.device, optional): where the tensor lives; only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: an ``n x m`` tensor.

    Examples:
        >>> nl.eye(2)
        tensor([[1., 0.],
                [0., 1.]])
    """
    return _finish(np.eye(n, m, dtype=_dtype_or(dtype)), requires_grad, device)


def _like(fill: Callable[..., Tensor], *keywords: str) -> _Like:
    """The ``*_like`` form of ``fill``; ``keywords`` are ``fill``'s extra ones it passes on
    (``generator`` for the random ones)."""

    def create(
        input: Tensor,
        dtype: DTypeLike | None = None,
        device: Device = None,
        requires_grad: bool = False,
        memory_format: Any = None,
        **passed: Any,
    ) -> Tensor:
        return fill(
            input.shape,
            dtype=input.dtype if dtype is None else dtype,
            device=device,
            requires_grad=requires_grad,
            **passed,
        )

    sig = inspect.signature(create)
    own = [p for p in sig.parameters.values() if p.kind != p.VAR_KEYWORD]
    extra = [inspect.Parameter(k, inspect.Parameter.KEYWORD_ONLY, default=None) for k in keywords]
    create.__signature__ = sig.replace(parameters=[*own, *extra])  # type: ignore[attr-defined]
    return creation_keywords("layout", "pin_memory", name=fill.__name__ + "_like")(create)


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)
rand_like = _like(rand, "generator")
randn_like = _like(randn, "generator")
zeros_like.__doc__ = """Zeros with ``input``'s shape and dtype (unless ``dtype`` is given).

Args:
    input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
    dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
    device (str or nl.device, optional): only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    memory_format: accepted for compatibility.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.zeros_like(nl.ones(2, dtype=nl.int64))
    tensor([0, 0])
"""
ones_like.__doc__ = """Ones with ``input``'s shape and dtype (unless ``dtype`` is given): int64 stays int64.

Args:
    input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
    dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
    device (str or nl.device, optional): only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    memory_format: accepted for compatibility.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.ones_like(nl.zeros(2))
    tensor([1., 1.])
"""
empty_like.__doc__ = """An uninitialised tensor with ``input``'s shape and dtype.

Args:
    input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
    dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
    device (str or nl.device, optional): only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    memory_format: accepted for compatibility.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.empty_like(nl.zeros(2, 2)).shape
    nnlite.Size([2, 2])
"""
rand_like.__doc__ = """Uniform samples from [0, 1) with ``input``'s shape; ``rand_like(x, dtype=nl.float32)``
for integer ``x``.

Args:
    input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
    dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
    device (str or nl.device, optional): only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    memory_format: accepted for compatibility.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.rand_like(nl.zeros(2, 3)).shape
    nnlite.Size([2, 3])
"""
randn_like.__doc__ = """Standard normal samples with ``input``'s shape.

Args:
    input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
    dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
    device (str or nl.device, optional): only ``"cpu"``.
    requires_grad (bool): record operations on the result for autograd. Default: False.
    memory_format: accepted for compatibility.

Returns:
    Tensor: the new tensor.

Examples:
    >>> nl.randn_like(nl.zeros(2, 3)).shape
    nnlite.Size([2, 3])
"""


@creation_keywords("layout", "pin_memory", "memory_format")
def full_like(
    input: Tensor,
    fill_value: Number,
    dtype: DTypeLike | None = None,
    device: Device = None,
    requires_grad: bool = False,
) -> Tensor:
    """A tensor of ``input``'s shape filled with ``fill_value``.

    Args:
        input (Tensor): gives the shape, and the dtype unless ``dtype`` is given.
        fill_value (number): the value of every element.
        dtype (nl.dtype, optional): the element type. Default: ``input.dtype``.
        device (str or nl.device, optional): only ``"cpu"``.
        requires_grad (bool): record operations on the result for autograd. Default: False.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> nl.full_like(nl.zeros(2), 3)
        tensor([3., 3.])
    """
    return full(
        input.shape,
        fill_value,
        dtype=input.dtype if dtype is None else dtype,
        device=device,
        requires_grad=requires_grad,
    )


def cat(tensors: Sequence[Tensor], dim: int = 0, out: Tensor | None = None) -> Tensor:
    """Concatenate tensors along an existing dimension.

    Args:
        tensors (sequence of Tensors): tensors of equal shape except along ``dim``.
        dim (int): the dimension to join along. Default: 0.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: the joined tensor.

    Examples:
        >>> nl.cat([nl.ones(2, 1), nl.zeros(2, 1)], dim=1)
        tensor([[1., 0.],
                [1., 0.]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("nnlite.cat(): expected a non-empty list of Tensors")
    nd = tensors[0].ndim
    dim = dim % max(nd, 1) if -max(nd, 1) <= dim < max(nd, 1) else _bad_dim(dim, nd)
    result = Cat.apply(*tensors, dim=dim)
    return result if out is None else write_out("cat", result, out, tensors)


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0, out: Tensor | None = None) -> Tensor:
    """Join tensors of equal shape along a new dimension.

    Args:
        tensors (sequence of Tensors): tensors of one shape.
        dim (int): where the new dimension goes. Default: 0.
        out (Tensor, optional): a tensor to write the result into.

    Returns:
        Tensor: a tensor with one dimension more than the inputs.

    Examples:
        >>> nl.stack([nl.zeros(2), nl.ones(2)])
        tensor([[0., 0.],
                [1., 1.]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    nd = tensors[0].ndim + 1
    dim = dim % nd if -nd <= dim < nd else _bad_dim(dim, nd - 1)
    result = Stack.apply(*tensors, dim=dim)
    return result if out is None else write_out("stack", result, out, tensors)


def _bad_dim(dim: int, nd: int) -> NoReturn:
    n = max(nd, 1)
    raise IndexError(
        f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
    )


@creation_keywords("out")
def where(condition: Tensor | np.ndarray, input: TensorOrScalar, other: TensorOrScalar) -> Tensor:
    """Elements of ``input`` where ``condition`` holds, else of ``other`` (all three broadcast).

    Args:
        condition (Tensor of bool): chooses ``input`` where True.
        input (Tensor or number): the values where ``condition`` is True.
        other (Tensor or number): the values where it is False.

    Returns:
        Tensor: the chosen values.

    Examples:
        >>> nl.where(nl.tensor([True, False]), nl.tensor([1., 2.]), nl.tensor([9., 9.]))
        tensor([1., 9.])
    """
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    return Where.apply(cond.astype(bool, copy=False), input, other)


def is_tensor(obj: object) -> bool:
    """Whether ``obj`` is an nnlite Tensor (a Parameter counts).

    Args:
        obj: any object.

    Returns:
        bool: True for a Tensor.

    Examples:
        >>> nl.is_tensor(nl.zeros(1)), nl.is_tensor([1.])
        (True, False)
    """
    return isinstance(obj, Tensor)


# what Tensor's methods call by name (autograd/providers.py explains why)
provide(
    "creation",
    {
        "tensor": tensor,
        "zeros": zeros,
        "ones": ones,
        "full": full,
        "empty": empty,
        "cat": cat,
        "stack": stack,
        "where": where,
    },
)
