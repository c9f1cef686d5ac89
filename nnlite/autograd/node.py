"""Nodes of the backward graph: what built-in ops (``Op``) and user ``Function`` nodes share.

A node keeps the edges to its inputs' nodes (``next_functions``), what was saved for backward,
and the hooks registered on it. ``AccumulateGrad`` is the node of a leaf that requires grad.
"""

from __future__ import annotations

import re
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

from . import grad_mode
from .dtypes import from_numpy_dtype

if TYPE_CHECKING:
    from .._typing import Array
    from .tensor import Tensor

#: where the gradient of one input goes: (the node, which of its outputs), or (None, 0)
Edge: TypeAlias = "tuple[Node | None, int]"

_grad_state = grad_mode._state
# stands in for saved values once the graph has been freed (typed Any: it takes the place of
# whatever was saved, and readers compare it by identity before use)
FREED: Any = object()
NO_EDGE: Edge = (None, 0)

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


class Node:
    """A node of the backward graph; also the ``ctx`` of the forward call that made it."""

    __slots__ = ("next_functions", "__dict__", "__weakref__")
    next_functions: tuple[Edge, ...]
    # Defaults live on the class so that creating a node (once per recorded op) sets nothing.
    _saved: tuple[Any, ...] = ()
    _saved_versions: tuple[int | None, ...]
    _output: Array | None = None
    _retained: dict[int, weakref.ref[Tensor]] | None = None
    _hooks: list[Callable[[Any, Any], Any]] | None = None
    _pre_hooks: list[tuple[int, Callable[[Tensor], Tensor | None]]] | None = None
    # (shape, numpy dtype) of each output: set on a Function's node (None: one output, as an Op has)
    _out_meta: list[tuple[Any, Any]] | None = None
    # True on nodes of built-in ops until a hook or retain_grad() is attached: the engine then
    # runs them inline
    _plain = False

    def name(self) -> str:
        """The node's name as PyTorch prints it, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    # ------------------------------------------------------------------ saving
    def save_for_backward(self, *tensors: Any) -> None:
        """Keep tensors for backward; modifying them in place afterwards makes backward raise."""
        self._saved = tensors
        self._saved_versions = tuple(t._vc[0] if hasattr(t, "_vc") else None for t in tensors)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        saved = self._saved
        if saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        for t, version in zip(saved, self._saved_versions):
            if version is not None and t._vc[0] != version:
                raise RuntimeError(modified_message(t, version))
        return saved

    @property
    def needs_input_grad(self) -> tuple[bool, ...]:
        return tuple(edge[0] is not None for edge in self.next_functions)

    def register_hook(self, fn: Callable[[Any, Any], Any]) -> None:
        """Call ``fn(grad_inputs, grad_outputs)`` after this node's backward has run."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        self._plain = False

    def register_prehook(
        self, index: int, fn: Callable[[Tensor], Tensor | None]
    ) -> tuple[int, Callable[[Tensor], Tensor | None]]:
        """Call ``fn(grad)`` on the gradient arriving at output ``index``; may return a replacement."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        entry = (index, fn)
        self._pre_hooks.append(entry)
        self._plain = False
        return entry

    def retain_output_grad(self, tensor: Tensor) -> None:
        """Store the gradient arriving for ``tensor`` (one of this node's outputs) in its ``.grad``."""
        self._plain = False
        if self._retained is None:
            self._retained = {}
        self._retained[tensor._output_nr] = weakref.ref(tensor)

    # ------------------------------------------------------------------ engine side
    def _free(self) -> None:
        """Release what was saved for backward; a later backward that needs it raises."""
        if self._saved:
            self._saved = FREED
        if self._output is not None:
            self._output = FREED


class AccumulateGrad(Node):
    """The node of a leaf tensor that requires grad: backward adds into ``variable.grad``."""

    __slots__ = ("variable",)
    variable: Tensor
    #: hooks called with the tensor after its ``.grad`` is accumulated (``register_post_accumulate_grad_hook``)
    _post_accumulate_hooks: list[Callable[[Tensor], None]] | None = None

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self.next_functions = ()


class OutputInfo:
    """What the in-place error message needs to know of a saved output that is only an array."""

    def __init__(self, array: Array, counter: list[int], node: Node) -> None:
        self.dtype, self.shape = from_numpy_dtype(array.dtype), array.shape
        self._vc, self._grad_fn, self._output_nr = counter, node, 0


def modified_message(t: Tensor | OutputInfo, expected: int) -> str:
    """PyTorch's message for a saved tensor changed in place after it was saved."""
    kind = f"nnlite.{t.dtype._tensor_type} [{', '.join(str(s) for s in t.shape)}]"
    op = re.sub(r"Backward\d*$", "", t._grad_fn.name()) if t._grad_fn is not None else ""
    where = f", which is output {t._output_nr} of {op}," if op else ""
    return (
        "one of the variables needed for gradient computation has been modified by an inplace "
        f"operation: [{kind}]{where} is at version {t._vc[0]}; expected version {expected} instead."
    )


def gradient_edge(t: Tensor) -> Edge:
    """The (node, output index) that gradients for tensor ``t`` flow into."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return NO_EDGE  # the same object for every input without a gradient (Op.apply relies on it)
    ref = t._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc = weakref.ref(acc)
    return (acc, 0)
