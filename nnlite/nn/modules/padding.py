"""Padding layers: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d``, ``ReflectionPad1d/2d/3d``,
``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``."""

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
    "ZeroPad1d",
    "ZeroPad3d",
    "ConstantPad1d",
    "ConstantPad3d",
    "ReflectionPad3d",
    "ReplicationPad3d",
    "CircularPad1d",
    "CircularPad3d",
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


class ZeroPad1d(ZeroPad2d):
    """Pad the last dimension with zeros: ``padding`` is an int or ``(left, right)``.

    Args:
        padding (int or tuple): the same amount at both ends, or ``(left, right)``.

    Examples:
        >>> nn.ZeroPad1d(2)
        ZeroPad1d((2, 2))
    """

    sides = 2


class ZeroPad3d(ZeroPad2d):
    """Pad the last three dimensions with zeros: an int or ``(left, right, top, bottom, front, back)``.

    Args:
        padding (int or tuple): the same amount on every side, or a 6-tuple.

    Examples:
        >>> nn.ZeroPad3d(1)
        ZeroPad3d((1, 1, 1, 1, 1, 1))
    """

    sides = 6


class ConstantPad1d(ConstantPad2d):
    """Pad the last dimension with ``value``.

    Args:
        padding (int or tuple): the same amount at both ends, or ``(left, right)``.
        value (float): the fill.

    Examples:
        >>> nn.ConstantPad1d(2, 3.5)
        ConstantPad1d(padding=(2, 2), value=3.5)
    """

    sides = 2


class ConstantPad3d(ConstantPad2d):
    """Pad the last three dimensions with ``value``.

    Args:
        padding (int or tuple): the same amount on every side, or a 6-tuple.
        value (float): the fill.

    Examples:
        >>> nn.ConstantPad3d(1, 0.0)
        ConstantPad3d(padding=(1, 1, 1, 1, 1, 1), value=0.0)
    """

    sides = 6


class ReflectionPad3d(ReflectionPad2d):
    """Pad the last three dimensions by mirroring the input at its edges.

    Args:
        padding (int or tuple): the same amount on every side, or a 6-tuple.

    Examples:
        >>> nn.ReflectionPad3d(1)
        ReflectionPad3d((1, 1, 1, 1, 1, 1))
    """

    sides = 6


class ReplicationPad3d(ReplicationPad2d):
    """Pad the last three dimensions by repeating the edge values.

    Args:
        padding (int or tuple): the same amount on every side, or a 6-tuple.

    Examples:
        >>> nn.ReplicationPad3d(1)
        ReplicationPad3d((1, 1, 1, 1, 1, 1))
    """

    sides = 6


class CircularPad1d(CircularPad2d):
    """Pad the last dimension by wrapping around.

    Args:
        padding (int or tuple): the same amount at both ends, or ``(left, right)``.

    Examples:
        >>> nn.CircularPad1d(1)(nl.arange(3.).reshape(1, 1, 3))
        tensor([[[2., 0., 1., 2., 0.]]])
    """

    sides = 2


class CircularPad3d(CircularPad2d):
    """Pad the last three dimensions by wrapping around.

    Args:
        padding (int or tuple): the same amount on every side, or a 6-tuple.

    Examples:
        >>> nn.CircularPad3d(1)
        CircularPad3d((1, 1, 1, 1, 1, 1))
    """

    sides = 6
