"""``Parameter`` and ``Buffer``: Tensors that a ``Module`` registers when they are assigned as attributes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, SupportsIndex

import numpy as np

from ..autograd.tensor import Tensor, _as_array, _init

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


class Parameter(Tensor):
    """A leaf Tensor that requires grad by default and is registered by ``Module.__setattr__``.

    ``Parameter(t)`` shares ``t``'s memory, as in PyTorch.

    Args:
        data (Tensor, optional): the values (shared, not copied). Default: an empty tensor.
        requires_grad (bool): Default: True.

    Examples:
        >>> p = nl.nn.Parameter(nl.zeros(2))
        >>> p
        Parameter containing:
        tensor([0., 0.], requires_grad=True)
    """

    def __init__(self, data: Tensor | ArrayLike | None = None, requires_grad: bool = True) -> None:
        if data is None:
            array = np.empty((0,), dtype=np.float32)
        elif isinstance(data, Tensor):
            array = data._data
        elif isinstance(data, np.ndarray):
            array = data
        else:
            array = _as_array(data)
        _init(self, array, None)
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        return (_rebuild_parameter, (self._data, self._requires_grad))

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            copied: Parameter = memo[id(self)]
            return copied
        p = Parameter(self._data.copy(), self._requires_grad)
        if self._grad is not None:
            p._grad = Tensor(self._grad._data.copy())
        memo[id(self)] = p
        return p


def _rebuild_parameter(data: np.ndarray[Any, Any], requires_grad: bool) -> Parameter:
    return Parameter(data, requires_grad)


class Buffer(Tensor):
    """A Tensor that a ``Module`` registers as a buffer (state, not a parameter) when assigned.

    ``persistent=False`` keeps it out of ``state_dict()``.

    Args:
        data (Tensor, optional): the values. Default: an empty tensor.
        persistent (bool): include it in ``state_dict()``. Default: True.

    Examples:
        >>> module = nl.nn.Module()
        >>> module.running_total = nl.nn.Buffer(nl.zeros(3))
        >>> list(module.state_dict())
        ['running_total']
    """

    def __init__(self, data: Tensor | ArrayLike | None = None, *, persistent: bool = True) -> None:
        if data is None:
            array = np.empty((0,), dtype=np.float32)
        elif isinstance(data, Tensor):
            array = data._data
        else:
            array = _as_array(data) if not isinstance(data, np.ndarray) else data
        _init(self, array, None)
        if isinstance(data, Tensor) and data.requires_grad:
            self._requires_grad = True
        self.persistent = persistent
