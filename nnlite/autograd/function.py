"""Graph nodes and ``Function``: one class per differentiable op, forward and backward side by side.

A ``Function`` subclass describes an op. Calling ``Op.apply(*args)`` runs ``forward`` and, when
recording, returns outputs whose ``grad_fn`` is a node: an instance of the op's backward class
(``MulBackward0``), which doubles as the ``ctx`` that ``forward`` filled in. The node keeps the
edges to its inputs' nodes (``next_functions``) and whatever was saved for backward.

Two kinds of ops share this machinery:

* built-in ops (``_array_forward = True``): ``forward(ctx, *arrays, **params)`` computes on numpy
  arrays and returns an array; inputs needed by backward are declared with the class attributes
  ``saved_inputs`` (positions) and ``saves_output``, so nothing is saved when nothing is recorded;
* user ops (PyTorch's ``torch.autograd.Function``): ``forward(ctx, *args)`` receives Tensors, runs
  with recording off, returns Tensor(s) and calls ``ctx.save_for_backward``.

In both, ``backward(ctx, *grads)`` is written with Tensor ops, so the same formula serves first-
and higher-order gradients. It returns one gradient (or ``None``) per positional input.
"""
import re
import weakref

import numpy as np

from . import grad_mode

_grad_state = grad_mode._state
_FREED = object()

_SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they "
    "have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")


class Node:
    """A node of the backward graph; also the ``ctx`` of the forward call that made it."""

    __slots__ = ("next_functions", "__dict__", "__weakref__")
    # Defaults live on the class so that creating a node (once per recorded op) sets nothing.
    _saved = ()
    _saved_arrays = ()
    _output = None
    _retained = None
    _hooks = None
    _pre_hooks = None
    _out_meta = None
    _params = {}
    # True on nodes of built-in ops until a hook or retain_grad() is attached: the engine then
    # runs them inline
    _plain = False

    def name(self):
        """The node's class name, e.g. ``'MulBackward0'``."""
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    # ------------------------------------------------------------------ saving
    def save_for_backward(self, *tensors):
        """Keep tensors for backward; modifying them in place afterwards makes backward raise."""
        self._saved = tensors
        self._saved_versions = tuple(t._vc[0] if hasattr(t, "_vc") else None for t in tensors)

    def save_arrays(self, *arrays):
        """Keep non-differentiable helper arrays (masks, indices) until the graph is freed."""
        self._saved_arrays = arrays

    @property
    def saved_tensors(self):
        saved = self._saved
        if saved is _FREED:
            raise RuntimeError(_SECOND_BACKWARD)
        for t, version in zip(saved, self._saved_versions):
            if version is not None and t._vc[0] != version:
                raise RuntimeError(_modified_message(t, version))
        return saved

    @property
    def saved_arrays(self):
        if self._saved_arrays is _FREED:
            raise RuntimeError(_SECOND_BACKWARD)
        return self._saved_arrays

    def saved_output(self):
        """The op's output as a Tensor, for backward formulas written in terms of the result.

        Only the output's array is kept (holding the output Tensor would make a reference cycle).
        When backward itself is recorded (``create_graph``) the output is recomputed from the
        saved inputs, so that higher-order gradients flow through it.
        """
        out = self._output_array()
        if _grad_state[0]:
            return type(self)._fn.apply(*self.saved_tensors, **self._params)
        return _make(out)

    def _output_array(self):
        """The saved output's array, checked for in-place changes (no recomputation)."""
        out = self._output
        if out is _FREED:
            raise RuntimeError(_SECOND_BACKWARD)
        counter, version = self._output_version
        if counter[0] != version:
            raise RuntimeError(_modified_message(_OutputInfo(out, counter, self), version))
        return out

    @property
    def needs_input_grad(self):
        return tuple(edge[0] is not None for edge in self.next_functions)

    def mark_non_differentiable(self, *tensors):
        """Outputs given here get no gradient (e.g. indices returned beside values)."""
        self._non_differentiable = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    def register_hook(self, fn):
        """Call ``fn(grad_inputs, grad_outputs)`` after this node's backward has run."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        self._plain = False

    # ------------------------------------------------------------------ engine side
    def _free(self):
        """Release what was saved for backward; a later backward that needs it raises."""
        if self._saved:
            self._saved = _FREED
        if self._saved_arrays:
            self._saved_arrays = _FREED
        if self._output is not None:
            self._output = _FREED

    def _run(self, grads):
        """Compute input gradients from output gradients (a list with one entry per output)."""
        fn = self._fn
        if fn._array_forward:  # built-in ops: trusted to return one gradient per input
            result = fn.backward(self, *grads)
            return result if type(result) is tuple else (result,)
        if getattr(self, "_materialize", True) and any(g is None for g in grads):
            grads = [_make(np.zeros(shape, dtype)) if g is None else g
                     for g, (shape, dtype) in zip(grads, self._out_meta)]
        result = fn.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_functions)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients "
                                   f"(expected {n}, got {len(result)})")
        return tuple(_check_gradient(self, i, g) for i, g in enumerate(result))


def _check_gradient(node, i, g):
    """A user Function's gradient must be a Tensor matching its input's shape (or broadcast to it)."""
    if g is None:
        return None
    if not isinstance(g, Tensor):
        raise TypeError(f"function {node.name()} returned a gradient of type {type(g).__name__} at index {i}; "
                        "expected a Tensor or None")
    shape = node._in_shapes[i]
    if shape is not None and g._data.shape != shape:
        try:
            np.broadcast_shapes(g._data.shape, shape)
            g = g.sum_to_size(shape)
        except ValueError:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"[{', '.join(map(str, g.shape))}] but expected shape compatible with "
                               f"[{', '.join(map(str, shape))}]") from None
        if g._data.shape != shape:
            raise RuntimeError(f"Function {node.name()} returned an invalid gradient at index {i} - got "
                               f"[{', '.join(map(str, g.shape))}] but expected shape compatible with "
                               f"[{', '.join(map(str, shape))}]")
    return g


class AccumulateGrad(Node):
    """The node of a leaf tensor that requires grad: backward adds into ``variable.grad``."""

    __slots__ = ("variable",)

    def __init__(self, variable):
        self.variable = variable
        self.next_functions = ()


class _OutputInfo:
    """What the in-place error message needs to know of a saved output that is only an array."""

    def __init__(self, array, counter, node):
        from .dtypes import from_numpy_dtype
        self.dtype, self.shape = from_numpy_dtype(array.dtype), array.shape
        self._vc, self._grad_fn, self._output_nr = counter, node, 0


def _modified_message(t, expected):
    kind = f"nnlite.{t.dtype._tensor_type} [{', '.join(str(s) for s in t.shape)}]"
    op = re.sub(r"Backward\d*$", "", t._grad_fn.name()) if t._grad_fn is not None else ""
    where = f", which is output {t._output_nr} of {op}," if op else ""
    return ("one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [{kind}]{where} is at version {t._vc[0]}; expected version {expected} instead.")


def _gradient_edge(t):
    """The (node, output index) that gradients for tensor ``t`` flow into."""
    fn = t._grad_fn
    if fn is not None:
        return (fn, t._output_nr)
    if not t._requires_grad:
        return (None, 0)
    ref = t._grad_acc
    acc = ref() if ref is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._grad_acc = weakref.ref(acc)
    return (acc, 0)


class _FunctionMeta(type):
    """Gives every Function subclass its backward node class, named as PyTorch names it."""

    def __init__(cls, name, bases, ns):
        super().__init__(name, bases, ns)
        node_name = ns.get("node_name") or (name + ("Backward0" if ns.get("_array_forward", False)
                                                   or getattr(cls, "_array_forward", False) else "Backward"))
        is_array_op = ns.get("_array_forward", getattr(cls, "_array_forward", False))
        cls._node_cls = type(node_name, (Node,), {"_fn": cls, "__slots__": (), "_plain": is_array_op})
        if is_array_op:
            cls.apply = classmethod(_apply_array_op)  # built-in ops: straight to the hot path


class Function(metaclass=_FunctionMeta):
    """Base class of differentiable operations, as ``torch.autograd.Function``.

    Subclasses define static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)`` and are
    called through ``apply``.

    Example:
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

    _array_forward = False
    saved_inputs = ()
    saves_output = False
    select_saved = None  # optional staticmethod(args) -> what to save, for ops that save selectively

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("Function subclasses must implement forward")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("Function subclasses must implement backward")

    @classmethod
    def apply(cls, *args, **params):
        """Run the op on ``args``; record it in the graph when an input requires grad."""
        return _apply_user_function(cls, args, params)


def _apply_array_op(cls, *args, **params):
    """Run a built-in op: forward on arrays, record a node only if some input requires grad.

    This is the per-op hot path, so it is written out flat.
    """
    record = False
    arrays = []
    for a in args:
        if isinstance(a, Tensor):
            arrays.append(a._data)
            if a._requires_grad:
                record = True
        else:
            arrays.append(a)
    ctx = cls._node_cls()
    out = cls.forward(ctx, *arrays, **params)
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
    if not (record and _grad_state[0]):
        t._grad_fn = None
        t._requires_grad = False
        return t
    if params:
        ctx._params = params
    ctx.next_functions = tuple(
        ((a._grad_fn, a._output_nr) if a._grad_fn is not None else _gradient_edge(a))
        if isinstance(a, Tensor) else _NO_EDGE for a in args)
    if cls.saved_inputs:
        if cls.select_saved is not None:
            ctx.save_for_backward(*cls.select_saved(args))
        else:
            ctx.save_for_backward(*[args[i] for i in cls.saved_inputs])
    if cls.saves_output:
        ctx._output = out
        ctx._output_version = (t._vc, 0)
    t._grad_fn = ctx
    t._requires_grad = True
    return t


_NO_EDGE = (None, 0)
_new = object.__new__


def _apply_user_function(cls, args, params):
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
    results = []
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
        ctx.next_functions = tuple(_gradient_edge(a) if isinstance(a, Tensor) else (None, 0) for a in args)
        ctx._out_meta = [(o.shape, o._data.dtype) if isinstance(o, Tensor) else ((), np.float32) for o in outs]
        ctx._in_shapes = [a._data.shape if isinstance(a, Tensor) else None for a in args]
    return results[0] if single else tuple(results)


from .tensor import Tensor, _make  # noqa: E402  (import cycle: ops -> function -> tensor -> ops)
