"""Gradient clipping as ``torch.nn.utils``: ``clip_grad_norm_``, ``clip_grad_value_`` and their
parts ``get_total_norm`` / ``clip_grads_with_norm_``. They work on the gradient arrays in place,
outside autograd, and compute in the gradients' dtype as PyTorch does."""

from __future__ import annotations

import types
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.tensor import Tensor, _make

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import TypeAlias

    from ..._typing import Array

    #: a Tensor or an iterable of Tensors, as PyTorch's ``_tensor_or_tensors``
    TensorOrTensors: TypeAlias = Tensor | Iterable[Tensor]

__all__ = [
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
]


def _tensor_list(tensors: TensorOrTensors) -> list[Tensor]:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _vector_norm(array: Array, norm_type: float) -> Any:
    values = np.abs(array.ravel())
    if norm_type == np.inf:
        return values.max(initial=0).astype(array.dtype)
    if norm_type == -np.inf:
        return values.min().astype(array.dtype) if values.size else np.asarray(np.inf, array.dtype)
    if norm_type == 0:
        return np.asarray(np.count_nonzero(values), array.dtype)
    if norm_type == 1:
        return values.sum(dtype=array.dtype)
    if norm_type == 2:
        return np.sqrt(np.dot(values, values)).astype(array.dtype)
    return (values.astype(np.float64) ** norm_type).sum() ** (1.0 / norm_type)


def get_total_norm(
    tensors: TensorOrTensors,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` taken together (as if concatenated into one vector).

    Args:
        tensors: a Tensor or an iterable of Tensors.
        norm_type: the p of the p-norm; ``float("inf")`` for the largest absolute value.
        error_if_nonfinite: raise if the norm is NaN or infinite.
        foreach: accepted for compatibility (nnlite has one implementation).

    Returns:
        Tensor: a 0-d tensor (``tensor(0.)`` when there are no tensors).

    Examples:
        >>> nn.utils.get_total_norm([nl.tensor([3.]), nl.tensor([4.])])
        tensor(5.)
    """
    tensors = _tensor_list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return _make(np.asarray(0.0, np.float32))
    norms = [_vector_norm(t._data, norm_type) for t in tensors]
    dtype = np.result_type(*[t._data.dtype for t in tensors])
    total = _vector_norm(np.asarray(norms, dtype=dtype), norm_type).astype(dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so "
            f"it cannot be clipped. To disable this error and scale the gradients by the non-finite "
            f"norm anyway, set `error_if_nonfinite=False`"
        )
    return _make(np.asarray(total, dtype=dtype))


def _grads(parameters: TensorOrTensors) -> list[Tensor]:
    return [p.grad for p in _tensor_list(parameters) if p.grad is not None]


def clip_grads_with_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    total_norm: Tensor | float,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients of ``parameters`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``.

    Args:
        parameters (Tensor or iterable of Tensors): the parameters whose gradients to scale.
        max_norm (float): the largest total norm allowed.
        total_norm (Tensor or float): the total norm, from ``get_total_norm``.
        foreach: accepted for compatibility.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> grads = [p.grad for p in model.parameters()]
        >>> nn.utils.clip_grads_with_norm_(model.parameters(), 1.0, nn.utils.get_total_norm(grads))
        >>> round(float(nn.utils.get_total_norm([p.grad for p in model.parameters()])), 4)
        1.0
    """
    grads = _grads(parameters)
    if not grads:
        return
    total = (
        total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm, np.float32)
    )
    coef = np.minimum(
        np.asarray(float(max_norm), total.dtype) / (total + np.asarray(1e-6, total.dtype)), 1.0
    )
    with np.errstate(invalid="ignore"):  # a non-finite norm scales to NaN, as in PyTorch
        for g in grads:
            np.multiply(g._data, coef.astype(g._data.dtype), out=g._data)
            g._bump_version()


def clip_grad_norm_(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Rescale the gradients so that their total norm is at most ``max_norm``.

    Args:
        parameters: a Tensor or an iterable of Tensors whose ``.grad`` is clipped.
        max_norm: the largest allowed total norm.
        norm_type: the p of the p-norm (``float("inf")`` allowed).
        error_if_nonfinite: raise instead of clipping when the total norm is NaN or infinite.
        foreach: accepted for compatibility.

    Returns:
        Tensor: the total norm of the gradients before clipping.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> (model(nl.randn(8, 4)) * 100).sum().backward()
        >>> total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        >>> bool(total > 1.0), round(float(nn.utils.get_total_norm(
        ...     [p.grad for p in model.parameters()])), 4)
        (True, 1.0)
    """
    if isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)
        if not parameters:
            warnings.warn(
                "`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2
            )
    parameters = _tensor_list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: TensorOrTensors,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Deprecated spelling of ``clip_grad_norm_`` (PyTorch warns the same way).

    Args:
        parameters (Tensor or iterable of Tensors): the parameters whose gradients to scale.
        max_norm (float): the largest total norm allowed.
        norm_type (float): the norm. Default: 2.
        error_if_nonfinite (bool): raise when the total norm is NaN or infinite. Default: False.
        foreach: accepted for compatibility.

    Returns:
        Tensor: the total norm before clipping.

    Examples:
        >>> import warnings
        >>> model = nn.Linear(2, 1)
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     total = nn.utils.clip_grad_norm(model.parameters(), 1.0)
        >>> round(float(total), 4)
        1.7321
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(
    parameters: TensorOrTensors, clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient of ``parameters`` into ``[-clip_value, clip_value]``, in place.

    Args:
        parameters (Tensor or iterable of Tensors): the parameters whose gradients to clamp.
        clip_value (float): the largest absolute value allowed.
        foreach: accepted for compatibility.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> (model(nl.randn(8, 4)) * 100).sum().backward()
        >>> nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
        >>> float(model.weight.grad.abs().max())
        0.5
    """
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._bump_version()
