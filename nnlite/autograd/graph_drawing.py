"""The backward graph as a picture (Graphviz DOT, as torchviz draws it) and as a printed tape.

Both walk ``grad_fn`` and ``next_functions`` only. Op nodes carry PyTorch's ``grad_fn`` names;
leaves show their parameter name (from ``params``) and shape; saved tensors and retained
gradients are listed where the node keeps them. A built-in op node does not record its output's
shape, so a shape is shown where it is known: the drawn tensors, leaves, saved tensors and
saved outputs.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from .._typing import StrPath
    from .node import AccumulateGrad, Node
    from .tensor import Tensor

__all__ = ["DotGraph", "print_graph", "to_dot"]


class DotGraph(str):
    """Graphviz DOT text of a backward graph; ``render(path)`` draws it with Graphviz."""

    def render(self, path: StrPath, format: str | None = None) -> str:
        """Write the picture to ``path`` (SVG, PNG, PDF, ... from the suffix, or ``format``).

        Needs the ``graphviz`` package (``pip install 'nnlite[graph]'``) and Graphviz's ``dot``
        program (e.g. ``apt install graphviz``). Returns the written path.
        """
        import os

        try:
            import graphviz
        except ImportError:
            raise ImportError(
                "rendering a graph needs the graphviz package: pip install 'nnlite[graph]' "
                "(and Graphviz's dot program, e.g. apt install graphviz)"
            ) from None
        path = os.fspath(path)
        suffix = os.path.splitext(path)[1]
        fmt = format or suffix.lstrip(".").lower() or "svg"
        try:
            written: str = graphviz.Source(str(self)).render(
                outfile=path if suffix else f"{path}.{fmt}", format=fmt, cleanup=True
            )
            return written
        except graphviz.ExecutableNotFound:
            raise RuntimeError(
                "rendering a graph needs Graphviz's dot program on the PATH "
                "(e.g. apt install graphviz, brew install graphviz)"
            ) from None


def _tensors(t: Tensor | Sequence[Tensor]) -> list[Tensor]:
    from .tensor import Tensor

    items: list[Any] = list(t) if isinstance(t, (list, tuple)) else [t]
    for x in items:
        if not isinstance(x, Tensor):
            raise TypeError(f"expected a Tensor or a sequence of Tensors, got {type(x).__name__}")
    return items


def _shape(shape: Sequence[int]) -> str:
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _saved_shapes(node: Node) -> list[str]:
    """Shapes of what the node keeps for backward ('freed' once backward released them)."""
    saved = node.__dict__.get("_saved", ())
    if not isinstance(saved, tuple):
        return ["freed"]
    shapes = [_shape(s.shape) for s in saved if hasattr(s, "shape")]
    out = node.__dict__.get("_output")
    if out is not None:
        shapes.append(_shape(out.shape) + " (output)" if hasattr(out, "shape") else "freed")
    return shapes


def _retained(node: Node) -> list[tuple[int, Tensor]]:
    """``(output index, tensor)`` of the node's outputs that retain their gradient."""
    refs = getattr(node, "_retained", None) or {}
    out: list[tuple[int, Tensor]] = []
    for index, ref in sorted(refs.items()):
        t = ref()
        if t is not None:
            out.append((index, t))
    return out


def _walk(roots: Sequence[Node]) -> tuple[list[Node], list[Node]]:
    """Every node reachable from ``roots`` (first-seen order) and the engine's execution order."""
    seen: set[Node] = set()
    order: list[Node] = []
    stack = list(reversed(roots))
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        for child, _ in reversed(node.next_functions):
            if child is not None and child not in seen:
                stack.append(child)
    # Kahn's algorithm as the engine runs it: a node runs once all nodes feeding it have run
    waiting: dict[Node, int] = {}
    for node in order:
        for child, _ in node.next_functions:
            if child is not None:
                waiting[child] = waiting.get(child, 0) + 1
    ready = [n for n in dict.fromkeys(roots) if n not in waiting]
    execution: list[Node] = []
    while ready:
        node = ready.pop()
        execution.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            waiting[child] -= 1
            if waiting[child] == 0:
                ready.append(child)
    return order, execution


def _leaf_label(node: Node, names: Mapping[int, str]) -> str:
    v = cast("AccumulateGrad", node).variable  # a leaf's node (callers tell it by name)
    name = names.get(id(v), "")
    return f"{name}\n{_shape(v.shape)}" if name else _shape(v.shape)


def _quote(text: object) -> str:
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(
    tensor: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | None = None,
    show_saved: bool = True,
) -> DotGraph:
    """The backward graph of ``tensor`` as Graphviz DOT text, drawn as torchviz's ``make_dot``.

    Args:
        tensor: a Tensor (or a list of them) whose ``grad_fn`` graph is drawn.
        params: ``{name: tensor}`` (e.g. ``dict(model.named_parameters())``) naming the leaves.
        show_saved: list the shapes of the tensors each node saved for backward.

    Returns:
        DotGraph: the DOT text (a ``str``) with ``.render(path)`` to write SVG/PNG via Graphviz.

    Op nodes are grey boxes named as PyTorch's ``grad_fn`` (``MulBackward0``), leaves that
    require grad light blue (parameter name and shape), the drawn tensors green, retained
    gradients yellow notes. Arrows point from an input to the op that used it.

    Examples:
        >>> x = nl.tensor([1., 2.], requires_grad=True)
        >>> dot = nl.autograd.to_dot((x * x).sum(), params={"x": x})
        >>> dot.render("graph.svg")
        'graph.svg'
    """
    outputs = _tensors(tensor)
    names = {id(p): n for n, p in (params or {}).items()}
    roots = [t.grad_fn for t in outputs if t.grad_fn is not None]
    order, _ = _walk(roots)
    ident = {node: f"n{i}" for i, node in enumerate(order)}
    lines = [
        "digraph backward {",
        "  node [style=filled, shape=box, align=left, fontsize=10, height=0.2, fontname=monospace];",
        '  graph [size="12,12", ranksep=0.2];',
    ]
    for node in order:
        name = node.name()
        if name == "AccumulateGrad":
            lines.append(
                f"  {ident[node]} [label={_quote(_leaf_label(node, names))}, fillcolor=lightblue];"
            )
            continue
        label = name
        if show_saved:
            shapes = _saved_shapes(node)
            if shapes:
                label += "\nsaved: " + ", ".join(shapes)
        lines.append(f"  {ident[node]} [label={_quote(label)}, fillcolor=lightgrey];")
        for index, t in _retained(node):
            note = f"retains grad {_shape(t.shape)}" + (
                f"\ngrad {_shape(t.grad.shape)}" if t.grad is not None else ""
            )
            lines.append(
                f"  {ident[node]}_r{index} [label={_quote(note)}, shape=note, fillcolor=lightyellow];"
            )
            lines.append(
                f"  {ident[node]} -> {ident[node]}_r{index} [style=dashed, arrowhead=none];"
            )
    for node in order:
        for child, _ in node.next_functions:
            if child is not None:
                lines.append(f"  {ident[child]} -> {ident[node]};")
    for k, t in enumerate(outputs):
        label = names.get(id(t), "") + ("\n" if id(t) in names else "") + _shape(t.shape)
        lines.append(f"  out{k} [label={_quote(label)}, fillcolor=darkolivegreen1];")
        if t.grad_fn is not None:
            lines.append(f"  {ident[t.grad_fn]} -> out{k};")
    lines.append("}")
    return DotGraph("\n".join(lines) + "\n")


def print_graph(
    tensor: Tensor | Sequence[Tensor],
    params: Mapping[str, Tensor] | None = None,
    file: IO[str] | None = None,
) -> None:
    """Print the backward tape of ``tensor``: one line per node in the order backward runs them,
    with the node that sends it its gradient and the nodes it passes gradients on to (the
    Simple Grad notebook's tape, read from the ``grad_fn`` graph).

    Args:
        tensor: a Tensor (or a list of them).
        params: ``{name: tensor}`` naming the leaves.
        file: where to print (default ``sys.stdout``).

    Examples:
        >>> a = nl.tensor([1., 2.], requires_grad=True)
        >>> nl.autograd.print_graph((a * a).sum(), params={"a": a})
        backward tape of 1 tensor, 3 nodes, in execution order:
          1. SumBackward0  <- output ()     -> MulBackward0
          2. MulBackward0  <- SumBackward0  -> a (2,), a (2,)
          3. a (2,)        <- MulBackward0  -> a.grad (2,)
    """
    outputs = _tensors(tensor)
    names = {id(p): n for n, p in (params or {}).items()}
    roots = [t.grad_fn for t in outputs if t.grad_fn is not None]
    _, execution = _walk(roots)
    step = {node: i + 1 for i, node in enumerate(execution)}

    repeated: dict[str, int] = {}
    for node in execution:
        repeated[node.name()] = repeated.get(node.name(), 0) + 1

    def called(node: Node) -> str:
        """A node's name in the listing: the parameter's name for a leaf, ``Op#step`` when the
        op occurs more than once."""
        if node.name() == "AccumulateGrad":
            return _leaf_label(node, names).replace("\n", " ")
        return f"{node.name()}#{step[node]}" if repeated[node.name()] > 1 else node.name()

    feeders: dict[Node, list[str]] = {node: [] for node in execution}
    for k, t in enumerate(outputs):
        if t.grad_fn is not None:
            feeders[t.grad_fn].append(
                f"output {_shape(t.shape)}" if len(outputs) == 1 else f"output{k} {_shape(t.shape)}"
            )
    for node in execution:
        for child, _ in node.next_functions:
            if child is not None:
                feeders[child].append(called(node))
    rows: list[tuple[str, str, str, str, str]] = []
    for node in execution:
        if node.name() == "AccumulateGrad":
            leaf = cast("AccumulateGrad", node).variable
            name = names.get(id(leaf), "leaf")
            target = f"{name}.grad {_shape(leaf.shape)}"
        else:
            target = (
                ", ".join(called(c) if c is not None else "None" for c, _ in node.next_functions)
                or "--"
            )
        retained = ", ".join(f"retains grad {_shape(t.shape)}" for _, t in _retained(node))
        rows.append(
            (
                f"{step[node]}.",
                called(node),
                ", ".join(dict.fromkeys(feeders[node])),
                target,
                retained,
            )
        )
    width = [max((len(r[i]) for r in rows), default=0) for i in range(3)]
    out = file or sys.stdout
    print(
        f"backward tape of {len(outputs)} tensor{'s' if len(outputs) != 1 else ''}, {len(execution)} nodes, "
        "in execution order:",
        file=out,
    )
    for num, name, src, dst, retained in rows:
        line = f"  {num:>{width[0]}} {name:<{width[1]}}  <- {src:<{width[2]}}  -> {dst}"
        print(line + (f"  [{retained}]" if retained else ""), file=out)
