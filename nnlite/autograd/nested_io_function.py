"""``NestedIOFunction``: the legacy custom function whose inputs and outputs may be nested lists
and tuples of tensors, kept by PyTorch for old code.

A subclass defines ``forward_extended(self, *inputs)`` and ``backward_extended(self,
*grad_outputs)`` as instance methods and is called on an instance (``f(x, [y, z])``); inside, the
instance is the context (``self.save_for_backward``, ``self.saved_tensors``,
``self.mark_non_differentiable``). nnlite runs it as one node of the graph; PyTorch 2.13 keeps the
class but its call fails with an ``AttributeError`` (the legacy machinery it needs is gone).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .function import Function
from .tensor import Tensor

__all__ = ["NestedIOFunction"]


def _iter_tensors(obj: Any) -> Iterator[Tensor]:
    """The tensors of a nested structure of lists and tuples, depth first."""
    if isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_tensors(item)


def _iter_none_tensors(obj: Any) -> Iterator[Tensor | None]:
    """As ``_iter_tensors``, keeping the ``None`` entries (gradients that are absent)."""
    if obj is None or isinstance(obj, Tensor):
        yield obj
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            yield from _iter_none_tensors(item)


def _unflatten(flat: Any, like: Any) -> Any:
    """``flat`` (a sequence of tensors) put back in the nesting of ``like``."""
    items = iter(flat)

    def rebuild(template: Any) -> Any:
        if isinstance(template, Tensor):
            return next(items)
        if isinstance(template, (list, tuple)):
            return type(template)(rebuild(t) for t in template)
        return template

    return rebuild(like)


class _NestedCall(Function):
    """One call of a ``NestedIOFunction`` instance, as a graph node over its flat tensors."""

    @staticmethod
    def forward(ctx: Any, fn: NestedIOFunction, *flat: Tensor) -> Any:
        fn._ctx = ctx
        result = fn.forward_extended(*_unflatten(flat, fn._nested_input))
        fn._nested_output = result
        if fn.to_save is not None:
            ctx.save_for_backward(*fn.to_save)
        if fn.non_differentiable:
            ctx.mark_non_differentiable(*fn.non_differentiable)
        return tuple(_iter_tensors(result))

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        fn = ctx._nested_fn
        outputs = fn._nested_output
        nested = _unflatten(grads, outputs if isinstance(outputs, tuple) else (outputs,))
        result = fn.backward_extended(*nested)
        return (None, *_iter_none_tensors(result))


class NestedIOFunction(Function):
    """Base of legacy custom functions with nested inputs and outputs; kept for old code (write
    a ``Function`` with static methods in new code).

    Examples:
        >>> class MulAdd(nl.autograd.NestedIOFunction):
        ...     def forward_extended(self, x, pair):
        ...         self.save_for_backward(x, pair)
        ...         return x * pair[0] + pair[1]
        ...     def backward_extended(self, grad):
        ...         x, (a, b) = self.saved_tensors
        ...         return grad * a, (grad * x, grad)
        >>> x, a, b = (nl.tensor([2.0], requires_grad=True) for _ in range(3))
        >>> MulAdd()(x, (a, b)).sum().backward()
        >>> x.grad, a.grad, b.grad
        (tensor([2.]), tensor([2.]), tensor([1.]))
    """

    _call: type[_NestedCall] = _NestedCall
    _ctx: Any  # the graph node of the current call
    _nested_input: Any
    _nested_output: Any
    _to_save_nested: Any
    to_save: tuple[Tensor, ...] | None = None
    non_differentiable: tuple[Tensor, ...] = ()
    dirty_tensors: tuple[Tensor, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # the graph node of a call is named for the subclass (``MulAddBackward``)
        cls._call = type(cls.__name__, (_NestedCall,), {})

    def __call__(self, *inputs: Any) -> Any:
        """Run the function on (nested) inputs; returns the outputs in their nesting."""
        self._nested_input = inputs
        flat_out = self._call.apply(self, *_iter_tensors(inputs))
        ctx = self._ctx
        ctx._nested_fn = self
        del self._nested_input
        flat = flat_out if isinstance(flat_out, tuple) else (flat_out,)
        return _unflatten(flat, self._nested_output)

    def forward_extended(self, *inputs: Any) -> Any:
        """The forward computation on the (nested) inputs; a subclass defines it.

        Args:
            *inputs: the call's arguments, tensors nested in lists and tuples.

        Returns:
            the outputs: a tensor, or tensors nested in lists and tuples.

        Examples:
            >>> class Scale(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         self.save_for_backward([x])
            ...         return x * 3
            ...     def backward_extended(self, grad):
            ...         ((x,),) = self.saved_tensors
            ...         return grad * 3
            >>> x = nl.ones(2, requires_grad=True)
            >>> Scale()(x).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
        raise NotImplementedError

    def backward_extended(self, *grad_outputs: Any) -> Any:
        """The (nested) gradients of the inputs from those of the outputs; a subclass defines it.

        Args:
            *grad_outputs: one gradient per output, nested as the outputs are.

        Returns:
            the gradients of the inputs, nested as the inputs are (None for no gradient).

        Examples:
            >>> class Scale(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         self.save_for_backward([x])
            ...         return x * 3
            ...     def backward_extended(self, grad):
            ...         ((x,),) = self.saved_tensors
            ...         return grad * 3
            >>> x = nl.ones(2, requires_grad=True)
            >>> Scale()(x).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
        raise NotImplementedError

    def save_for_backward(self, *tensors: Any) -> None:
        """Keep (nested) tensors for ``backward_extended``.

        Args:
            *tensors: tensors, nested in lists and tuples.

        Examples:
            >>> class Scale(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         self.save_for_backward([x])
            ...         return x * 3
            ...     def backward_extended(self, grad):
            ...         ((x,),) = self.saved_tensors
            ...         return grad * 3
            >>> x = nl.ones(2, requires_grad=True)
            >>> Scale()(x).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
        self.to_save = tuple(_iter_tensors(tensors))
        self._to_save_nested = tensors

    @property
    def saved_tensors(self) -> Any:
        """What ``save_for_backward`` kept, in its nesting.

        Examples:
            >>> class Scale(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         self.save_for_backward([x])
            ...         return x * 3
            ...     def backward_extended(self, grad):
            ...         ((x,),) = self.saved_tensors
            ...         return grad * 3
            >>> x = nl.ones(2, requires_grad=True)
            >>> Scale()(x).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
        return _unflatten(self._ctx.saved_tensors, self._to_save_nested)

    def mark_dirty(self, *tensors: Any, **kwargs: Any) -> None:
        """Record the (nested) inputs changed in place.

        Args:
            *tensors: tensors, nested in lists and tuples.
            **kwargs: more tensors.

        Examples:
            >>> class AddOne(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         self.mark_dirty(x)
            ...         return x + 1
            >>> AddOne().dirty_tensors
            ()
        """
        self.dirty_tensors = tuple(_iter_tensors((tensors, tuple(kwargs.values()))))

    def mark_non_differentiable(self, *tensors: Any, **kwargs: Any) -> None:
        """(Nested) outputs that get no gradient.

        Args:
            *tensors: tensors, nested in lists and tuples.
            **kwargs: more tensors.

        Examples:
            >>> class Positive(nl.autograd.NestedIOFunction):
            ...     def forward_extended(self, x):
            ...         mask = x > 0
            ...         self.mark_non_differentiable(mask)
            ...         return mask
            >>> Positive()(nl.tensor([1.0, -1.0], requires_grad=True)).requires_grad
            False
        """
        self.non_differentiable = tuple(_iter_tensors((tensors, tuple(kwargs.values()))))
