"""What the ONNX conversions share: the export error and the helpers that emit common nodes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor
    from .export import _Graph


class ExportError(RuntimeError):
    """The model uses something that has no ONNX conversion (the message names it).

    Examples:
        >>> class Odd(nn.Module):
        ...     def forward(self, x):
        ...         return x.cumsum(0)
        >>> nl.onnx.export(Odd(), nl.ones(3), "odd.onnx")
        Traceback (most recent call last):
            ...
        nnlite.onnx.nodes.ExportError: ...
    """


def axes_node(
    g: _Graph,
    op_type: str,
    x: Tensor | str,
    axes: Iterable[int] | None,
    result: Tensor | str | None,
    **attrs: Any,
) -> None:
    """Squeeze/Unsqueeze/Reduce*: ``axes`` is an input from opset 13 (18 for the reductions but ReduceSum).
    ``x`` is a tensor or the name of a value already in the graph."""
    name = x if isinstance(x, str) else g.value(x)
    axes_as_input = g.opset >= (
        18 if op_type.startswith("Reduce") and op_type != "ReduceSum" else 13
    )
    if axes is None:
        g.node(op_type, [name], result, **attrs)
    elif axes_as_input:
        g.node(op_type, [name, g.const(np.array(axes, dtype=np.int64), "axes")], result, **attrs)
    else:
        g.node(op_type, [name], result, axes=list(axes), **attrs)
