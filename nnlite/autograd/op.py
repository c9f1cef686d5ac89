"""``Op``: the base of nnlite's built-in differentiable operations.

A built-in op is one class holding its forward (on numpy arrays) and its backward formula,
written once. Calling ``MyOp.apply(*inputs, **params)`` creates the op, whose parameters become
plain attributes (``self.dim``; defaults are class attributes), runs ``forward`` on the inputs'
arrays and, when an input requires grad and recording is on, makes the op the output's
``grad_fn``. Example::

    class Sigmoid(Op):
        saves_output = True
        saved_inputs = (0,)  # under create_graph the output is recomputed from the input

        def forward(self, x):
            return 1 / (1 + np.exp(-x))

        def backward(self, grad, needs):
            y = self.output()
            return grad * y * (1 - y)

The engine calls ``backward(grad, needs)``: ``needs[k]`` says whether input ``k`` needs a
gradient (return ``None`` for the others). For a first-order backward the engine passes numpy
arrays, and ``self.inputs()`` / ``self.output()`` give arrays: nothing is recorded. Under
``create_graph=True`` it passes Tensors and the same accessors give Tensors (the output recomputed
from the inputs), so the very same formula records a graph and gradients of gradients exist.
Formulas therefore use operators that arrays and Tensors share, the helpers of
``autograd/ops/vjp.py`` for the rest, and ``vjp.call(OtherOp, ...)`` to run another op.

Where speed needs it, an op may add ``backward_arrays(grad, needs)``: a first-order fast path on
arrays only (a fused numba kernel, a hand-derived loop) that the engine calls instead of
``backward`` when nothing is recorded. ``backward`` stays the reference formula, run under
``create_graph``, and ``tests/autograd/test_op_contract.py`` checks that the two agree on arrays.

An op that is a composition of existing ops (``leaky_relu``) is a plain function, not an Op.
This base is for nnlite's own ops; user-defined operations subclass ``nl.autograd.Function``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import grad_mode
from .fp_errors import silenced
from .node import FREED, NO_EDGE, SECOND_BACKWARD, Node, OutputInfo, gradient_edge, modified_message

# Tensor and make_tensor are re-exported: modules below tensor.py use them through this module
__all__ = ["Op", "Tensor", "make_tensor", "register_tensor_type", "run_forward"]

_grad_state = grad_mode._state
_new = object.__new__

# The Tensor class sits above the ops (its methods call them), so it introduces itself here once
# it is defined (``register_tensor_type``) instead of being imported.
if TYPE_CHECKING:
    from .._typing import Array, Gradient
    from .tensor import Tensor
    from .tensor import _make as make_tensor
else:
    Tensor = None
    make_tensor = None


def register_tensor_type(tensor_class: type[Tensor], make: Callable[..., Tensor]) -> None:
    """Called once by ``tensor.py``: the class ops return and its fast array-wrapping constructor."""
    global Tensor, make_tensor
    Tensor, make_tensor = tensor_class, make  # type: ignore[misc]  # bound once, see above


class Op(Node):
    """Base class of built-in ops; see the module docstring for the contract."""

    __slots__ = ()
    _plain = True
    #: graph node name, as PyTorch's (default: class name + "Backward0")
    node_name: str | None = None
    #: positions of the inputs that backward reads through ``self.inputs()``
    saved_inputs: tuple[int, ...] = ()
    #: whether backward reads the op's result through ``self.output()``
    saves_output = False
    # which inputs need a gradient, set by ``apply`` for ops of several inputs
    _needs: tuple[bool, ...] = (True,)
    #: optional first-order fast path on arrays, ``backward_arrays(self, grad, needs)``; when a
    #: class defines it, the engine calls it instead of ``backward`` in a first-order backward
    backward_arrays: Callable[..., Any] | None = None
    # what a first-order backward calls: ``backward_arrays`` where defined, else ``backward``
    _first_order: Callable[..., Any]
    # the result, kept by ``apply`` when ``saves_output`` (and only read then), with its version
    # counter and the version it had when kept
    _output: Array
    _output_version: tuple[list[int], int]

    if TYPE_CHECKING:
        # ``apply`` makes an op's keyword parameters its attributes (``self.dim``), per class
        def __getattr__(self, name: str) -> Any: ...

    #: whether forward may meet log(0), x/0, sqrt(-1), overflow: its results (inf, nan) come
    #: back without numpy's RuntimeWarning, as in PyTorch (the engine runs every backward so)
    silence_fp_errors = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "node_name" not in cls.__dict__:
            cls.node_name = cls.__name__ + "Backward0"
        if cls.silence_fp_errors and "forward" in cls.__dict__:
            # the class's own forward, replaced by its silenced self
            cls.forward = silenced(cls.__dict__["forward"])  # type: ignore[method-assign]
        fast = cls.backward_arrays
        cls._first_order = fast if fast is not None else cls.backward

    def name(self) -> str:
        return self.node_name  # type: ignore[return-value]  # set on every class

    def forward(self, *arrays: Any) -> Any:
        """Compute the result array from the input arrays (parameters are attributes)."""
        raise NotImplementedError(f"{type(self).__name__} must implement forward")

    def backward(
        self, grad: Gradient, needs: Sequence[bool]
    ) -> Gradient | None | tuple[Gradient | None, ...]:
        """Gradients of the inputs given the output's gradient: one per input, or a single one."""
        raise NotImplementedError(f"{type(self).__name__} must implement backward")

    def save(self, inputs: Sequence[Any]) -> Sequence[Any]:
        """The inputs to keep for backward (``saved_inputs`` by default; ops may save fewer)."""
        return [inputs[i] for i in self.saved_inputs]

    # ------------------------------------------------------------------ backward-side accessors
    def inputs(self) -> Sequence[Any]:
        """The saved inputs: arrays in a first-order backward, Tensors under ``create_graph``.

        Non-tensor inputs (Python numbers, None) come back as they were given.
        """
        if _grad_state[0]:
            return self.saved_tensors
        saved = self._saved
        if saved is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        arrays: list[Any] = []
        for t, version in zip(saved, self._saved_versions):
            if version is None:  # a number or None
                arrays.append(t)
            elif t._vc[0] != version:
                raise RuntimeError(modified_message(t, version))
            else:
                arrays.append(t._data)
        return arrays

    def output(self) -> Array | Tensor:
        """The op's result: an array, or under ``create_graph`` a Tensor recomputed from the
        saved inputs so that higher-order gradients flow through it."""
        out = self.output_array()
        if _grad_state[0]:
            params = {k: v for k, v in self.__dict__.items() if k[0] != "_"}
            return type(self).apply(*self.inputs(), **params)
        return out

    def output_array(self) -> Array:
        """The saved result's array (a constant, checked for in-place changes)."""
        out = self._output
        if out is FREED:
            raise RuntimeError(SECOND_BACKWARD)
        counter, version = self._output_version
        if counter[0] != version:
            raise RuntimeError(modified_message(OutputInfo(out, counter, self), version))
        return out

    # ------------------------------------------------------------------ the hot path
    @classmethod
    def apply(cls, *args: Any, **params: Any) -> Tensor:
        """Run the op on ``args`` (Tensors and constants); record it when an input requires grad."""
        op = _new(cls)
        if params:
            op.__dict__ = params  # a fresh dict per call: the parameters become attributes
        record = False
        arrays: list[Any] = []
        for a in args:
            if isinstance(a, Tensor):
                arrays.append(a._data)
                if a._requires_grad:
                    record = True
            else:
                arrays.append(a)
        out = op.forward(*arrays)
        if type(out) is not np.ndarray:
            out = np.asarray(out)
        t = _new(Tensor)
        t._data = out
        t._grad = None
        t._output_nr = 0
        t._vc = [0]
        t._grad_acc = None
        t._retains_grad = False
        t._hooks = None
        t._view = None
        if not (record and _grad_state[0]):
            t._grad_fn = None
            t._requires_grad = False
            return t
        edges = tuple(
            [
                ((a._grad_fn, a._output_nr) if a._grad_fn is not None else gradient_edge(a))
                if isinstance(a, Tensor)
                else NO_EDGE
                for a in args
            ]
        )
        op.next_functions = edges
        n = len(edges)
        if n == 2:  # (with one input, that input requires grad: the class default)
            op._needs = (edges[0] is not NO_EDGE, edges[1] is not NO_EDGE)
        elif n > 2:
            op._needs = tuple([e is not NO_EDGE for e in edges])
        if cls.saved_inputs:
            op.save_for_backward(*op.save(args))
        if cls.saves_output:
            op._output = out
            op._output_version = (t._vc, 0)
        t._grad_fn = op
        t._requires_grad = True
        return t


def run_forward(cls: type[Op], arrays: Sequence[Any], params: dict[str, Any]) -> Any:
    """``cls``'s forward on arrays, nothing recorded: how a backward formula runs another op."""
    op = _new(cls)
    if params:
        op.__dict__ = params
    return op.forward(*arrays)
