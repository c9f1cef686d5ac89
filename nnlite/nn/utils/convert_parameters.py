"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one flat vector and back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...autograd.tensor import Tensor

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _typename(obj: object) -> str:
    """The name of ``obj``'s type as ``torch.typename`` writes it: ``list``, ``numpy.ndarray``."""
    cls = type(obj)
    module = "" if cls.__module__ in ("builtins", "__builtin__", None) else cls.__module__ + "."
    return module + cls.__qualname__


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """One 1-d tensor holding every parameter, flattened, in order (differentiable, as PyTorch's).

    Args:
        parameters (iterable of Tensors): the parameters.

    Returns:
        Tensor: a 1-D tensor of all their elements.

    Examples:
        >>> nn.utils.parameters_to_vector(nn.Linear(3, 2).parameters()).shape
        nnlite.Size([8])
    """
    from ...autograd.creation import cat

    return cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Make each parameter a view of its slice of ``vec`` (the inverse of ``parameters_to_vector``).

    Args:
        vec (Tensor): a 1-D tensor, e.g. from ``parameters_to_vector``.
        parameters (iterable of Tensors): the parameters to point into it.

    Raises:
        TypeError: ``vec`` is not a Tensor.
        RuntimeError: ``vec`` has fewer elements than the parameters need.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> nn.utils.vector_to_parameters(nl.arange(3.), model.parameters())
        >>> model.weight.detach(), model.bias.detach()
        (tensor([[0., 1.]]), tensor([2.]))
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected nnlite.Tensor, but got: {_typename(vec)}")
    parameters = list(parameters)
    needed = sum(p.numel() for p in parameters)
    if vec.numel() < needed:
        raise RuntimeError(
            f"vector_to_parameters: the vector has {vec.numel()} elements, the parameters need "
            f"{needed}"
        )
    pointer = 0
    for param in parameters:
        count = param.numel()
        param.data = vec[pointer : pointer + count].view_as(param).data
        pointer += count
