"""``nnlite.onnx``: export a model's forward pass as an ONNX graph (needs the optional ``onnx`` package).

Example:
    >>> import nnlite as nl
    >>> model = nl.models.resnet18(num_classes=10).eval()
    >>> nl.onnx.export(model, nl.randn(1, 3, 32, 32), "resnet18.onnx", dynamic_axes={"input": [0]})
"""

from .converters import ExportError
from .export import export

__all__ = ["export", "ExportError"]
