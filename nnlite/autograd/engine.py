"""The backward engine: walks the graph from the outputs in dependency order, without recursion.

A first-order backward (``create_graph=False``) carries gradients as numpy arrays and runs each
op's backward formula on arrays: nothing is recorded and no Tensor is built until a gradient
lands in a ``.grad``, a hook or a user ``Function``. Under ``create_graph=True`` gradients are
Tensors and the same formulas record a graph. The engine tells each op which of its inputs need
a gradient (``Op.backward(grad, needs)``); an op with a first-order fast path
(``Op.backward_arrays``) has it called instead of ``backward`` when nothing is recorded.

Gradients meeting at a node are summed out of place (an in-place ``+=`` would corrupt a gradient
that two inputs share, as ``Add`` hands the same one to both). A node whose incoming gradients
are all ``None`` is skipped: ``None`` means zero and costs nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, overload

import numpy as np

from . import grad_mode
from . import op as _op
from .anomaly_mode import _anomaly, check_gradients
from .fp_errors import silenced
from .node import AccumulateGrad, gradient_edge
from .ops.vjp import sum_array_to

if TYPE_CHECKING:
    import weakref

    from .._typing import Array
    from .node import Node
    from .tensor import Tensor

_grad_state = grad_mode._state

# a gradient: an array in a first-order backward, a Tensor under ``create_graph``
_G = TypeVar("_G", "Array", "Tensor")


# retain_graph of the backward passes running now (innermost last), for ops whose backward must
# know whether the graph is kept (DataParallel frees its workers' graphs as it goes).
_retain_stack: list[bool] = []


def backward_retains_graph() -> bool:
    """Inside a backward: whether it keeps the graph (``retain_graph``). True outside any backward."""
    return _retain_stack[-1] if _retain_stack else True


# Callbacks queued during the backward passes running now (innermost last): each runs once, after
# every node of its backward has run (PyTorch's ``Variable._execution_engine.queue_callback``).
_callback_stack: list[list[Callable[[], object]]] = []


def queue_callback(callback: Callable[[], object]) -> None:
    """Run ``callback()`` (no arguments) at the end of the backward pass that is running now.

    Meant for hooks (``register_post_accumulate_grad_hook``) that start work per gradient and must
    finish it once all gradients are in, e.g. ``DistributedDataParallel`` waiting for its gradient
    all-reduces. Callbacks run in the order they were queued, after the last node; a callback may
    queue another one. Raises RuntimeError outside a backward pass.
    """
    if not _callback_stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    _callback_stack[-1].append(callback)


def _run_queued_callbacks(callbacks: list[Callable[[], object]]) -> None:
    while callbacks:
        callbacks.pop(0)()


def _run_post_accumulate_hooks(tensor: Tensor, hooks: Iterable[Callable[[Tensor], None]]) -> None:
    for hook in tuple(hooks):
        hook(tensor)


def _count_dependencies(roots: Iterable[Node]) -> dict[Node, int]:
    """For every node reachable from ``roots``: how many edges lead into it (iterative walk)."""
    dependencies: dict[Node, int] = {}
    stack = list(roots)
    seen = set(stack)
    while stack:
        node = stack.pop()
        for child, _ in node.next_functions:
            if child is None:
                continue
            if child in seen:
                dependencies[child] = dependencies.get(child, 0) + 1
            else:
                seen.add(child)
                dependencies[child] = 1
                stack.append(child)
    return dependencies


def _add(a: _G | None, b: _G | None) -> _G | None:
    """Sum two gradients out of place (arrays, or Tensors recorded under ``create_graph``)."""
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _accumulate_into_leaf(tensor: Tensor, grad: Tensor) -> None:
    """Add a Tensor gradient into ``tensor.grad`` (``Tensor.backward(inputs=...)``, ``create_graph``)."""
    if grad._data.shape != tensor._data.shape:  # arrays' shapes: no Size objects on the hot path
        grad = grad.sum_to_size(tensor.shape)
    if not _grad_state[0]:
        grad = _op.make_tensor(grad._data) if grad._grad_fn is not None else grad
    old = tensor._grad
    if old is None:
        data = grad._data
        if not (data.flags.writeable and data.flags.c_contiguous):
            # a broadcast or strided view (e.g. from sum's backward): .grad gets memory of its own,
            # laid out like the parameter, so optimizers and zero_grad can write into it
            grad = grad.clone() if _grad_state[0] else _op.make_tensor(np.array(data, order="C"))
        tensor._grad = grad
    elif _grad_state[0]:
        tensor._grad = old + grad
    else:
        # a fresh array: the old one may be shared (DeZero's lesson), so never add in place
        tensor._grad = _op.make_tensor(old._data + grad._data)


def _accumulate_array(tensor: Tensor, g: Array) -> None:
    """Add an array gradient into ``tensor.grad`` (first-order backward)."""
    shape = tensor._data.shape
    if g.shape != shape:
        g = sum_array_to(np.asarray(g), shape)
    old = tensor._grad
    if old is None:
        if type(g) is not np.ndarray or not (g.flags.writeable and g.flags.c_contiguous):
            g = np.array(g, order="C")  # see _accumulate_into_leaf
        tensor._grad = _op.make_tensor(g)
    else:
        # a fresh array: the old one may be shared (DeZero's lesson), so never add in place
        tensor._grad = _op.make_tensor(old._data + g)


@overload
def run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: None = None,
    allow_unused: bool = False,
) -> None: ...
@overload
def run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor],
    allow_unused: bool = False,
) -> tuple[Tensor, ...]: ...
@silenced  # inf - inf in a gradient sum is nan, quietly, as in PyTorch
def run_backward(
    outputs: Sequence[Tensor],
    grad_outputs: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    allow_unused: bool = False,
) -> tuple[Tensor | None, ...] | None:
    """Backpropagate ``grad_outputs`` (Tensors) from ``outputs``.

    Without ``inputs`` gradients accumulate into the ``.grad`` of leaves (``Tensor.backward``);
    with ``inputs`` the gradients with respect to them are returned and no ``.grad`` is touched
    (``autograd.grad``).
    """
    as_arrays = not create_graph
    # The nodes are of several kinds (an Op, an AccumulateGrad, a Function's node) and the loop
    # below tells them apart by ``_plain`` and ``type()``, not isinstance: to mypy they are Any.
    node: Any
    # a node's gradient slots, popped from ``buffers`` (None when no gradient arrived); read only
    # when the node runs
    grads: Any
    # what a node's backward gave: a gradient (or None) per input; None when it did not run
    input_grads: tuple[Any, ...] | None
    # the gradients arriving at each node, one slot per output (arrays, or Tensors under
    # create_graph)
    buffers: dict[Node, list[Any]] = {}
    roots: list[Node] = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        node = out._grad_fn
        if node is None:
            if not out._requires_grad:
                raise RuntimeError(_NO_GRAD_FN.format(i))
            node = gradient_edge(out)[0]
            index = 0
        else:
            index = out._output_nr
        slot = buffers.get(node)
        if slot is None:
            slot = buffers[node] = [None] * _n_outputs(node)
            roots.append(node)
        slot[index] = _add(slot[index], g._data if as_arrays else g)

    # for autograd.grad: the nodes whose gradient is an input's, with (output index, input position)
    capture: dict[Node, list[tuple[int, int]]] | None = None
    if inputs is not None:
        capture = {}
        for i, t in enumerate(inputs):
            node, index = gradient_edge(t)
            if node is None:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
            capture.setdefault(node, []).append((index, i))

    dependencies = _count_dependencies(roots)
    execute = _needed_nodes(roots, dependencies, capture) if capture is not None else None
    results: list[Tensor | None] = [None] * (len(inputs) if inputs is not None else 0)
    ready = [n for n in dict.fromkeys(roots) if n not in dependencies]

    prev = _grad_state[0]
    _grad_state[0] = create_graph
    _retain_stack.append(retain_graph)
    callbacks: list[Callable[[], object]] = []
    _callback_stack.append(callbacks)
    try:
        # Kahn's algorithm: a node runs once every node that sends it a gradient has run.
        while ready:
            node = ready.pop()
            grads = buffers.pop(node, None)
            if capture is not None and node in capture:
                for index, i in capture[node]:
                    g = grads[index] if grads is not None else None
                    results[i] = _op.make_tensor(g) if as_arrays and g is not None else g
            run = grads is not None and (
                grads[0] is not None if len(grads) == 1 else any(g is not None for g in grads)
            )
            if run and execute is not None and node not in execute:
                run = False
            if not run:
                input_grads = None
            elif node._plain:
                # the common case, inlined: a built-in op without hooks or retained grads
                input_grads = (node._first_order if as_arrays else node.backward)(
                    grads[0], node._needs
                )
                if type(input_grads) is not tuple:
                    input_grads = (input_grads,)
                if not retain_graph:
                    node._free()
            elif (
                as_arrays
                and type(node) is AccumulateGrad
                and node._pre_hooks is None
                and node._hooks is None
                and node._post_accumulate_hooks is None
                and capture is None
            ):
                _accumulate_array(node.variable, grads[0])  # a leaf without hooks, inlined
                input_grads = None
            else:
                input_grads = _run_node(node, grads, capture, retain_graph, as_arrays)
            if _anomaly[0] and input_grads is not None:
                check_gradients(node, input_grads)
            for k, (child, index) in enumerate(node.next_functions):
                if child is None:
                    continue
                if input_grads is not None:
                    g = input_grads[k]
                    if g is not None:
                        slot = buffers.get(child)
                        if slot is None:
                            if child._out_meta is None:  # one output (index 0): the common case
                                buffers[child] = [g]
                            else:
                                buffers[child] = slot = [None] * _n_outputs(child)
                                slot[index] = g
                        else:
                            slot[index] = _add(slot[index], g)
                left = dependencies[child] - 1
                dependencies[child] = left
                if left == 0:
                    ready.append(child)
        _run_queued_callbacks(callbacks)
    finally:
        _grad_state[0] = prev
        _retain_stack.pop()
        _callback_stack.pop()

    if inputs is not None:
        for i, r in enumerate(results):
            if r is None and not allow_unused:
                raise RuntimeError(
                    "One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
            if r is not None and r.shape != inputs[i].shape:
                results[i] = r.sum_to_size(inputs[i].shape)
        return tuple(results)
    return None


def _run_node(
    node: Any,
    grads: Sequence[Any],
    capture: dict[Node, list[tuple[int, int]]] | None,
    retain_graph: bool,
    as_arrays: bool,
) -> tuple[Any, ...] | None:
    """Run a node with hooks, retained grads or user code (or a leaf's accumulator).

    Hooks and user Functions see Tensors; in a first-order backward the gradients are wrapped on
    the way in and unwrapped on the way out.
    """
    g: Any  # the gradient of a one-output node (an Op or a leaf's accumulator): not None
    input_grads: Any  # a gradient or None per input (or, from an Op's backward, one gradient)
    if as_arrays:
        grads = [None if g is None else _op.make_tensor(g) for g in grads]
    if node._retained is not None:
        _set_retained_grads(node._retained, grads)
    if node._pre_hooks is not None:
        grads = _run_pre_hooks(node._pre_hooks, grads)
    if type(node) is AccumulateGrad:
        if capture is None:
            g = grads[0]
            if as_arrays:
                _accumulate_array(node.variable, g._data)
            else:
                _accumulate_into_leaf(node.variable, g)
            if node._post_accumulate_hooks:
                _run_post_accumulate_hooks(node.variable, node._post_accumulate_hooks)
        return None
    if isinstance(node, _op.Op):
        g = grads[0]
        if as_arrays:
            input_grads = node._first_order(g._data, node._needs)
        else:
            input_grads = node.backward(g, node._needs)
        if type(input_grads) is not tuple:
            input_grads = (input_grads,)
        if as_arrays:
            input_grads = tuple(None if r is None else _op.make_tensor(r) for r in input_grads)
    else:
        input_grads = node._run(grads)
    if node._hooks:
        for hook in node._hooks:
            hook(input_grads, grads)
    if not retain_graph:
        node._free()
    if as_arrays:
        return tuple(None if r is None else r._data for r in input_grads)
    grads_of_inputs: tuple[Any, ...] = input_grads
    return grads_of_inputs


def accumulate_into_inputs(inputs: Sequence[Tensor], grads: Sequence[Tensor | None]) -> None:
    """``Tensor.backward(inputs=...)``: add the gradients computed for ``inputs`` into their ``.grad``,
    with their post-accumulate hooks and the callbacks those queue, as a backward pass would."""
    callbacks: list[Callable[[], object]] = []
    _callback_stack.append(callbacks)
    try:
        for t, g in zip(inputs, grads):
            if g is None:
                continue
            _accumulate_into_leaf(t, g)
            node = t._grad_acc() if t._grad_acc is not None else None
            hooks = getattr(node, "_post_accumulate_hooks", None)
            if hooks:
                _run_post_accumulate_hooks(t, hooks)
        _run_queued_callbacks(callbacks)
    finally:
        _callback_stack.pop()


def _run_pre_hooks(
    hooks: Iterable[tuple[int, Callable[[Tensor], Tensor | None]]], grads: Iterable[Tensor | None]
) -> list[Tensor | None]:
    grads = list(grads)
    for index, hook in hooks:
        g = grads[index]
        if g is not None:
            replaced = hook(g)
            if replaced is not None:
                grads[index] = replaced
    return grads


def _n_outputs(node: Node) -> int:
    meta = node._out_meta
    return len(meta) if meta else 1


def _needed_nodes(
    roots: Iterable[Node], dependencies: dict[Node, int], capture: Iterable[Node]
) -> set[Node]:
    """For ``autograd.grad``: the nodes that must run for gradients to reach a captured input.

    A node runs if one of its children is captured or must run itself (a captured node whose
    children lead to no other captured input is not run: its gradient is already known).
    """
    dependencies = dict(dependencies)
    order: list[Node] = []
    ready = [n for n in dict.fromkeys(roots) if n not in dependencies]
    while ready:
        node = ready.pop()
        order.append(node)
        for child, _ in node.next_functions:
            if child is not None:
                dependencies[child] -= 1
                if dependencies[child] == 0:
                    ready.append(child)
    reaches = set(capture)
    execute: set[Node] = set()
    for node in reversed(order):
        for child, _ in node.next_functions:
            if child is not None and child in reaches:
                reaches.add(node)
                execute.add(node)
                break
    return execute


def _set_retained_grads(
    retained: dict[int, weakref.ref[Tensor]], grads: Sequence[Tensor | None]
) -> None:
    for index, ref in retained.items():
        tensor = ref()
        g = grads[index]
        if tensor is None or g is None:
            continue
        if not _grad_state[0] and g._grad_fn is not None:
            g = g.detach()
        tensor._grad = g if tensor._grad is None else _add(tensor._grad, g)


_NO_GRAD_FN = "element {} of tensors does not require grad and does not have a grad_fn"


def _make_seed(out: Tensor) -> Tensor:
    if out.numel() != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    return _op.make_tensor(np.ones(out.shape, dtype=out._data.dtype))


def backward(
    tensors: Tensor | Iterable[Tensor],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
) -> None:
    """Compute the gradients of ``tensors`` with respect to the graph leaves (into their ``.grad``).

    Args:
        tensors: a Tensor or sequence of Tensors to differentiate.
        grad_tensors: the vector in the vector-Jacobian product, one per tensor (may be omitted for
            one-element tensors).
        retain_graph: keep the graph for another backward; defaults to ``create_graph``.
        create_graph: record the backward pass so that higher-order gradients can be taken.

    Examples:
        >>> x = nl.tensor([3.], requires_grad=True)
        >>> nl.autograd.backward((x * x).sum())
        >>> x.grad
        tensor([6.])
    """
    tensors = [tensors] if isinstance(tensors, _op.Tensor) else list(tensors)
    grads = _prepare_grads(tensors, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    run_backward(tensors, grads, retain_graph, create_graph)


# (typed as PyTorch types it: the None of an unused input under allow_unused is left out)
def grad(
    outputs: Tensor | Iterable[Tensor],
    inputs: Tensor | Iterable[Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool = False,
) -> tuple[Tensor, ...]:
    """Gradients of ``outputs`` with respect to ``inputs``; ``.grad`` fields are left untouched.

    Args:
        outputs: a Tensor or sequence of Tensors to differentiate.
        inputs: a Tensor or sequence of Tensors to differentiate with respect to.
        grad_outputs: the vector in the vector-Jacobian product (required for non-scalar outputs).
        retain_graph: keep the graph for another backward; defaults to ``create_graph``.
        create_graph: record the backward pass so that higher-order gradients can be taken.
        allow_unused: return ``None`` for inputs the outputs do not depend on instead of raising.

    Returns:
        A tuple with one gradient (or ``None``) per input.

    Examples:
        >>> x = nl.tensor([3.], requires_grad=True)
        >>> (gx,) = nl.autograd.grad(x ** 2, x, create_graph=True)
        >>> nl.autograd.grad(gx, x)
        (tensor([2.]),)
    """
    outputs = [outputs] if isinstance(outputs, _op.Tensor) else list(outputs)
    inputs = [inputs] if isinstance(inputs, _op.Tensor) else list(inputs)
    grads = _prepare_grads(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    return run_backward(
        outputs, grads, retain_graph, create_graph, inputs=inputs, allow_unused=allow_unused
    )


def composite_gradient(
    function: Callable[..., Tensor],
    inputs: Sequence[Any],
    output_grad: Any,
    needs: Sequence[bool],
) -> tuple[Any, ...]:
    """The gradient of ``function(*inputs)`` (written with Tensor operations) for the inputs that
    ``needs``, given ``output_grad``: the reference backward of an op whose forward is a composite run on arrays.

    Under ``create_graph`` (Tensors) the recomputation is recorded; on arrays it runs on fresh
    leaf Tensors and the gradients come back as arrays.
    """
    arrays = not isinstance(output_grad, _op.Tensor)
    if arrays:
        inputs = [
            _op.make_tensor(x).requires_grad_(need) if isinstance(x, np.ndarray) else x
            for x, need in zip(inputs, needs)
        ]
        output_grad = _op.make_tensor(np.asarray(output_grad))
    with grad_mode.enable_grad():
        result = function(*inputs)
    wanted = [x for x, need in zip(inputs, needs) if need]
    found = iter(grad([result], wanted, [output_grad], create_graph=not arrays, allow_unused=True))
    grads = tuple(next(found) if need else None for need in needs)
    if arrays:
        return tuple(None if g is None else g._data for g in grads)
    return grads


def _prepare_grads(outputs: Sequence[Tensor], grad_outputs: Any) -> list[Tensor]:
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    elif isinstance(grad_outputs, _op.Tensor):
        grad_outputs = [grad_outputs]
    else:
        grad_outputs = list(grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grad_outputs)} gradients")
    result: list[Tensor] = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not out._requires_grad:
            raise RuntimeError(_NO_GRAD_FN.format(i))
        if g is None:
            g = _make_seed(out)
        elif not isinstance(g, _op.Tensor):
            g = _op.make_tensor(np.asarray(g, dtype=out._data.dtype))
        elif g.shape != out.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] "
                f"has a shape of {out.shape}."
            )
        result.append(g)
    return result
