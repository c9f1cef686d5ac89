"""``SavedTensor``: one tensor a custom ``Function`` saved for backward, as PyTorch exposes it
(``ctx._raw_saved_tensors``), with the pack and unpack hooks that may be registered on it.

``register_hooks(pack_hook, unpack_hook)`` calls ``pack_hook`` on the tensor at once and keeps what
it returns; every later read of the saved tensor (``ctx.saved_tensors`` in backward,
``unpack()``) gives ``unpack_hook`` of that value instead. The pack hook sees the tensor's data
(detached) with gradient recording off; the unpacked tensor takes the original's place in the graph (its gradient function, or its
leaf's gradient accumulator), so double backward still reaches it. nnlite keeps its reference to the
original tensor to check it for in-place changes, so a hook that moves the tensor elsewhere
(to disk) does not free its memory.
"""

from __future__ import annotations

from typing import Any

from .grad_mode import no_grad
from .node import FREED, SECOND_BACKWARD, gradient_edge
from .tensor import Tensor, _make

__all__ = ["SavedTensor"]


class SavedTensor:
    """One tensor saved for backward by a custom ``Function``: an item of the node's
    ``_raw_saved_tensors``. Made by autograd only; constructing one raises.

    Examples:
        >>> class Square(nl.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> x = nl.tensor([1.0, 2.0], requires_grad=True)
        >>> y = Square.apply(x)
        >>> saved = y.grad_fn._raw_saved_tensors[0]
        >>> saved.register_hooks(lambda t: t * 10, lambda t: t / 10)
        >>> saved.data
        tensor([10., 20.])
        >>> y.sum().backward()
        >>> x.grad
        tensor([2., 4.])
    """

    __slots__ = ("_node", "_index")
    _node: Any
    _index: int

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("Trying to create a SavedTensor object from Python is forbidden.")

    @classmethod
    def _of(cls, node: Any, index: int) -> SavedTensor:
        saved = object.__new__(cls)
        saved._node, saved._index = node, index
        return saved

    def _hooks(self) -> dict[int, tuple[Any, Any]]:
        hooks: dict[int, tuple[Any, Any]] = self._node.__dict__.setdefault("_saved_hooks", {})
        return hooks

    def register_hooks(self, pack_hook: Any, unpack_hook: Any) -> None:
        """Pack the saved tensor now with ``pack_hook(tensor)``; read it back later with
        ``unpack_hook(packed)``, which must return a Tensor. One pair of hooks per saved tensor.

        Args:
            pack_hook (callable): tensor -> any object.
            unpack_hook (callable): that object -> Tensor.

        Raises:
            TypeError: when a hook is not callable.
            RuntimeError: when hooks are already set on this saved tensor.

        Examples:
            >>> class Double(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad * 2
            >>> saved = Double.apply(nl.ones(2, requires_grad=True)).grad_fn._raw_saved_tensors[0]
            >>> saved.register_hooks(lambda t: t.numpy(), nl.from_numpy)
            >>> saved.unpack()  # from the numpy array, in the original's place in the graph
            tensor([1., 1.], requires_grad=True)
        """
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError(
                "register_hooks(): incompatible function arguments: pack_hook and unpack_hook "
                f"must be callables, got {type(pack_hook).__name__} and "
                f"{type(unpack_hook).__name__}"
            )
        hooks = self._hooks()
        if self._index in hooks:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor whose hooks have already been set. "
                "Hint: only one pair of hooks is allowed at a time."
            )
        saved = self._node._saved
        if saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        tensor = saved[self._index]
        with no_grad():  # as PyTorch: the hook sees the data, outside the graph
            packed = pack_hook(tensor.detach() if isinstance(tensor, Tensor) else tensor)
        hooks[self._index] = (packed, unpack_hook)

    @property
    def data(self) -> Any:
        """What is stored: the packed value when hooks are set, else the tensor.

        Examples:
            >>> class Double(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad * 2
            >>> saved = Double.apply(nl.ones(2, requires_grad=True)).grad_fn._raw_saved_tensors[0]
            >>> saved.data
            tensor([1., 1.], requires_grad=True)
        """
        hooked = self._hooks().get(self._index)
        if hooked is not None:
            return hooked[0]
        saved = self._node._saved
        if saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        return saved[self._index]

    @property
    def unpack_hook(self) -> Any:
        """The unpack hook, or None.

        Examples:
            >>> class Double(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad * 2
            >>> saved = Double.apply(nl.ones(2, requires_grad=True)).grad_fn._raw_saved_tensors[0]
            >>> saved.unpack_hook is None
            True
        """
        hooked = self._hooks().get(self._index)
        return None if hooked is None else hooked[1]

    def unpack(self) -> Any:
        """The saved tensor as backward sees it (through ``unpack_hook`` when set).

        Returns:
            Tensor: the saved tensor.

        Examples:
            >>> class Double(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x * 2
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         return grad * 2
            >>> saved = Double.apply(nl.ones(2, requires_grad=True)).grad_fn._raw_saved_tensors[0]
            >>> saved.unpack()
            tensor([1., 1.], requires_grad=True)
        """
        return self._node.saved_tensors[self._index]


def unpacked(saved: tuple[Any, ...], hooks: dict[int, tuple[Any, Any]]) -> tuple[Any, ...]:
    """``saved`` with each hooked entry replaced by its ``unpack_hook(packed)``, standing in the
    graph where the original stood."""
    values = list(saved)
    for index, (packed, unpack_hook) in hooks.items():
        value = unpack_hook(packed)
        if not isinstance(value, Tensor):
            raise TypeError(
                "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                f"type {type(value).__name__}"
            )
        values[index] = _in_place_of(saved[index], value)
    return tuple(values)


def _in_place_of(original: Any, value: Tensor) -> Tensor:
    """A tensor with ``value``'s data and ``original``'s place in the graph."""
    if not isinstance(original, Tensor) or not original._requires_grad:
        return value
    standin = _make(value._data)
    standin._requires_grad = True
    if original._grad_fn is not None:
        standin._grad_fn, standin._output_nr = original._grad_fn, original._output_nr
    else:
        gradient_edge(original)  # make sure the leaf's accumulator exists, then share it
        standin._grad_acc = original._grad_acc
    return standin
