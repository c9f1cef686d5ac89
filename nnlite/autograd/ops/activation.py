"""Activations: ``relu``, ``sigmoid``, ``tanh``, ``softmax`` and ``log_softmax`` (with their entries)."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from ..promotion import floating, scalar_type_name
from ..sizes import wrap_dim
from . import vjp
from .where import Where

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, DTypeLike, Gradient
    from ..tensor import Tensor


class Relu(Op):
    saves_output = True

    def forward(self, a: Array) -> Array:
        return np.maximum(a, 0)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        # relu'(x) depends on the sign only, so the output array is enough even for higher order
        return grad * vjp.const(self.output_array() > 0, grad)


class Sigmoid(Op):
    saved_inputs = (0,)
    saves_output = True

    def forward(self, a: Array) -> Array:
        # split by sign so that exp never overflows
        a = floating(a)
        out = np.empty_like(a)
        pos = a >= 0
        out[pos] = 1 / (1 + np.exp(-a[pos]))
        e = np.exp(a[~pos])
        out[~pos] = e / (1 + e)
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return grad * y * (1 - y)


class Tanh(Op):
    saved_inputs = (0,)
    saves_output = True

    def forward(self, a: Array) -> Array:
        return np.tanh(floating(a))

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return grad * (1 - y * y)


class Softmax(Op):
    """``exp(x - max) / sum(exp(x - max))`` along ``dim``; backward ``y * (g - sum(g * y))``."""

    silence_fp_errors = True  # rows of -inf give nan quietly, as in PyTorch

    saved_inputs = (0,)
    saves_output = True
    dim: int | None = None

    def forward(self, x: Array) -> Array:
        if x.size == 0:  # no classes (or no rows): an empty result, as PyTorch
            return np.empty_like(x)
        e: Array = np.exp(x - x.max(axis=self.dim, keepdims=True))
        e /= e.sum(axis=self.dim, keepdims=True)
        return e

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return y * (grad - vjp.sum(grad * y, self.dim, keepdims=True))


class LogSoftmax(Op):
    """``x - logsumexp(x)`` along ``dim``; backward ``g - exp(y) * sum(g)``."""

    silence_fp_errors = True  # rows of -inf give nan quietly, as in PyTorch

    saved_inputs = (0,)
    saves_output = True
    dim: int | None = None

    def forward(self, x: Array) -> Array:
        return log_softmax_array(x, self.dim)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        y: Gradient = self.output()
        return grad - vjp.exp(y) * vjp.sum(grad, self.dim, keepdims=True)


def log_softmax_array(x: np.ndarray, dim: int | None) -> np.ndarray:
    if x.size == 0:  # no classes (or no rows): an empty result, as PyTorch
        return np.empty_like(x)
    shifted: Array = x - x.max(axis=dim, keepdims=True)
    shifted -= np.log(np.exp(shifted).sum(axis=dim, keepdims=True))
    return shifted


def _check_floating(name: str, a: Array, dim: int) -> None:
    """PyTorch's softmax kernels exist for floating dtypes only (its message names the kernel)."""
    if a.dtype.kind not in "fc":
        kernel = (
            f"{name}_lastdim_kernel_impl" if dim == max(a.ndim - 1, 0) else f"{name}_kernel_impl"
        )
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_type_name(a.dtype)}'")


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
        "as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DTypeLike | None = None
) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably.

    Args:
        input: the tensor.
        dim: the dimension the results sum to 1 along.
        dtype: cast the input to this dtype first.

    Returns:
        A tensor of ``input``'s shape.

    Examples:
        >>> F.softmax(nl.tensor([0., 0.]), dim=0)
        tensor([0.5000, 0.5000])
    """
    if dtype is not None:
        input = input.to(dtype)
    nd = input._data.ndim
    dim = _softmax_dim("softmax", nd, _stacklevel) if dim is None else wrap_dim(dim, nd)
    _check_floating("softmax", input._data, dim)
    return Softmax.apply(input, dim=dim)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DTypeLike | None = None
) -> Tensor:
    """``x - logsumexp(x)`` along ``dim``: the logarithm of ``softmax``, computed stably.

    Args:
        input (Tensor): the input.
        dim (int): the dimension to normalise over.
        _stacklevel (int): for the warning PyTorch gives without ``dim``.
        dtype (nl.dtype, optional): compute and return in this type.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.log_softmax(nl.tensor([0., 0.]), dim=0)
        tensor([-0.6931, -0.6931])
    """
    if dtype is not None:
        input = input.to(dtype)
    nd = input._data.ndim
    dim = _softmax_dim("log_softmax", nd, _stacklevel) if dim is None else wrap_dim(dim, nd)
    _check_floating("log_softmax", input._data, dim)
    return LogSoftmax.apply(input, dim=dim)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)``; with ``inplace`` the input tensor is overwritten.

    Args:
        input (Tensor): the input.
        inplace (bool): overwrite ``input`` with the result. Default: False.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.relu(nl.tensor([-1., 2.]))
        tensor([0., 2.])
    """
    if inplace:
        return input.relu_()
    return Relu.apply(input)


def relu_(input: Tensor) -> Tensor:
    """``relu`` in place.

    Args:
        input (Tensor): the tensor to overwrite.

    Returns:
        Tensor: ``input``, overwritten.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.relu_(x)
        tensor([0., 0., 2.])
    """
    return input.relu_()


def sigmoid(input: Tensor) -> Tensor:
    """``1 / (1 + exp(-input))``, computed without overflow.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.sigmoid(x)
        tensor([0.2689, 0.5000, 0.8808])
    """
    return Sigmoid.apply(input)


def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.tanh(x)
        tensor([-0.7616,  0.0000,  0.9640])
    """
    return Tanh.apply(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``input`` where it is positive, ``negative_slope * input`` elsewhere.

    A composite of existing ops (no backward of its own): at 0 the gradient is
    ``negative_slope``, as in PyTorch.

    Args:
        input: the tensor.
        negative_slope: the slope for negative inputs.
        inplace: overwrite ``input`` with the result.

    Returns:
        Tensor: the result, of ``input``'s shape.

    Examples:
        >>> F.leaky_relu(nl.tensor([-2., 3.]), 0.1)
        tensor([-0.2000,  3.0000])
    """
    if inplace:
        return leaky_relu_(input, negative_slope)
    return Where.apply(input._data > 0, input, input * negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """``leaky_relu`` in place.

    Args:
        input (Tensor): the input.
        negative_slope (float): the slope for negative inputs. Default: 0.01.

    Returns:
        Tensor: ``input``, overwritten.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> F.leaky_relu_(x, 0.1)
        tensor([-0.1000,  0.0000,  2.0000])
    """
    return input.copy_(leaky_relu(input, negative_slope))
