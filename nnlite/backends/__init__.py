"""``nl.backends``: the switches PyTorch scripts set (``nl.backends.cudnn.benchmark = True``) and the
availability queries they ask (``nl.backends.mps.is_available()``); nnlite runs on the CPU, so the
answers are "not available" and the switches change nothing."""

from . import cudnn, mps

__all__ = ["cudnn", "mps"]
