"""nnlite's modules import one another without circles (read statically from the source, so that
function-level imports count too; imports under ``if TYPE_CHECKING:`` do not, being for types)."""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "nnlite"


def _module_name(path):
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules():
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree):
    """The import statements of a module, those under ``if TYPE_CHECKING:`` left out."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                stack.extend(child.orelse)  # only the else branch runs
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            stack.append(child)
    return found


def import_graph():
    """Module name -> the nnlite modules it imports (the most specific module each import names)."""
    modules = _modules()
    graph = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                bases = [alias.name for alias in node.names]
                names = [None]
            else:
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                bases = [base]
                names = [alias.name for alias in node.names]
            for base in bases:
                for alias in names:
                    full = f"{base}.{alias}" if alias else base
                    target = full if full in modules else base
                    while target and target not in modules:
                        target = target.rpartition(".")[0]
                    if target and target != name:
                        targets.add(target)
        graph[name] = targets
    return graph


def cycles(graph):
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index, low, on_stack, stack, groups = {}, {}, set(), [], []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# Circles known today, each with the work that removes it. One may disappear (then take it out);
# no other may appear.
KNOWN_CIRCLES = [
    # Tensor's methods (new_zeros, cat-based ones, ...) call the creation functions inside their
    # bodies, and the creation functions build Tensors; Tensor's linalg and special methods (det,
    # inverse, mvlgamma, ...) and the top-level forms of nn.functional (nl.conv2d, nl.layer_norm,
    # ...) call linalg, special and nn.functional inside their bodies, and those build Tensors. The
    # work that removes it: those modules install their Tensor methods and top-level names
    # themselves, so that the Tensor core imports none of them.
    {
        "nnlite.autograd.creation",
        "nnlite.autograd.indexed_reductions",
        "nnlite.autograd.strided_views",
        "nnlite.autograd.tensor_hash",
        "nnlite.autograd.tensor_op_methods",
        "nnlite.autograd.tensor_storage_methods",
        "nnlite.autograd.surface_functions",
        "nnlite.autograd.tensor",
        "nnlite.autograd.tensor_surface",
        "nnlite.linalg",
        "nnlite.nn.functional",
        "nnlite.nn.ops",
        "nnlite.nn.ops.activation",
        "nnlite.nn.ops.composite_loss",
        "nnlite.nn.ops.conv_volume",
        "nnlite.nn.ops.distance",
        "nnlite.nn.ops.embedding_bag",
        "nnlite.nn.ops.fold",
        "nnlite.nn.ops.grid_sample",
        "nnlite.nn.ops.group_norms",
        "nnlite.nn.ops.interpolate",
        "nnlite.nn.ops.normalization",
        "nnlite.nn.ops.pooling",
        "nnlite.nn.ops.pooling_nd",
        "nnlite.special",
    },
]


def test_known_circles_are_still_there():
    found = [set(group) for group in cycles(import_graph())]
    assert all(known in found for known in KNOWN_CIRCLES), "a known circle is gone: drop it"


def test_no_circles_among_nnlite_modules():
    found = [group for group in cycles(import_graph()) if set(group) not in KNOWN_CIRCLES]
    assert not found, "modules importing one another in a circle:\n" + "\n".join(
        " <-> ".join(group) for group in found
    )
