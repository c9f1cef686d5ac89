"""``scatter`` and ``scatter_add``: writing ``src`` into a copy of ``input`` at ``index`` along ``dim``."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..op import Op
from . import vjp
from .shape import GatherAlong

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from .vjp import Operand


def along_index(index: Array, dim: int) -> tuple[Array, ...]:
    """Index arrays addressing ``index``'s positions along ``dim`` (all other axes by position)."""
    grids: list[Array] = list(np.indices(index.shape, sparse=True))
    grids[dim] = index
    return tuple(grids)


def check_scatter(
    name: str,
    input_shape: tuple[int, ...],
    dim: int,
    index: Array,
    src_shape: tuple[int, ...] | None,
) -> None:
    if index.dtype != np.int64:
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")
    if index.ndim != len(input_shape) or (src_shape is not None and index.ndim != len(src_shape)):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    for d, size in enumerate(index.shape):
        if d != dim and size > input_shape[d]:
            raise RuntimeError(
                f"Expected index {list(index.shape)} to be smaller than self {list(input_shape)} "
                f"apart from dimension {dim}"
                + (
                    ""
                    if src_shape is None
                    else f" and to be smaller size than src {list(src_shape)}"
                )
            )
    if index.size and (index.min() < 0 or index.max() >= input_shape[dim]):
        raise RuntimeError(
            f"index {int(index.max() if index.max() >= input_shape[dim] else index.min())} is out of "
            f"bounds for dimension {dim} with size {input_shape[dim]}"
        )


class Scatter(Op):
    """``input`` with ``src[...]`` (or the number ``src``) written at ``index``; ``add`` accumulates."""

    dim = 0
    if TYPE_CHECKING:  # a parameter every caller gives
        index: Array
    else:
        index = None
    add = False
    node_name = "ScatterBackward0"

    def forward(self, a: Array, src: Operand) -> Array:
        index, dim = self.index, self.dim
        self.src_shape = np.shape(src)
        where = along_index(index, dim)
        out: Array = a.copy()
        # (a src with dimensions is an array: np.ndim tells them apart, which mypy cannot follow)
        values = src[tuple(slice(0, s) for s in index.shape)] if np.ndim(src) else src  # type: ignore[index]
        if self.add:
            np.add.at(out, where, values)
        else:
            out[where] = values
        return out

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> tuple[Gradient | None, Gradient | None]:
        index, dim = self.index, self.dim
        g_input = g_src = None
        if needs[0]:
            if self.add:
                g_input = grad
            else:
                keep = np.ones(np.shape(grad), dtype=bool)
                keep[along_index(index, dim)] = False
                g_input = grad * vjp.mask(keep, grad)
        if needs[1]:
            taken = vjp.call(GatherAlong, grad, dim=dim, index=index)
            g_src = taken if self.src_shape == index.shape else _pad_to(taken, self.src_shape)
        return g_input, g_src


def _pad_to(g: Gradient, shape: tuple[int, ...]) -> Gradient:
    """``g`` placed at the start of zeros of ``shape`` (src elements beyond ``index`` get no gradient)."""
    from .shape import IndexAddZeros

    return vjp.call(IndexAddZeros, g, shape=shape, index=tuple(slice(0, s) for s in np.shape(g)))
