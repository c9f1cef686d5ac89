"""``nl.histogram``: counts of values in bins, with the bin edges, as ``torch.histogram``."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import op as _op
from .promotion import scalar_type_name
from .return_types import _ReturnType


class histogram_result(_ReturnType):
    """``(hist, bin_edges)``, printed as ``nnlite.return_types.histogram(...)``."""

    __slots__ = ()
    _field_names = ("hist", "bin_edges")

    @property
    def hist(self) -> Any:
        return self[0]

    @property
    def bin_edges(self) -> Any:
        return self[1]


histogram_result.__name__ = histogram_result.__qualname__ = "histogram"


def histogram(
    input: Any,
    bins: Any = 100,
    *,
    range: tuple[float, float] | None = None,
    weight: Any = None,
    density: bool = False,
    out: Any = None,
) -> histogram_result:
    """Counts of the values of ``input`` in bins, and the bins' edges.

    Args:
        input (Tensor): a floating tensor (flattened).
        bins (int or Tensor): the number of equal bins, or their edges (increasing). Default: 100.
        range (tuple of float, optional): the span of the equal bins. Default: the values' span.
        weight (Tensor, optional): a weight per value, counted instead of one.
        density (bool): normalise the counts so that the histogram integrates to one.
        out (tuple of Tensor, optional): tensors for ``(hist, bin_edges)``.

    Returns:
        (Tensor, Tensor): ``hist`` and ``bin_edges``, as a named tuple.

    Example:
        >>> nl.histogram(nl.tensor([1.0, 2.0, 1.0]), bins=2)
        nnlite.return_types.histogram(
        hist=tensor([2., 1.]),
        bin_edges=tensor([1.0000, 1.5000, 2.0000]))
    """
    data = input._data
    if data.dtype.kind != "f":
        raise RuntimeError(f"\"histogramdd\" not implemented for '{scalar_type_name(data.dtype)}'")
    if isinstance(bins, _op.Tensor):
        edges: Any = bins._data.astype(data.dtype)
    else:
        if int(bins) <= 0:
            raise RuntimeError(
                f"torch.histogram(): bins must be > 0, but got {int(bins)} for dimension 0"
            )
        edges = int(bins)
    weights = None if weight is None else weight._data.reshape(-1)
    hist, bin_edges = np.histogram(
        data.reshape(-1), bins=edges, range=range, weights=weights, density=density
    )
    result = (
        _op.make_tensor(hist.astype(data.dtype)),
        _op.make_tensor(bin_edges.astype(data.dtype)),
    )
    if out is not None:  # out tensors take the results' sizes, as PyTorch resizes them
        for target, value in zip(out, result):
            target._data = value._data
            target._vc[0] += 1
        result = tuple(out)
    return histogram_result(result)
