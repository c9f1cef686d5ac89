"""``repr`` of tensors in PyTorch's format: ``tensor([[1., 0.], [0.5000, 2.]], requires_grad=True)``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from . import promotion
from .print_options import OPTIONS

if TYPE_CHECKING:
    from .._typing import Array
    from .tensor import Tensor


class _Formatter:
    """Chooses one format for every element, as PyTorch does: integer, fixed or scientific."""

    def __init__(self, values: Array) -> None:
        self.kind = values.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        if self.kind == "b":
            self.max_width = max((len(str(bool(v))) for v in values.ravel()), default=1)
        elif self.kind in "iu":
            self.max_width = max((len(str(int(v))) for v in values.ravel()), default=1)
        else:
            # as PyTorch: the mode and the column width come from the non-zero finite values
            # only (zeros, nan and inf neither widen the columns nor switch to scientific)
            finite = values[np.isfinite(values)].astype(np.float64)
            nonzero = finite[finite != 0]
            if nonzero.size == 0:
                return
            self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
            magnitudes = np.abs(nonzero)
            lo, hi = magnitudes.min(), magnitudes.max()
            if hi / lo > 1000.0 or hi > 1e8 or (not self.int_mode and lo < 1e-4):
                self.sci_mode = True
            if OPTIONS.sci_mode is not None:
                self.sci_mode = bool(OPTIONS.sci_mode)
            self.max_width = max(len(self._format(v)) for v in nonzero)

    @staticmethod
    def _special(v: Any) -> str:
        if np.isnan(v):
            return "nan"
        return "inf" if v > 0 else "-inf"

    def _format(self, v: Any) -> str:
        if self.kind == "b":
            return str(bool(v))
        if self.kind in "iu":
            return str(int(v))
        if not np.isfinite(v):
            return self._special(v)
        v = float(v)
        if self.sci_mode:
            return f"{v:.{OPTIONS.precision}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{OPTIONS.precision}f}"

    def format(self, v: Any) -> str:
        return self._format(v).rjust(self.max_width)


def _summary_values(a: Array) -> Array:
    """The elements that are printed (edges only when the tensor is summarized)."""
    if a.size <= OPTIONS.threshold:
        return a
    return _edge_values(a)


def _edge_values(a: Array) -> Array:
    _EDGEITEMS = OPTIONS.edgeitems
    if a.ndim == 1:
        return (
            np.concatenate([a[:_EDGEITEMS], a[-_EDGEITEMS:]]) if a.shape[0] > 2 * _EDGEITEMS else a
        )
    parts = [_edge_values(a[i]) for i in _edge_indices(a.shape[0])]
    return np.concatenate([p.ravel() for p in parts])


def _edge_indices(n: int) -> list[int]:
    _EDGEITEMS = OPTIONS.edgeitems
    if n > 2 * _EDGEITEMS:
        return list(range(_EDGEITEMS)) + list(range(n - _EDGEITEMS, n))
    return list(range(n))


def _tensor_str(a: Array, indent: int, formatter: _Formatter, summarize: bool) -> str:
    _EDGEITEMS = OPTIONS.edgeitems
    if a.ndim == 0:
        return formatter.format(a.item())
    if a.ndim == 1:
        n = a.shape[0]
        if summarize and n > 2 * _EDGEITEMS:
            items = (
                [formatter.format(v) for v in a[:_EDGEITEMS]]
                + [" ..."]
                + [formatter.format(v) for v in a[-_EDGEITEMS:]]
            )
        else:
            items = [formatter.format(v) for v in a]
        per_line = max(1, int(math.floor((OPTIONS.linewidth - indent) / (formatter.max_width + 2))))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = a.shape[0]
    if summarize and n > 2 * _EDGEITEMS:
        rows = (
            [_tensor_str(a[i], indent + 1, formatter, summarize) for i in range(_EDGEITEMS)]
            + ["..."]
            + [
                _tensor_str(a[i], indent + 1, formatter, summarize)
                for i in range(n - _EDGEITEMS, n)
            ]
        )
    else:
        rows = [_tensor_str(a[i], indent + 1, formatter, summarize) for i in range(n)]
    separator = "," + "\n" * (a.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(rows) + "]"


_IMPLIED_DTYPES = (np.dtype(np.int64), np.dtype(np.bool_))


def tensor_repr(t: Tensor, prefix: str = "tensor(") -> str:
    a = t._data
    indent = len(prefix)
    suffixes: list[str] = []
    default_float = promotion.default_float()
    if a.size == 0:
        body = "[]"
        if a.shape != (0,):
            suffixes.append(f"size={tuple(a.shape)}")
        # no element shows whether it is an integer: every dtype but the default float is named
        show_dtype = a.dtype != default_float
    else:
        summarize = a.size > OPTIONS.threshold
        formatter = _Formatter(_summary_values(a))
        body = _tensor_str(a, indent, formatter, summarize)
        show_dtype = a.dtype != default_float and a.dtype not in _IMPLIED_DTYPES
    if show_dtype:
        suffixes.append(f"dtype={t.dtype!r}")
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name()}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    text = prefix + body
    for s in suffixes:
        text += ", " + s
    return text + ")"
