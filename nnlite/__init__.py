"""nnlite: a small neural-network framework with its own autograd and PyTorch's API.

Examples:
    >>> import nnlite as nl
    >>> a = nl.tensor([2., 3.], requires_grad=True)
    >>> (3 * a ** 3).sum().backward()
    >>> a.grad
    tensor([36., 81.])
"""

from typing import TYPE_CHECKING, Any

from . import autograd
from ._threads import get_num_threads, set_num_threads
from .amp.autocast_mode import autocast
from .amp.autocast_state import *  # noqa: F401,F403  (nl.is_autocast_enabled, ...)
from .amp.grad_scaler import GradScaler
from .autograd import return_types
from .autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from .autograd.bfloat16 import BFloat16Tensor, bfloat16
from .autograd.binomial import binomial
from .autograd.creation import (
    arange,
    as_tensor,
    cat,
    concat,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    is_tensor,
    linspace,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    stack,
    tensor,
    where,
    zeros,
    zeros_like,
)
from .autograd.dtypes import (
    bool,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .autograd.finite_differences import gradient
from .autograd.function_forms import *  # noqa: F401,F403  (nl.exp(t), nl.sum(t), ...)
from .autograd.generator import Generator
from .autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .autograd.histogram import histogram
from .autograd.histogramdd import histogramdd
from .autograd.indexed_reductions import index_reduce, nonzero_static, segment_reduce
from .autograd.legacy import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .autograd.ops.einsum import einsum
from .autograd.print_options import set_printoptions
from .autograd.process_settings import (
    default_generator,
    init_num_threads,
    is_distributed,
    set_default_tensor_type,
)
from .autograd.promotion import get_default_dtype, promote_types, set_default_dtype
from .autograd.promotion import tensor_result_type as result_type
from .autograd.random import get_rng_state, initial_seed, manual_seed, set_rng_state
from .autograd.sizes import Size
from .autograd.strided_views import (
    as_strided,
    as_strided_,
    empty_permuted,
    empty_strided,
    resize_as_,
    slice_inverse,
)
from .autograd.surface_functions import *  # noqa: F401,F403  (nl.hstack, nl.cdist, nl.pi, ...)
from .autograd.tensor import Tensor
from .autograd.tensor_functions import meshgrid
from .autograd.tensor_hash import hash_tensor
from .autograd.tensor_surface import polygamma, tensordot
from .device import device, get_default_device, set_default_device
from .nn_function_forms import *  # noqa: F401,F403  (nl.batch_norm, nl.conv3d, nl.lstm, ...)

__version__ = "0.1.0"

from .autograd import deprecated_overloads as _deprecated_overloads  # noqa: E402
from .autograd import numpy_aliases as _numpy_aliases  # noqa: E402
from .autograd import scalar_input as _scalar_input  # noqa: E402

_numpy_aliases.install(globals(), Tensor)
_deprecated_overloads.install(globals(), Tensor)
_scalar_input.install(globals(), Tensor)

from . import linalg_special_forms as _linalg_special_forms  # noqa: E402

_linalg_special_forms.install(globals(), Tensor)

if TYPE_CHECKING:
    # What __getattr__ loads on first use, visible to type checkers and editors.
    from . import (
        accelerator,
        amp,
        backends,
        cuda,
        data,
        distributions,
        fft,
        hub,
        linalg,
        models,
        multiprocessing,
        nn,
        onnx,
        optim,
        special,
        train,
        utils,
    )
    from .nn.ops.ctc_loss import torch_ctc_loss as ctc_loss
    from .nn.utils.model_summary import summary
    from .serialization import load, load_file, save, save_file


def __getattr__(name: str) -> Any:
    # Subpackages load on first use, so that ``import nnlite`` stays fast.
    import importlib

    if name in (
        "nn",
        "optim",
        "data",
        "models",
        "train",
        "linalg",
        "special",
        "fft",
        "onnx",
        "utils",
        "cuda",
        "backends",
        "accelerator",
        "multiprocessing",
        "serialization",
        "distributions",
        "amp",
        "hub",
    ):
        return importlib.import_module(f".{name}", __name__)
    if name == "summary":
        from .nn.utils.model_summary import summary

        return summary
    if name == "ctc_loss":  # torch.ctc_loss (its integer reduction), defined with F.ctc_loss
        from .nn.ops.ctc_loss import torch_ctc_loss

        return torch_ctc_loss
    if name in ("save", "load", "save_file", "load_file"):
        from . import serialization

        return getattr(serialization, name)
    raise AttributeError(f"module 'nnlite' has no attribute '{name}'")
