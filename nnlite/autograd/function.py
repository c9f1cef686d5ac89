"""``nl.autograd.Function``: user-defined differentiable operations, as ``torch.autograd.Function``.

A subclass defines static ``forward(ctx, *args)`` (receives Tensors, runs with recording off,
returns Tensor(s) and calls ``ctx.save_for_backward``) and ``backward(ctx, *grad_outputs)``
(receives and returns Tensors, one gradient or ``None`` per input). ``apply`` runs it; the
``ctx`` is the graph node of the call, an instance of the subclass's node class
(``SquareBackward`` for ``Square``). nnlite's own ops use the ``Op`` base of ``autograd/op.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import numpy as np

from . import grad_mode
from .node import FREED, SECOND_BACKWARD, Node, gradient_edge, modified_message
from .op import Op
from .saved_tensor import SavedTensor, unpacked
from .tensor import Tensor, _make

if TYPE_CHECKING:
    from .._typing import Array, Gradient

F = TypeVar("F", bound=Callable[..., Any])

_grad_state = grad_mode._state

# names other layers import (DataParallel's Gather is a Function)
_SECOND_BACKWARD = SECOND_BACKWARD
_modified_message = modified_message


class FunctionNode(Node):
    """The graph node (and ``ctx``) of one call of a user ``Function``."""

    __slots__ = ()
    # the Function whose node class this is: None on this base only, set on each node class
    _fn: type[Function] = None  # type: ignore[assignment]
    # set on recorded nodes: (shape, numpy dtype) of each output, and each input's shape (None
    # for inputs that are not Tensors)
    _out_meta: list[tuple[Any, Any]]
    _in_shapes: list[tuple[int, ...] | None]
    # set by the forward's ctx calls below (ids of the outputs without gradient)
    _non_differentiable: set[int]
    _materialize: bool

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs given here get no gradient (e.g. indices returned beside values)."""
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value: bool) -> None:
        self._materialize = bool(value)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        # (mypy reads a property on the class as its getter function)
        saved = Node.saved_tensors.fget(self)  # type: ignore[attr-defined]
        hooks = self.__dict__.get("_saved_hooks")
        return unpacked(saved, hooks) if hooks else saved

    @property
    def _raw_saved_tensors(self) -> tuple[SavedTensor, ...]:
        """The saved tensors as ``SavedTensor`` objects (to register pack/unpack hooks on)."""
        if self._saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        return tuple(SavedTensor._of(self, i) for i in range(len(self._saved)))

    def _run(self, grads: Sequence[Tensor | None]) -> tuple[Tensor | None, ...]:
        """Compute input gradients from output gradients (Tensors, one entry per output)."""
        if getattr(self, "_materialize", True) and any(g is None for g in grads):
            grads = [
                _make(np.zeros(shape, dtype)) if g is None else g
                for g, (shape, dtype) in zip(grads, self._out_meta)
            ]
        result = self._fn.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_functions)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(
                    f"function {self.name()} returned an incorrect number of gradients "
                    f"(expected {n}, got {len(result)})"
                )
        return tuple(_check_gradient(self, i, g) for i, g in enumerate(result))


def _check_gradient(node: FunctionNode, i: int, g: Any) -> Tensor | None:
    """A user Function's gradient must be a Tensor matching its input's shape (or broadcast to it)."""
    if g is None:
        return None
    if not isinstance(g, Tensor):
        raise TypeError(
            f"function {node.name()} returned a gradient of type {type(g).__name__} at index {i}; "
            "expected a Tensor or None"
        )
    shape = node._in_shapes[i]
    if shape is not None and g._data.shape != shape:
        try:
            np.broadcast_shapes(g._data.shape, shape)
            g = g.sum_to_size(shape)
            if g._data.shape != shape:
                raise ValueError(shape)
        except ValueError:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, g.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]"
            ) from None
    return g


class Function:
    """Base class of user-defined differentiable operations, as ``torch.autograd.Function``.

    Subclasses define static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` and are
    called through ``apply``.

    Examples:
        >>> class Square(nl.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x * x
        ...     @staticmethod
        ...     def backward(ctx, grad):
        ...         x, = ctx.saved_tensors
        ...         return 2 * x * grad
        >>> Square.apply(nl.tensor([3.], requires_grad=True))
        tensor([9.], grad_fn=<SquareBackward>)
    """

    _node_cls: type[FunctionNode]  # each subclass's own, made by __init_subclass__

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # each Function gets a node class of its own, named as PyTorch names it
        cls._node_cls = type(
            cls.__name__ + "Backward", (FunctionNode,), {"_fn": cls, "__slots__": ()}
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        """The computation; a subclass defines it as a ``@staticmethod``.

        It runs with graph recording off. Save what backward needs with ``ctx.save_for_backward``
        (tensors) or as attributes of ``ctx``.

        Args:
            ctx: the context object shared with ``backward``.
            *args, **kwargs: the arguments given to ``apply``.

        Returns:
            Tensor or tuple of Tensors: the outputs.

        Examples:
            >>> class Cube(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x ** 3
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         x, = ctx.saved_tensors
            ...         return 3 * x ** 2 * grad
            >>> x = nl.tensor([2.], requires_grad=True)
            >>> Cube.apply(x).backward()
            >>> x.grad
            tensor([12.])
        """
        raise NotImplementedError("Function subclasses must implement forward")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """The gradients of the inputs from those of the outputs; a subclass defines it as a
        ``@staticmethod``.

        Args:
            ctx: the context object ``forward`` filled.
            *grad_outputs (Tensor): one gradient per output of ``forward``.

        Returns:
            Tensor or tuple: one gradient per input of ``forward`` (``None`` for an input without one).

        Examples:
            >>> class Cube(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x ** 3
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         x, = ctx.saved_tensors
            ...         return 3 * x ** 2 * grad
            >>> x = nl.tensor([2.], requires_grad=True)
            >>> Cube.apply(x).backward()
            >>> x.grad
            tensor([12.])
        """
        raise NotImplementedError("Function subclasses must implement backward")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` with recording off; record the call when an input requires grad.

        Args:
            *args, **kwargs: passed to ``forward`` after ``ctx``.

        Returns:
            Tensor or tuple of Tensors: what ``forward`` returned, attached to the graph.

        Examples:
            >>> class Cube(nl.autograd.Function):
            ...     @staticmethod
            ...     def forward(ctx, x):
            ...         ctx.save_for_backward(x)
            ...         return x ** 3
            ...     @staticmethod
            ...     def backward(ctx, grad):
            ...         x, = ctx.saved_tensors
            ...         return 3 * x ** 2 * grad
            >>> x = nl.tensor([2.], requires_grad=True)
            >>> Cube.apply(x).backward()
            >>> x.grad
            tensor([12.])
        """
        return _apply_user_function(cls, args, kwargs)


def _apply_user_function(cls: type[Function], args: tuple[Any, ...], params: dict[str, Any]) -> Any:
    """Run a user-defined Function: forward on Tensors with recording off."""
    ctx = cls._node_cls()
    prev = _grad_state[0]
    _grad_state[0] = False
    try:
        outputs = cls.forward(ctx, *args, **params)
    finally:
        _grad_state[0] = prev
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    record = prev and any(isinstance(a, Tensor) and a._requires_grad for a in args)
    inputs = {id(a) for a in args if isinstance(a, Tensor)}
    non_differentiable = ctx.__dict__.get("_non_differentiable", ())
    results: list[Any] = []
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            results.append(o)
            continue
        differentiable = id(o) not in non_differentiable
        if id(o) in inputs or o._grad_fn is not None or o._requires_grad:
            o = o.detach()  # an input returned as is: give the node an output of its own
        if record and differentiable and o.dtype.is_floating_point:
            o._grad_fn = ctx
            o._requires_grad = True
            o._output_nr = i
        results.append(o)
    if record:
        ctx.next_functions = tuple(
            gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args
        )
        ctx._out_meta = [
            (o.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32) for o in outs
        ]
        ctx._in_shapes = [a._data.shape if isinstance(a, Tensor) else None for a in args]
    return results[0] if single else tuple(results)


class _DifferentiatedTwice(Op):
    """Identity whose backward refuses: marks the gradients of a ``once_differentiable``
    backward, so that differentiating them raises instead of giving silent zeros."""

    node_name = "DelayedError"

    def forward(self, x: Array) -> Array:
        return x

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> NoReturn:
        raise RuntimeError(
            "trying to differentiate twice a function that was marked with @once_differentiable"
        )


def once_differentiable(fn: F) -> F:
    """Decorator of a ``Function.backward`` that is not itself differentiable (written with
    numpy, say): it runs without recording, and a second-order gradient through it raises.

    Args:
        fn: the ``backward(ctx, *grad_outputs)`` static method.

    Returns:
        The wrapped backward.

    Examples:
        >>> class Cube(nl.autograd.Function):
        ...     @staticmethod
        ...     def forward(ctx, x):
        ...         ctx.save_for_backward(x)
        ...         return x**3
        ...
        ...     @staticmethod
        ...     @nl.autograd.function.once_differentiable
        ...     def backward(ctx, grad):
        ...         (x,) = ctx.saved_tensors
        ...         return grad * 3 * x**2
        >>> x = nl.tensor([2.0], requires_grad=True)
        >>> Cube.apply(x).sum().backward()
        >>> x.grad
        tensor([12.])
    """

    @functools.wraps(fn)
    def wrapper(ctx: Any, *grad_outputs: Any) -> Any:
        with grad_mode.no_grad():
            outputs = fn(ctx, *grad_outputs)
        recording = _grad_state[0] and any(
            isinstance(g, Tensor) and g.requires_grad for g in grad_outputs
        )
        if not recording:
            return outputs
        if isinstance(outputs, tuple):
            return tuple(_mark(o) for o in outputs)
        return _mark(outputs)

    return wrapper  # type: ignore[return-value]  # wraps() keeps fn's signature


def _mark(output: Any) -> Any:
    if not isinstance(output, Tensor):
        return output
    return _DifferentiatedTwice.apply(output.detach().requires_grad_(output.is_floating_point()))
