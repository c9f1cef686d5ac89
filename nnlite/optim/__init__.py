"""Optimizers (``SGD``, ``Adam``, ``AdamW``) and learning-rate schedulers (``lr_scheduler``),
with PyTorch's interface and update rules."""
from . import lr_scheduler
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
