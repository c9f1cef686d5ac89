"""``nnlite.onnx``: export a model's forward pass as an ONNX graph (needs the optional ``onnx`` package).

Examples:
    >>> import nnlite as nl
    >>> model = nl.nn.Sequential(nl.nn.Conv2d(3, 8, 3), nl.nn.ReLU(), nl.nn.Flatten()).eval()
    >>> nl.onnx.export(model, nl.randn(1, 3, 32, 32), "net.onnx", dynamic_axes={"input": [0]})
"""

from .export import export
from .nodes import ExportError
from .tracer import TracerWarning

__all__ = ["export", "ExportError", "TracerWarning"]
