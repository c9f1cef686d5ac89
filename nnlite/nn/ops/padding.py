"""``pad``: constant padding (an op: negative amounts crop, so its backward is itself with the amounts
negated), and reflect / replicate / circular padding (composites: indexing with a gather pattern, so
the gradient of a position used twice accumulates)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


class ConstantPad(Op):
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right, top, bottom, ...)``, last dim first."""

    node_name = "ConstantPadNdBackward0"
    value = 0

    def forward(self, x: Array) -> Array:
        pad = self.pad
        nd = x.ndim
        shape = list(x.shape)
        src, dst = [slice(None)] * nd, [slice(None)] * nd
        for k in range(len(pad) // 2):
            d = nd - 1 - k
            lo, hi = pad[2 * k], pad[2 * k + 1]
            n = x.shape[d]
            new = n + lo + hi
            if new < 0:
                raise RuntimeError(
                    f"The input size {n}, plus negative padding {lo} and {hi} resulted in a negative "
                    f"output size, which is invalid. Check dimension {d} of your input."
                )
            shape[d] = new
            src[d] = slice(max(-lo, 0), n - max(-hi, 0))
            dst[d] = slice(max(lo, 0), new - max(hi, 0))
        out = np.full(shape, self.value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(ConstantPad, grad, pad=tuple(-p for p in self.pad), value=0)
        return gx


def _source_positions(
    n: int, lo: int, hi: int, mode: str, dim: int, shape: tuple[int, ...]
) -> Array:
    """For each output position along a padded dimension, the input position it copies."""
    positions = np.arange(-lo, n + hi)
    if mode == "replicate":
        return np.clip(positions, 0, n - 1)
    if mode == "circular":
        if lo > n or hi > n:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        return positions % n
    if lo >= n or hi >= n:
        raise RuntimeError(
            f"Argument #4: Padding size should be less than the corresponding input dimension, but "
            f"got: padding ({lo}, {hi}) at dimension {dim} of input {list(shape)}"
        )
    period = 2 * (n - 1) if n > 1 else 1
    positions = np.abs(positions) % period
    return np.where(positions >= n, period - positions, positions)


def _index_pad(input: Tensor, pad: tuple[int, ...], mode: str) -> Tensor:
    if any(p < 0 for p in pad):
        raise RuntimeError(f"negative padding is not supported with mode '{mode}'")
    shape = input._data.shape
    out = input
    for k in range(len(pad) // 2):
        dim = len(shape) - 1 - k
        index = _source_positions(shape[dim], pad[2 * k], pad[2 * k + 1], mode, dim, shape)
        out = out[(slice(None),) * dim + (index,)]
    return out


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: Any = None) -> Tensor:
    """Pad the last dimensions: ``pad = (left, right, top, bottom, ...)``.

    ``mode`` is ``"constant"`` (with ``value``; negative amounts crop), ``"reflect"`` (mirror without
    repeating the edge), ``"replicate"`` (repeat the edge) or ``"circular"`` (wrap around).

    Args:
        input (Tensor): the input.
        pad (tuple of ints): amounts for the last dimension first: ``(left, right, top, bottom, ...)``.
        mode (str): ``"constant"``, ``"reflect"``, ``"replicate"`` or ``"circular"``. Default: ``"constant"``.
        value (float, optional): the fill of ``"constant"``. Default: 0.

    Returns:
        Tensor: the padded tensor.

    Examples:
        >>> F.pad(nl.ones(1, 2), (1, 1))
        tensor([[0., 1., 1., 0.]])
        >>> F.pad(nl.tensor([[1., 2., 3.]]), (2, 1), mode="reflect")
        tensor([[3., 2., 1., 2., 3., 2.]])
    """
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input._data.ndim:
        raise RuntimeError(
            f"Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(pad)} and input of dimension {input._data.ndim}"
        )
    if mode == "constant":
        out: Tensor = ConstantPad.apply(input, pad=pad, value=0 if value is None else value)
        return out
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _index_pad(input, pad, mode)
