"""``nl.backends``: the switches PyTorch scripts set (``nl.backends.cudnn.benchmark = True``,
``nl.backends.mkldnn.enabled = False``, ``nl.backends.cuda.matmul.allow_tf32 = True``) and the
availability queries they ask (``nl.backends.mps.is_available()``); nnlite runs on the CPU with
its own kernels, so the answers are "not available" and the switches are plain attributes that
change nothing."""

from . import cpu, cuda, cudnn, mkldnn, mps, openmp

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps", "openmp"]
