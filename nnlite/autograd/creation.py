"""Tensor creation (``nl.tensor``, ``nl.zeros``, ``nl.randn`` ...) and joining (``nl.cat``, ``nl.stack``, ``nl.where``)."""

import numpy as np

from . import ops
from .dtypes import from_numpy_dtype, to_numpy_dtype
from .out_arg import write_out
from .random import default_generator
from .tensor import _INT_REQUIRES_GRAD, Tensor, _as_array, _make, _shape_arg, check_device

_F32 = np.dtype(np.float32)


def _finish(array, requires_grad, device=None):
    check_device(device)
    t = _make(array)
    if requires_grad:
        if array.dtype.kind not in "fc":
            raise RuntimeError(_INT_REQUIRES_GRAD)
        t._requires_grad = True
    return t


def _dtype_or(dtype, default=_F32):
    return default if dtype is None else to_numpy_dtype(dtype)


def tensor(data, dtype=None, device=None, requires_grad=False):
    """A new tensor holding a copy of ``data``.

    Python floats give float32, Python ints int64, bools bool; numpy arrays keep their dtype.

    Args:
        data: a number, a (nested) list, a numpy array or a Tensor.
        dtype: the element type (``nl.float64``, ...); inferred from ``data`` when omitted.
        requires_grad: record operations on the result for autograd.

    Example:
        >>> nl.tensor([[1., 0.], [0., 1.]], requires_grad=True)
        tensor([[1., 0.],
                [0., 1.]], requires_grad=True)
    """
    if isinstance(data, Tensor):
        array = data._data.copy()
    elif isinstance(data, np.ndarray):
        array = data.copy()
    else:
        array = _as_array(data)
        if array.base is not None or array is data:
            array = array.copy()
    if dtype is not None:
        array = array.astype(to_numpy_dtype(dtype), copy=False)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return _finish(array, requires_grad, device)


def as_tensor(data, dtype=None, device=None):
    check_device(device)
    if isinstance(data, Tensor) and dtype is None:
        return data
    if isinstance(data, np.ndarray) and dtype is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array):
    """A tensor sharing memory with the numpy ``array``: changing one changes the other.

    Example:
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


def _filled(fill):
    def create(*size, dtype=None, device=None, requires_grad=False, out=None):
        result = _finish(fill(_shape_arg(size), _dtype_or(dtype)), requires_grad, device)
        return result if out is None else write_out(fill.__name__, result, out)

    return create


zeros = _filled(np.zeros)
ones = _filled(np.ones)
empty = _filled(np.empty)
zeros.__doc__ = "A tensor of zeros of the given shape (``nl.zeros(2, 3)`` or ``nl.zeros((2, 3))``)."
ones.__doc__ = "A tensor of ones of the given shape."
empty.__doc__ = "An uninitialised tensor of the given shape."


def full(size, fill_value, dtype=None, device=None, requires_grad=False):
    """A tensor of ``size`` filled with ``fill_value`` (dtype inferred from the value, as PyTorch)."""
    if dtype is None:
        dtype = (
            np.bool_
            if isinstance(fill_value, bool)
            else np.int64
            if isinstance(fill_value, int)
            else _F32
        )
    return _finish(
        np.full(_shape_arg((size,)), fill_value, dtype=to_numpy_dtype(dtype)), requires_grad, device
    )


def rand(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Uniform samples from [0, 1), from nnlite's generator (``nl.manual_seed``)."""
    gen = generator or default_generator
    return _finish(
        gen.random(_shape_arg(size), dtype=np.float64).astype(_dtype_or(dtype)),
        requires_grad,
        device,
    )


def randn(*size, dtype=None, device=None, requires_grad=False, generator=None):
    """Standard normal samples, from nnlite's generator."""
    gen = generator or default_generator
    return _finish(
        gen.standard_normal(_shape_arg(size)).astype(_dtype_or(dtype)), requires_grad, device
    )


def randint(
    low, high=None, size=None, dtype=None, device=None, requires_grad=False, generator=None
):
    """Integers uniform in [low, high); ``randint(high, size)`` also works, as in PyTorch."""
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


def randperm(n, dtype=None, device=None, generator=None):
    gen = generator or default_generator
    return _finish(gen.permutation(n).astype(_dtype_or(dtype, np.dtype(np.int64))), False, device)


def arange(start, end=None, step=1, dtype=None, device=None, requires_grad=False):
    """Values from ``start`` to ``end`` (exclusive); integer arguments give int64, floats float32."""
    if end is None:
        start, end = 0, start
    if dtype is None:
        floats = any(isinstance(v, float) for v in (start, end, step))
        dtype = _F32 if floats else np.int64
    return _finish(np.arange(start, end, step).astype(to_numpy_dtype(dtype)), requires_grad, device)


def linspace(start, end, steps, dtype=None, device=None, requires_grad=False):
    return _finish(np.linspace(start, end, steps).astype(_dtype_or(dtype)), requires_grad, device)


def eye(n, m=None, dtype=None, device=None, requires_grad=False):
    return _finish(np.eye(n, m, dtype=_dtype_or(dtype)), requires_grad, device)


def _like(fill):
    def create(t, dtype=None, device=None, requires_grad=False, memory_format=None):
        return fill(
            t.shape,
            dtype=t.dtype if dtype is None else dtype,
            device=device,
            requires_grad=requires_grad,
        )

    return create


zeros_like = _like(zeros)
ones_like = _like(ones)
empty_like = _like(empty)
rand_like = _like(rand)
randn_like = _like(randn)
zeros_like.__doc__ = "Zeros with ``t``'s shape and dtype (unless ``dtype`` is given)."
ones_like.__doc__ = (
    "Ones with ``t``'s shape and dtype (unless ``dtype`` is given): int64 stays int64."
)
rand_like.__doc__ = (
    "Uniform samples with ``t``'s shape; ``rand_like(x, dtype=nl.float32)`` for integer ``x``."
)


def full_like(t, fill_value, dtype=None, device=None, requires_grad=False):
    return full(
        t.shape,
        fill_value,
        dtype=t.dtype if dtype is None else dtype,
        device=device,
        requires_grad=requires_grad,
    )


def cat(tensors, dim=0, out=None):
    """Concatenate tensors along an existing dimension.

    Example:
        >>> nl.cat([nl.ones(2, 1), nl.zeros(2, 1)], dim=1)
        tensor([[1., 0.],
                [1., 0.]])
    """
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("nnlite.cat(): expected a non-empty list of Tensors")
    nd = tensors[0].ndim
    dim = dim % max(nd, 1) if -max(nd, 1) <= dim < max(nd, 1) else _bad_dim(dim, nd)
    result = ops.Cat.apply(*tensors, dim=dim)
    return result if out is None else write_out("cat", result, out, tensors)


concat = concatenate = cat


def stack(tensors, dim=0, out=None):
    """Join tensors of equal shape along a new dimension."""
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    nd = tensors[0].ndim + 1
    dim = dim % nd if -nd <= dim < nd else _bad_dim(dim, nd - 1)
    result = ops.Stack.apply(*tensors, dim=dim)
    return result if out is None else write_out("stack", result, out, tensors)


def _bad_dim(dim, nd):
    n = max(nd, 1)
    raise IndexError(
        f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
    )


def where(condition, input, other):
    """Elements of ``input`` where ``condition`` holds, else of ``other``."""
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    return ops.Where.apply(cond.astype(bool, copy=False), input, other)


def is_tensor(obj):
    return isinstance(obj, Tensor)
