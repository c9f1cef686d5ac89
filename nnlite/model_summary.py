"""The former home of ``nl.summary``, kept so that ``from nnlite.model_summary import summary``
still works; the code lives in ``nnlite.nn.utils.model_summary``."""

from .nn.utils.model_summary import LayerRow, ModelSummary, summary

__all__ = ["LayerRow", "ModelSummary", "summary"]
