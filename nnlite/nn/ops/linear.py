"""The affine map ``x @ w.T + b`` as one op, recorded as PyTorch records it, and ``linear``.

With a bias the op is PyTorch's ``addmm(b, x, w.T)``: node ``AddmmBackward0`` whose inputs are
(bias, input, weight), so ``next_functions[0]`` is the bias's accumulator, as in the tutorial's
output. Without a bias it is ``mm(x, w.T)`` (``MmBackward0``, inputs (input, weight)).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._runtime.threads_matmul import matmul
from ...autograd.op import Op
from ...autograd.ops import vjp
from ._messages import type_name

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


def _check(x: Array, w: Array) -> None:
    if x.shape[1] != w.shape[1]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({x.shape[0]}x{x.shape[1]} and "
            f"{w.shape[1]}x{w.shape[0]})"
        )
    if x.dtype != w.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {type_name(x)} and {type_name(w)}"
        )


class Linear(Op):
    """``b + x @ w.T`` for a 2-D ``x`` (argument order as ``addmm``)."""

    node_name = "AddmmBackward0"
    saved_inputs = (1, 2)

    def forward(self, b: Array, x: Array, w: Array) -> Array:
        _check(x, w)
        y = matmul(x, w.T)
        y += b
        return y

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, w = self.inputs()
        return (
            grad.sum(0) if needs[0] else None,
            vjp.mm(grad, w) if needs[1] else None,
            vjp.mm(grad.T, x) if needs[2] else None,
        )


class LinearNoBias(Op):
    """``x @ w.T`` for a 2-D ``x``."""

    node_name = "MmBackward0"
    saved_inputs = (0, 1)

    def forward(self, x: Array, w: Array) -> Array:
        _check(x, w)
        return matmul(x, w.T)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, w = self.inputs()
        return (vjp.mm(grad, w) if needs[0] else None, vjp.mm(grad.T, x) if needs[1] else None)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` over the last dimension of ``input``.

    Args:
        input: (*, in_features).
        weight: (out_features, in_features).
        bias: (out_features) or None.

    Returns:
        A tensor of shape (*, out_features).

    Examples:
        >>> F.linear(nl.ones(2, 3), nl.ones(4, 3)).shape
        nnlite.Size([2, 4])
    """
    nd = input._data.ndim
    if nd == 2:
        return _linear2d(input, weight, bias)
    if nd == 1:
        return _linear2d(input.unsqueeze(0), weight, bias).squeeze(0)
    if nd == 0:
        raise RuntimeError(
            "both arguments to linear need to be at least 1D, but they are 0D and 2D"
        )
    lead = input._data.shape[:-1]
    out = _linear2d(input.reshape(-1, input._data.shape[-1]), weight, bias)
    return out.reshape(lead + (weight._data.shape[0],))


def _linear2d(x: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    if bias is None:
        out: Tensor = LinearNoBias.apply(x, weight)
        return out
    result: Tensor = Linear.apply(bias, x, weight)
    return result
