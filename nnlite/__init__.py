"""nnlite: a small neural-network framework with its own autograd and PyTorch's API.

Example:
    >>> import nnlite as nl
    >>> a = nl.tensor([2., 3.], requires_grad=True)
    >>> (3 * a ** 3).sum().backward()
    >>> a.grad
    tensor([36., 81.])
"""
from .autograd.dtypes import (dtype, float16, half, float32, float, float64, double, int8, uint8, int16, short,
                              int32, int, int64, long, uint16, uint32, uint64, bool)
from .autograd.tensor import Tensor, Size
from .device import device, set_default_device, get_default_device
from .autograd.grad_mode import (no_grad, enable_grad, set_grad_enabled, is_grad_enabled, inference_mode,
                                 is_inference_mode_enabled)
from .autograd.legacy import (FloatTensor, DoubleTensor, HalfTensor, ByteTensor, CharTensor, ShortTensor,
                              IntTensor, LongTensor, BoolTensor)
from .autograd.random import manual_seed, initial_seed, get_rng_state, set_rng_state
from .autograd.function_forms import *  # noqa: F401,F403  (nl.exp(t), nl.sum(t), ...)
from .autograd.creation import (tensor, as_tensor, from_numpy, zeros, ones, empty, full, rand, randn, randint,
                                randperm, arange, linspace, eye, zeros_like, ones_like, empty_like, rand_like,
                                randn_like, full_like, cat, concat, stack, where, is_tensor)
from .autograd.ops.einsum import einsum
from .autograd.tensor_functions import meshgrid
from ._threads import set_num_threads, get_num_threads
from . import autograd

__version__ = "0.1.0"


def __getattr__(name):
    # Subpackages load on first use, so that ``import nnlite`` stays fast.
    import importlib
    if name in ("nn", "optim", "data", "models", "train", "linalg", "onnx", "utils", "cuda", "backends",
                "accelerator", "multiprocessing"):
        return importlib.import_module(f".{name}", __name__)
    if name == "summary":
        from .model_summary import summary
        return summary
    if name in ("save", "load", "save_file", "load_file"):
        from . import serialization
        return getattr(serialization, name)
    raise AttributeError(f"module 'nnlite' has no attribute '{name}'")
