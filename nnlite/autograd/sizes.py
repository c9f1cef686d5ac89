"""Shapes and dimension arguments: ``nnlite.Size`` and the normalising of ``dim``/``size`` arguments."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


class Size(tuple[int, ...]):
    """A tensor's shape: a tuple printed as ``nnlite.Size([2, 3])``.

    Examples:
        >>> s = nl.zeros(2, 3).shape
        >>> s
        nnlite.Size([2, 3])
        >>> s[0], len(s)
        (2, 2)
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"nnlite.Size([{', '.join(str(s) for s in self)}])"

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds.

        Returns:
            int: the product of the sizes (1 for ``Size([])``).

        Examples:
            >>> nl.Size([2, 3]).numel()
            6
        """
        n = 1
        for s in self:
            n *= s
        return n


def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` as a non-negative axis of an ``ndim``-dimensional tensor (PyTorch's IndexError if out of range)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n


def shape_arg(size: Sequence[Any]) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(nl.Size([2, 3]))`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        return tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be a sequence of ints, got {size!r}") from None
