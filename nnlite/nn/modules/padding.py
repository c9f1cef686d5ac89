"""Padding layers: ``ZeroPad2d``, ``ConstantPad2d``, ``ReflectionPad1d/2d``, ``ReplicationPad1d/2d``, ``CircularPad2d``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ..._typing import _size_any
    from ...autograd.tensor import Tensor


__all__ = [
    "ZeroPad2d",
    "ConstantPad2d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "CircularPad2d",
]


class _Pad(Module):
    mode = "constant"
    sides = 4  # (left, right, top, bottom) for 2-D layers; (left, right) for 1-D

    def __init__(self, padding: Any, value: Any = None) -> None:
        super().__init__()
        self.padding = (
            tuple(padding) if isinstance(padding, (tuple, list)) else (int(padding),) * self.sides
        )
        if len(self.padding) != self.sides:
            raise ValueError(
                f"{type(self).__name__}: padding must be an int or a {self.sides}-tuple, got {padding}"
            )
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode, self.value)

    def extra_repr(self) -> str:
        return (
            f"{self.padding}"
            if self.value is None
            else f"padding={self.padding}, value={self.value}"
        )


class ZeroPad2d(_Pad):
    """Pad with zeros: ``padding`` is an int or ``(left, right, top, bottom)``.

    Args:
        padding (int or tuple): the same amount on every side, or ``(left, right, top, bottom)``.

    Examples:
        >>> nl.nn.ZeroPad2d(1)
        ZeroPad2d((1, 1, 1, 1))
    """

    def __init__(self, padding: _size_any) -> None:
        super().__init__(padding)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", 0.0)


class ConstantPad2d(_Pad):
    """Pad with ``value``.

    Args:
        padding (int or tuple): the same amount on every side, or ``(left, right, top, bottom)``.
        value (float): the fill.

    Examples:
        >>> nn.ConstantPad2d(1, 3.5)(nl.zeros(1, 1, 1, 1))
        tensor([[[[3.5000, 3.5000, 3.5000],
                  [3.5000, 0.0000, 3.5000],
                  [3.5000, 3.5000, 3.5000]]]])
    """

    def __init__(self, padding: _size_any, value: Any) -> None:
        super().__init__(padding, value)


class ReflectionPad2d(_Pad):
    """Pad by mirroring the input at its edges (the edge itself not repeated).

    Args:
        padding (int or tuple): the same amount on every side, or ``(left, right, top, bottom)``.
        value: unused (kept for a common signature).

    Examples:
        >>> nn.ReflectionPad2d(1)(nl.arange(4.).reshape(1, 1, 2, 2)).shape
        nnlite.Size([1, 1, 4, 4])
    """

    mode = "reflect"


class ReflectionPad1d(ReflectionPad2d):
    """Pad the last dimension by mirroring the input at its edges (the edge not repeated).

    Args:
        padding (int or tuple): the same amount on both sides, or ``(left, right)``.
        value: unused (kept for a common signature).

    Examples:
        >>> nn.ReflectionPad1d(2)(nl.arange(4.).reshape(1, 1, 4))
        tensor([[[2., 1., 0., 1., 2., 3., 2., 1.]]])
    """

    sides = 2


class ReplicationPad2d(_Pad):
    """Pad by repeating the edge values.

    Args:
        padding (int or tuple): the same amount on every side, or ``(left, right, top, bottom)``.
        value: unused (kept for a common signature).

    Examples:
        >>> nn.ReplicationPad2d(1)(nl.ones(1, 1, 2, 2)).shape
        nnlite.Size([1, 1, 4, 4])
    """

    mode = "replicate"


class ReplicationPad1d(ReplicationPad2d):
    """Pad the last dimension by repeating the edge values.

    Args:
        padding (int or tuple): the same amount on both sides, or ``(left, right)``.
        value: unused (kept for a common signature).

    Examples:
        >>> nn.ReplicationPad1d(2)(nl.arange(3.).reshape(1, 1, 3))
        tensor([[[0., 0., 0., 1., 2., 2., 2.]]])
    """

    sides = 2


class CircularPad2d(_Pad):
    """Pad by wrapping around.

    Args:
        padding (int or tuple): the same amount on every side, or ``(left, right, top, bottom)``.
        value: unused (kept for a common signature).

    Examples:
        >>> nn.CircularPad2d(1)(nl.arange(4.).reshape(1, 1, 2, 2))[0, 0, 0]
        tensor([3., 2., 3., 2.])
    """

    mode = "circular"
