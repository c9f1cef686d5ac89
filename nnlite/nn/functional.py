"""``nnlite.nn.functional`` (``import nnlite.nn.functional as F``): layers as functions.

Each function checks and normalises its arguments (with PyTorch's error messages) and calls one
op of ``nnlite.nn.ops``, or an op of the autograd core.
"""
import math
import numbers
import warnings

import numpy as np

from ..autograd import ops as _core
from ..autograd.random import default_generator
from ..autograd.tensor import _make
from ..autograd.creation import where as _core_where
from . import ops as _ops
from .ops.normalization import channel_shape, reduce_axes

__all__ = ["linear", "relu", "relu_", "relu6", "sigmoid", "tanh", "softmax", "log_softmax", "conv2d", "max_pool2d",
           "avg_pool2d", "adaptive_avg_pool2d", "batch_norm", "dropout", "mse_loss", "l1_loss", "cross_entropy",
           "nll_loss", "binary_cross_entropy_with_logits", "flatten", "pad"]

_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
               "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


class LayerInputError(RuntimeError):
    """A shape or type error in a layer's input; layers re-raise it with their own repr in front."""


def _type_name(array):
    return _TYPE_NAMES.get(array.dtype.name, array.dtype.name)


def _dims(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _pair(value, name="value", fn="conv2d"):
    """An int or a pair of ints as an (h, w) tuple of ints."""
    if isinstance(value, numbers.Integral):
        return (int(value), int(value))
    value = tuple(value)
    if len(value) == 1:
        return (int(value[0]), int(value[0]))
    if len(value) != 2:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 values to match the "
                           f"convolution dimensions, but got {name}={list(value)}" if fn == "conv2d" else
                           f"{fn}: {name} must either be a single int, or a tuple of two ints")
    return (int(value[0]), int(value[1]))


# ---------------------------------------------------------------------------------------- linear
def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` over the last dimension of ``input``.

    Example:
        >>> F.linear(nl.ones(2, 3), nl.ones(4, 3)).shape
        nnlite.Size([2, 4])
    """
    nd = input._data.ndim
    if nd == 2:
        return _linear2d(input, weight, bias)
    if nd == 1:
        return _linear2d(input.unsqueeze(0), weight, bias).squeeze(0)
    if nd == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    lead = input._data.shape[:-1]
    out = _linear2d(input.reshape(-1, input._data.shape[-1]), weight, bias)
    return out.reshape(lead + (weight._data.shape[0],))


def _linear2d(x, weight, bias):
    if bias is None:
        return _ops.LinearNoBias.apply(x, weight)
    return _ops.Linear.apply(bias, x, weight)


# ---------------------------------------------------------------------------------------- activations
def relu(input, inplace=False):
    """``max(input, 0)``; with ``inplace`` the input tensor is overwritten."""
    if inplace:
        return input.relu_()
    return _core.Relu.apply(input)


def relu_(input):
    return input.relu_()


def relu6(input, inplace=False):
    """``min(max(input, 0), 6)``: ``hardtanh(input, 0, 6)``, so no gradient passes at exactly 0 or 6.

    Example:
        >>> F.relu6(nl.tensor([-1., 3., 8.]))
        tensor([0., 3., 6.])
    """
    # A composite: where() passes the gradient only to the relu branch, and relu only above 0.
    out = _core_where(input >= 6, 6.0, input.relu())
    return input.copy_(out) if inplace else out


def sigmoid(input):
    return _core.Sigmoid.apply(input)


def tanh(input):
    return _core.Tanh.apply(input)


def _softmax_dim(name, ndim, stacklevel):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def _check_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably."""
    if dtype is not None:
        input = input.to(dtype)
    nd = input._data.ndim
    dim = _softmax_dim("softmax", nd, _stacklevel) if dim is None else _check_dim(dim, nd)
    return _ops.Softmax.apply(input, dim=dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x)`` along ``dim``."""
    if dtype is not None:
        input = input.to(dtype)
    nd = input._data.ndim
    dim = _softmax_dim("log_softmax", nd, _stacklevel) if dim is None else _check_dim(dim, nd)
    return _ops.LogSoftmax.apply(input, dim=dim)


# ---------------------------------------------------------------------------------------- convolution
def _same_padding(kernel_hw, dilation):
    """Left/right padding per axis that keeps the size at stride 1 (extra on the right, as PyTorch)."""
    pads = []
    for k, d in zip(kernel_hw, dilation):
        total = d * (k - 1)
        pads.append((total // 2, total - total // 2))
    return pads


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of NCHW ``input`` (or unbatched CHW) with ``weight``.

    ``padding`` is an int, a pair, ``"valid"`` or ``"same"``. Only zero padding.
    """
    x = input._data
    w = weight._data
    if w.ndim != 4:
        raise LayerInputError("weight should have at least three dimensions" if w.ndim < 3 else
                              f"Expected 4-dimensional weight for 4-dimensional input, but got {w.ndim}-dimensional "
                              f"weight of size {_dims(w.shape)} instead")
    if x.ndim == 3:
        return conv2d(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups).squeeze(0)
    if x.ndim != 4:
        raise LayerInputError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                              f"{_dims(x.shape)}")
    stride = _pair(stride, "stride")
    dilation = _pair(dilation, "dilation")
    groups = int(groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = (0, 0)
        elif padding == "same":
            if stride != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_padding(w.shape[2:], dilation)
            if any(lo != hi for lo, hi in pads):
                (th, bh), (lw, rw) = pads
                input = pad(input, (0, rw - lw, 0, bh - th))
                x = input._data
            padding = (pads[0][0], pads[1][0])
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = _pair(padding, "padding")
    if min(stride) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    if min(dilation) <= 0:
        raise RuntimeError("dilation should be greater than zero")
    if min(padding) < 0:
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    _check_conv_shapes(x, w, bias, padding, dilation, groups)
    return _ops.Conv2d.apply(input, weight, bias, stride=stride, padding=padding, dilation=dilation, groups=groups)


def _check_conv_shapes(x, w, bias, padding, dilation, groups):
    if w.shape[0] % groups:
        raise LayerInputError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                              f"but got weight of size [{_dims(w.shape)}] instead")
    if x.shape[1] != w.shape[1] * groups:
        raise LayerInputError(f"Given groups={groups}, weight of size {_dims(w.shape)}, expected input"
                              f"{_dims(x.shape)} to have {w.shape[1] * groups} channels, but got {x.shape[1]} "
                              "channels instead")
    if bias is not None and bias._data.shape != (w.shape[0],):
        raise LayerInputError(f"Given weight of size {_dims(w.shape)}, expected bias to be 1-dimensional with "
                              f"{w.shape[0]} elements, but got bias of size {_dims(bias._data.shape)} instead")
    if x.dtype != w.dtype:
        raise LayerInputError(f"expected scalar type {_type_name(x)} but found {_type_name(w)}")
    if bias is not None and bias._data.dtype != x.dtype:
        raise LayerInputError(f"Input type ({_type_name(x).lower()}) and bias type "
                              f"({_type_name(bias._data).lower()}) should be the same")
    ph, pw = x.shape[2] + 2 * padding[0], x.shape[3] + 2 * padding[1]
    kh, kw = dilation[0] * (w.shape[2] - 1) + 1, dilation[1] * (w.shape[3] - 1) + 1
    if ph < kh or pw < kw:
        raise LayerInputError(f"Calculated padded input size per channel: ({ph} x {pw}). Kernel size: ({kh} x "
                              f"{kw}). Kernel size can't be greater than actual input size")


# ---------------------------------------------------------------------------------------- pooling
def _pool_input(input, fn):
    nd = input._data.ndim
    if nd not in (3, 4) or input._data.size == 0:
        raise LayerInputError("non-empty 3D or 4D (batch mode) tensor expected for input")
    return nd == 3


def _pool_args(kernel_size, stride, padding, dilation, fn):
    kernel = _pair(kernel_size, "kernel_size", fn)
    stride = kernel if stride is None or (not isinstance(stride, numbers.Integral) and len(stride) == 0) \
        else _pair(stride, "stride", fn)
    padding = _pair(padding, "padding", fn)
    dilation = _pair(dilation, "dilation", fn)
    if min(kernel) <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kH: {kernel[0]} kW: {kernel[1]}")
    if min(stride) <= 0:
        raise RuntimeError("stride should not be zero" if min(stride) == 0 else
                           f"stride should be greater than zero, but got dH: {stride[0]} dW: {stride[1]}")
    if min(dilation) <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilationH: {dilation[0]} dilationW: "
                           f"{dilation[1]}")
    for p, k, d in zip(padding, kernel, dilation):
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    return kernel, stride, padding, dilation


def _pool_out(size, k, s, p, d, ceil_mode):
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _check_pool_output(x, kernel, stride, padding, dilation, ceil_mode):
    c, h, w = x.shape[-3:]
    oh = _pool_out(h, kernel[0], stride[0], padding[0], dilation[0], ceil_mode)
    ow = _pool_out(w, kernel[1], stride[1], padding[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise LayerInputError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output "
                              "size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """2-D max pooling; ``stride`` defaults to ``kernel_size``.

    With ``return_indices`` also returns the flat position (in each H*W plane) of every maximum.
    """
    unbatched = _pool_input(input, "max_pool2d")
    kernel, stride, padding, dilation = _pool_args(kernel_size, stride, padding, dilation, "max_pool2d")
    _check_pool_output(input._data, kernel, stride, padding, dilation, ceil_mode)
    x = input.unsqueeze(0) if unbatched else input
    if return_indices:
        # max pooling is a gather at the windows' winners: find them, then gather (differentiably)
        from .ops._kernels import kernels
        _, argmax = kernels().max_pool2d_forward(x._data, kernel, stride, padding, dilation, bool(ceil_mode))
        out = _ops.MaxPool2dGather.apply(x, argmax=argmax)
        indices = _make(argmax)
        return (out.squeeze(0), indices.squeeze(0)) if unbatched else (out, indices)
    out = _ops.MaxPool2d.apply(x, kernel=kernel, stride=stride, padding=padding, dilation=dilation,
                               ceil_mode=bool(ceil_mode))
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """2-D average pooling; ``stride`` defaults to ``kernel_size``."""
    unbatched = _pool_input(input, "avg_pool2d")
    kernel, stride, padding, _ = _pool_args(kernel_size, stride, padding, 1, "avg_pool2d")
    if divisor_override is not None and int(divisor_override) == 0:
        raise RuntimeError("divisor must be not zero")
    _check_pool_output(input._data, kernel, stride, padding, (1, 1), ceil_mode)
    x = input.unsqueeze(0) if unbatched else input
    out = _ops.AvgPool2d.apply(x, kernel=kernel, stride=stride, padding=padding, ceil_mode=bool(ceil_mode),
                               count_include_pad=bool(count_include_pad), divisor_override=divisor_override)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed ``output_size`` (int, pair, with ``None`` keeping that dimension)."""
    nd = input._data.ndim
    if nd not in (3, 4):
        raise LayerInputError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {_dims(input._data.shape)}")
    h, w = input._data.shape[-2:]
    if isinstance(output_size, numbers.Integral):
        output_size = (output_size, output_size)
    oh, ow = output_size
    oh = h if oh is None else int(oh)
    ow = w if ow is None else int(ow)
    if (oh, ow) == (1, 1):
        return input.mean((-2, -1), keepdim=True)
    if h % oh == 0 and w % ow == 0:  # regular windows: plain average pooling
        kernel = (h // oh, w // ow)
        x = input.unsqueeze(0) if nd == 3 else input
        out = _ops.AvgPool2d.apply(x, kernel=kernel, stride=kernel, padding=(0, 0), ceil_mode=False,
                                   count_include_pad=True, divisor_override=None)
        return out.squeeze(0) if nd == 3 else out
    return _ops.AdaptiveAvgPool2d.apply(input, output_hw=(oh, ow))


# ---------------------------------------------------------------------------------------- normalisation
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    """Batch normalisation over dimension 1.

    In training the batch statistics normalise the input and, when running buffers are given,
    update them in place: ``running = (1 - momentum) * running + momentum * batch`` (the variance
    unbiased). Otherwise the running statistics are used.
    """
    x = input._data
    if x.ndim < 2:
        raise ValueError(f"expected 2D or more input (got {x.ndim}D input)")
    c = x.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t._data.size != c:
            raise LayerInputError(f"{name} should contain {c} elements not {t._data.size}")
    if training:
        count = x.size // c
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"{input.shape}")
        axes = reduce_axes(x.ndim)
        mean = x.mean(axis=axes)
        centered = x - mean.reshape(channel_shape(x.ndim, c))
        var = (centered * centered).mean(axis=axes)
        if running_mean is not None:
            m = float(momentum)
            rm = running_mean._data
            rm *= 1 - m
            rm += m * mean.astype(rm.dtype, copy=False)
            running_mean._vc[0] += 1
        if running_var is not None:
            m = float(momentum)
            rv = running_var._data
            rv *= 1 - m
            rv += (m * count / (count - 1)) * var.astype(rv.dtype, copy=False)
            running_var._vc[0] += 1
        batch_stats = True
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(("running_mean" if running_mean is None else "running_var")
                               + " must be defined in evaluation mode")
        mean = running_mean._data.astype(x.dtype, copy=False)
        var = running_var._data.astype(x.dtype, copy=False)
        batch_stats = False
    invstd = (1.0 / np.sqrt(var + eps)).astype(x.dtype, copy=False)
    return _ops.BatchNorm.apply(input, weight, bias, mean=mean, invstd=invstd, batch_stats=batch_stats, eps=eps)


# ---------------------------------------------------------------------------------------- dropout
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    x = input._data
    if p == 1:
        mask = np.zeros(x.shape, dtype=x.dtype)
    else:
        mask = default_generator.random(x.shape, dtype=np.float64 if x.dtype == np.float64 else np.float32)
        mask = (mask >= p).astype(x.dtype) * np.asarray(1.0 / (1.0 - p), dtype=x.dtype)
    if inplace:
        return input._inplace(_ops.Dropout, mask=mask)
    return _ops.Dropout.apply(input, mask=mask)


# ---------------------------------------------------------------------------------------- losses
_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:  # PyTorch's legacy arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _warn_broadcast(input, target):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
                      "the same size.", UserWarning, stacklevel=3)
        try:
            np.broadcast_shapes(input._data.shape, target._data.shape)
        except ValueError:
            a, b = input._data.shape, target._data.shape
            for i in range(1, min(len(a), len(b)) + 1):
                if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
                    raise RuntimeError(f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) "
                                       f"at non-singleton dimension {max(len(a), len(b)) - i}") from None
            raise


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean squared error ``(input - target) ** 2``, reduced."""
    reduction = _reduction(reduction, size_average, reduce)
    _warn_broadcast(input, target)
    return _ops.MseLoss.apply(input, target, reduction=reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Mean absolute error ``|input - target|``, reduced."""
    reduction = _reduction(reduction, size_average, reduce)
    _warn_broadcast(input, target)
    return _ops.L1Loss.apply(input, target, reduction=reduction)


def _class_target_checks(input, target, weight, fn):
    t = target._data
    x = input._data
    if t.dtype.kind not in "iu" or t.dtype == np.int32 or t.dtype.itemsize not in (1, 8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(t)}")
    if x.ndim == 1:
        if t.ndim != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif x.ndim == 2:
        if t.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if t.shape[0] != x.shape[0]:
            raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]}).")
    elif x.ndim > 2:
        expected = (x.shape[0],) + x.shape[2:]
        if t.shape != expected:
            if t.shape[:1] != x.shape[:1]:
                raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                                 f"({t.shape[0] if t.ndim else 1}).")
            raise RuntimeError(f"Expected target size {_dims(expected)}, got {_dims(t.shape)}")
    else:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    n_classes = x.shape[0] if x.ndim == 1 else x.shape[1]
    if weight is not None and weight._data.shape != (n_classes,):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {_dims(weight._data.shape)}")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    """Negative log-likelihood of class-index ``target`` given log-probabilities ``input`` (N, C, ...)."""
    reduction = _reduction(reduction, size_average, reduce)
    _class_target_checks(input, target, weight, "nll_loss")
    w = None if weight is None else weight._data
    if input._data.ndim == 1:
        out = _ops.NllLoss.apply(input.unsqueeze(0), target._data.reshape(1), weight=w,
                                 ignore_index=ignore_index, reduction=reduction)
        return out.squeeze(0) if reduction == "none" else out
    return _ops.NllLoss.apply(input, target._data, weight=w, ignore_index=ignore_index, reduction=reduction)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between logits ``input`` (N, C, ...) and class indices or class probabilities.

    Class-index targets (int64) may use ``ignore_index``; probability targets have ``input``'s
    shape. ``label_smoothing`` mixes the target with the uniform distribution.

    Example:
        >>> F.cross_entropy(nl.zeros(2, 4), nl.tensor([0, 3]))
        tensor(1.3863)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x, t = input._data, target._data
    w = None if weight is None else weight._data
    unbatched = x.ndim == 1
    if t.dtype.kind == "f" and t.shape == x.shape:
        if w is not None and w.shape != (x.shape[1 if x.ndim > 1 else 0],):
            raise RuntimeError(f"weight tensor should be defined either for all {x.shape[1]} classes or no classes "
                               f"but got weight tensor of shape: {_dims(w.shape)}")
        if unbatched:
            out = _ops.CrossEntropyProb.apply(input.unsqueeze(0), target.unsqueeze(0), weight=w,
                                              reduction=reduction, label_smoothing=float(label_smoothing))
            return out.squeeze(0) if reduction == "none" else out
        return _ops.CrossEntropyProb.apply(input, target, weight=w, reduction=reduction,
                                           label_smoothing=float(label_smoothing))
    if t.dtype.kind == "f" and x.ndim > 1 and t.ndim == x.ndim:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported" if x.ndim == 2 else
                           f"Expected target size {_dims((x.shape[0],) + x.shape[2:])}, got {_dims(t.shape)}")
    _class_target_checks(input, target, weight, "cross_entropy")
    if unbatched:
        out = _ops.CrossEntropy.apply(input.unsqueeze(0), t.reshape(1), weight=w, ignore_index=ignore_index,
                                      reduction=reduction, label_smoothing=float(label_smoothing))
        return out.squeeze(0) if reduction == "none" else out
    return _ops.CrossEntropy.apply(input, t, weight=w, ignore_index=ignore_index, reduction=reduction,
                                   label_smoothing=float(label_smoothing))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, computed stably from logits.

    ``pos_weight`` weighs the positive term per class (broadcast along the last dimension).
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    x = input._data
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            try:
                np.broadcast_shapes(t._data.shape, x.shape)
            except ValueError:
                a, b = t._data.shape, x.shape
                i = next(i for i in range(1, min(len(a), len(b)) + 1) if a[-i] not in (1, b[-i]))
                raise RuntimeError(f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                                   f"non-singleton dimension {len(b) - i}") from None
    if target._data.dtype != x.dtype:
        target = target.to(x.dtype)
    return _ops.BinaryCrossEntropyWithLogits.apply(
        input, target, weight=None if weight is None else weight._data.astype(x.dtype, copy=False),
        pos_weight=None if pos_weight is None else pos_weight._data.astype(x.dtype, copy=False),
        reduction=reduction)


# ---------------------------------------------------------------------------------------- shape
def flatten(input, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim`` to ``end_dim`` into one."""
    shape = input._data.shape
    if start_dim == 1 and end_dim == -1 and len(shape) > 2:  # (N, ...) -> (N, features): the usual case
        out = _core.Reshape.apply(input, shape=(shape[0], math.prod(shape[1:])))
        if out._data.base is not None:
            out._vc = input._vc  # a view shares its base's version counter
        return out
    return input.flatten(start_dim, end_dim)


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions: ``pad = (left, right, top, bottom, ...)``; negative values crop.

    Only ``mode="constant"`` is supported.
    """
    if mode != "constant":
        raise NotImplementedError(f"F.pad: mode '{mode}' is not supported by nnlite (only 'constant')")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input._data.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input._data.ndim}")
    return _ops.ConstantPad.apply(input, pad=pad, value=0 if value is None else value)
