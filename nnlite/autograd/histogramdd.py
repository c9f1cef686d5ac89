"""``nl.histogramdd``: the histogram of points in D dimensions, as ``torch.histogramdd``."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .creation_keywords import creation_keywords
from .return_types import _ReturnType

__all__ = ["histogramdd"]


class _HistogramDD(_ReturnType):
    """``(hist, bin_edges)``, printed as ``nnlite.return_types.histogramdd(...)``."""

    __slots__ = ()
    _field_names = ("hist", "bin_edges")

    @property
    def hist(self) -> Any:
        return self[0]

    @property
    def bin_edges(self) -> Any:
        return self[1]


_HistogramDD.__name__ = "histogramdd"


@creation_keywords("out")
def histogramdd(
    input: Any,
    bins: Any,
    *,
    range: Any = None,
    weight: Any = None,
    density: bool = False,
) -> Any:
    """The histogram of the points of ``input`` (the last dimension holds each point's D coordinates).

    Args:
        input (Tensor): floating, ``(..., D)``.
        bins (int, list of ints, or list of Tensors): the number of bins (for all dimensions or per
            dimension), or each dimension's increasing bin edges.
        range (list of floats, optional): ``[min_0, max_0, min_1, max_1, ...]``. Default: the data's
            range (widened by 0.5 each way when it is empty).
        weight (Tensor, optional): a weight per point.
        density (bool): normalise to a density (integral 1). Default: False.

    Returns:
        tuple: ``(hist, bin_edges)``, the counts (``input``'s dtype) and a tuple of edge tensors.

    Examples:
        >>> nl.histogramdd(nl.tensor([[0., 1.], [1., 1.], [2., 3.]]), bins=[2, 3]).hist
        tensor([[1., 0., 0.],
                [1., 0., 1.]])
    """
    from .creation import tensor
    from .tensor import Tensor

    if not input.is_floating_point():
        raise RuntimeError(
            f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but "
            f"got input {input.dtype} and bins {input.dtype}"
        )
    data = np.asarray(input._data)
    points = data.reshape(-1, data.shape[-1]) if data.ndim else data.reshape(1, 1)
    dims = points.shape[1]
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], Tensor):
        edges_in: Any = [np.asarray(b._data, dtype=np.float64) for b in bins]
    elif isinstance(bins, (list, tuple)):
        edges_in = [int(b) for b in bins]
    else:
        edges_in = int(bins)
    ranges = None
    if range is not None:
        flat = [float(r) for r in range]
        if len(flat) != 2 * dims:
            raise RuntimeError(
                f"torch.histogramdd: for a {dims}-dimensional histogram range should have "
                f"{2 * dims} elements, but got {len(flat)}"
            )
        ranges = [(flat[2 * i], flat[2 * i + 1]) for i in builtins.range(dims)]
    w = None if weight is None else np.asarray(weight._data).reshape(-1)
    hist, edges = np.histogramdd(points, bins=edges_in, range=ranges, weights=w, density=density)
    dtype = input.dtype
    return _HistogramDD((tensor(hist, dtype=dtype), tuple(tensor(e, dtype=dtype) for e in edges)))
