"""What backward formulas use beyond the operators that arrays and Tensors share.

A formula runs on numpy arrays in a first-order backward and on Tensors under ``create_graph``
(see ``autograd/op.py``). ``+ - * / **``, ``@``, ``.reshape``, ``.T`` and indexing mean the same
on both; the functions here cover the rest, each choosing the numpy call or the Tensor method
from its operand.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from ..._runtime.threads_matmul import matmul
from .. import op as _op
from .erf_kernel import erf_array

if TYPE_CHECKING:
    from typing import TypeAlias, TypeVar

    from typing_extensions import TypeIs

    from ..._typing import Array, Gradient, Number, _dims
    from ..op import Op
    from ..tensor import Tensor

    #: an input of an op's forward: an array, or a Python number in a tensor's place (``x * 2``)
    Operand: TypeAlias = Array | Number
    #: what a helper gives back for its operand: an array for an array, a Tensor for a Tensor
    #: (and either for either: a ``Gradient``)
    GradientT = TypeVar("GradientT", Array, Tensor, Gradient)


def is_tensor(x: object) -> TypeIs[Tensor]:
    return isinstance(x, _op.Tensor)


def data(x: Gradient) -> Array:
    """The array of ``x``, outside the graph (a Tensor's data; an array as it is)."""
    return x._data if isinstance(x, _op.Tensor) else x


def const(array: Array, like: GradientT) -> GradientT:
    """A constant (mask, weights) to combine with ``like``: the array itself in a first-order
    backward, a Tensor of ``like``'s dtype (outside the graph) under ``create_graph``."""
    if isinstance(like, _op.Tensor):
        return _op.make_tensor(np.asarray(array, dtype=like._data.dtype))
    return array


def mask(array: Array, like: GradientT) -> GradientT:
    """``array`` (a mask or weights) in ``like``'s dtype, as a constant (see ``const``)."""
    if isinstance(like, _op.Tensor):
        return _op.make_tensor(np.asarray(array, dtype=like._data.dtype))
    return np.asarray(array, dtype=np.result_type(like))


def value(saved: Array, recompute: Callable[[], GradientT], like: GradientT) -> GradientT:
    """A quantity forward already computed (``saved``, an array) that depends on the inputs: the
    array itself in a first-order backward, ``recompute()`` under ``create_graph`` so that its
    derivative exists (batch statistics, log-probabilities)."""
    if isinstance(like, _op.Tensor):
        return recompute()
    return saved


def call(op_class: type[Op], *args: Any, **params: Any) -> Gradient:
    """Run another op inside a formula: recorded when an argument is a Tensor, else on arrays."""
    for a in args:
        if isinstance(a, _op.Tensor):
            return op_class.apply(*args, **params)
    out: Array = _op.run_forward(op_class, args, params)
    return out


def sum_array_to(a: Array, shape: tuple[int, ...]) -> Array:
    """Sum a broadcast array down to ``shape`` (the leading and the size-1 dimensions)."""
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1
    )
    out: Array = a.sum(axis=axes, keepdims=True) if axes else a
    return out.reshape(shape)


@overload
def sum_to(g: None, shape: tuple[int, ...]) -> None: ...
@overload
def sum_to(g: GradientT, shape: tuple[int, ...]) -> GradientT: ...
def sum_to(g: Gradient | None, shape: tuple[int, ...]) -> Gradient | None:
    """Reduce a broadcast gradient to ``shape`` (None stays None)."""
    if g is None:
        return None
    if isinstance(g, _op.Tensor):
        return g if g._data.shape == shape else g.sum_to_size(shape)
    return g if np.shape(g) == shape else sum_array_to(np.asarray(g), shape)


def expand(g: GradientT, shape: tuple[int, ...]) -> GradientT:
    """Broadcast ``g`` to ``shape`` (a read-only view for arrays; later sums copy as needed)."""
    if isinstance(g, _op.Tensor):
        return g.expand(shape)
    return np.broadcast_to(g, shape)


def sum(x: GradientT, axes: _dims, keepdims: bool = False) -> GradientT:
    if isinstance(x, _op.Tensor):
        return x.sum(axes, keepdims)
    if isinstance(x, np.ndarray):  # the method: numpy's function form adds a costly wrapper
        total: Array = x.sum(axis=axes, keepdims=keepdims)
        return total
    return np.sum(x, axis=axes, keepdims=keepdims)


def mean(x: GradientT, axes: _dims, keepdims: bool = False) -> GradientT:
    if isinstance(x, _op.Tensor):
        return x.mean(axes, keepdims)
    if isinstance(x, np.ndarray):
        average: Array = x.mean(axis=axes, keepdims=keepdims)
        return average
    return np.mean(x, axis=axes, keepdims=keepdims)


def exp(x: GradientT) -> GradientT:
    return x.exp() if isinstance(x, _op.Tensor) else np.exp(x)


def log(x: GradientT) -> GradientT:
    return x.log() if isinstance(x, _op.Tensor) else np.log(x)


def sign(x: GradientT) -> GradientT:
    return x.sign() if isinstance(x, _op.Tensor) else np.sign(x)


def sin(x: GradientT) -> GradientT:
    return x.sin() if isinstance(x, _op.Tensor) else np.sin(x)


def cos(x: GradientT) -> GradientT:
    return x.cos() if isinstance(x, _op.Tensor) else np.cos(x)


def tanh(x: GradientT) -> GradientT:
    return x.tanh() if isinstance(x, _op.Tensor) else np.tanh(x)


def sigmoid(x: GradientT) -> GradientT:
    if isinstance(x, _op.Tensor):
        return x.sigmoid()
    # 1 / (1 + exp(-x)) through tanh, without overflow for any x, in one temporary
    out = np.multiply(x, 0.5)
    np.tanh(out, out=out)
    out += 1.0
    out *= 0.5
    return out


def relu(x: GradientT) -> GradientT:
    return x.relu() if isinstance(x, _op.Tensor) else np.maximum(x, 0)


def erf(x: GradientT) -> GradientT:
    if isinstance(x, _op.Tensor):
        return x.erf()
    return erf_array(x)


def flip(x: GradientT, dim: int) -> GradientT:
    return x.flip(dim) if isinstance(x, _op.Tensor) else np.flip(x, dim)


def cumsum(x: GradientT, dim: int) -> GradientT:
    return x.cumsum(dim) if isinstance(x, _op.Tensor) else np.cumsum(x, axis=dim)


def permute(x: GradientT, dims: tuple[int, ...]) -> GradientT:
    if isinstance(x, _op.Tensor):
        return x.permute(dims)
    permuted: Array = x.transpose(dims)
    return permuted


def swap_last(x: GradientT) -> GradientT:
    """``x`` with its last two dimensions swapped (``mT``)."""
    return x.transpose(-1, -2) if isinstance(x, _op.Tensor) else np.swapaxes(x, -1, -2)


def cast(x: GradientT, dtype: np.dtype[Any]) -> GradientT:
    return x.to(dtype) if isinstance(x, _op.Tensor) else x.astype(dtype)


def mm(a: GradientT, b: GradientT) -> GradientT:
    """The 2-D matrix product (``np.dot`` on arrays)."""
    # (both operands are Tensors under create_graph, both arrays otherwise)
    return a.mm(b) if isinstance(a, _op.Tensor) else matmul(a, b)  # type: ignore[arg-type]


def channel_sum(g: GradientT) -> GradientT:
    """Sum of an NCHW gradient over all but the channel axis (a bias gradient)."""
    if isinstance(g, _op.Tensor):
        return g.sum((0, 2, 3))
    total: Array = np.einsum("nchw->c", g)  # twice as fast as g.sum((0, 2, 3)) here
    return total
