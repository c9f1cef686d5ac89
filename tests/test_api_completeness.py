"""Nothing public is forgotten: every op and every public ``nnlite``, ``Tensor`` and
``nn.functional`` name has its gradient row (or says why not), a module where PyTorch has one, an
ONNX converter (or says it has none) and a place in the API pages. The rows and the marks are
collected by ``tests/op_registry.py``."""

import inspect
import re
from pathlib import Path

import op_registry as registry
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn
from nnlite.autograd.node import AccumulateGrad
from nnlite.autograd.op import Op

DOCS = Path(__file__).resolve().parent.parent / "docs" / "api"


def _public_names():
    return (
        set(registry.functional_names())
        | set(registry.nnlite_names())
        | set(registry.tensor_names())
    )


def test_every_public_name_has_a_gradient_row_or_a_mark():
    missing = sorted(
        n
        for n in _public_names()
        if not registry.has_gradient_row(n)
        and n not in registry.NO_GRADIENT
        and n not in registry.GRADIENT_GAPS
    )
    assert not missing, (
        f"no gradcheck row for {missing}: add a row to a table of tests/op_registry.py's "
        "GRADIENT_TABLES, or mark the name there (NO_GRADIENT, or GRADIENT_GAPS with a reason)"
    )


def test_marks_are_current():
    public = _public_names()
    for mark in ("NO_GRADIENT", "GRADIENT_GAPS"):
        names = getattr(registry, mark)
        assert names <= public, f"{mark} names what is not public: {sorted(names - public)}"
        assert not registry.NO_GRADIENT & registry.GRADIENT_GAPS
    closed = sorted(n for n in registry.GRADIENT_GAPS if registry.has_gradient_row(n))
    assert not closed, f"{closed} now have a row: take them out of GRADIENT_GAPS"
    functional = set(registry.functional_names())
    for mark in ("MODULE_GAPS", "NOT_EXPORTED"):
        names = getattr(registry, mark)
        assert names <= functional, f"{mark} names what is not public: {sorted(names - functional)}"


def _op_classes():
    found, stack = [], [Op]
    while stack:
        for sub in stack.pop().__subclasses__():
            found.append(sub)
            stack.append(sub)
    return [c for c in found if not c.__subclasses__() and c.__module__.startswith("nnlite.")]


def _graph(outputs):
    """The node types and the leaves of the graphs behind ``outputs``."""
    types, leaves, seen = set(), [], set()
    stack = [o.grad_fn for o in outputs]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        types.add(type(node))
        if type(node) is AccumulateGrad:
            leaves.append(node.variable)
        stack.extend(child for child, _ in node.next_functions)
    return types, leaves


def test_every_op_is_reached_by_a_row():
    reached = set()
    for row in registry.gradient_rows():
        out = row.run()
        outputs = [
            o
            for o in (out if isinstance(out, (tuple, list)) else [out])
            if isinstance(o, nl.Tensor) and o.requires_grad
        ]
        types, leaves = _graph(outputs)
        reached |= types
        if outputs and leaves:  # the ops of the backward formulas too
            # incoming gradients that require grad, as in gradgradcheck: the ops that act on the
            # gradient alone (the backward of a pooling) are recorded too
            seeds = [nl.ones_like(o).requires_grad_() for o in outputs]
            grads = nl.autograd.grad(outputs, leaves, seeds, create_graph=True, allow_unused=True)
            reached |= _graph([g for g in grads if g is not None])[0]
    names = {c.__name__ for c in _op_classes()}
    unreached = sorted(c.__name__ for c in _op_classes() if c not in reached)
    assert set(unreached) <= registry.OPS_WITHOUT_ROWS, (
        f"no gradient row reaches {sorted(set(unreached) - registry.OPS_WITHOUT_ROWS)}"
    )
    stale = sorted(registry.OPS_WITHOUT_ROWS - set(unreached))
    assert not stale, f"{stale} are reached now (or gone): take them out of OPS_WITHOUT_ROWS"
    assert registry.OPS_WITHOUT_ROWS <= names


def test_every_functional_with_a_pytorch_module_has_one():
    torch = pytest.importorskip("torch", reason="PyTorch names the modules it has")
    theirs = {n.lower(): n for n in dir(torch.nn) if inspect.isclass(getattr(torch.nn, n))}
    missing = []
    for name in registry.functional_names():
        key = name.replace("_", "").lower()
        module = theirs.get(key) or theirs.get(key + "loss")
        if module and not hasattr(nn, module) and name not in registry.MODULE_GAPS:
            missing.append((name, module))
        if name in registry.MODULE_GAPS:
            assert module and not hasattr(nn, module), f"{name}: take it out of MODULE_GAPS"
    assert not missing, f"PyTorch has modules nnlite lacks: {missing}"


def test_every_differentiable_functional_is_exported_or_marked():
    from nnlite.onnx.converters import FUNCTION_CONVERTERS

    converted = {name for owner, name, _ in FUNCTION_CONVERTERS if owner is F}
    missing = sorted(
        n
        for n in registry.functional_names()
        if n not in converted and n not in registry.NO_GRADIENT and n not in registry.NOT_EXPORTED
    )
    assert not missing, f"no ONNX converter for {missing}: add one, or mark it NOT_EXPORTED"
    stale = sorted(registry.NOT_EXPORTED & converted)
    assert not stale, f"{stale} have a converter now: take them out of NOT_EXPORTED"


def _rendered():
    """What the API pages render with ``::: name`` (mkdocstrings)."""
    directives = set()
    for page in DOCS.glob("*.md"):
        directives |= set(re.findall(r"^::: (\S+)", page.read_text(encoding="utf-8"), re.M))
    return directives


def _on_a_page(obj, public_path, directives):
    module = getattr(obj, "__module__", None) or ""
    return public_path in directives or module in directives


@pytest.mark.parametrize(
    "namespace, names, prefix",
    [
        (F, registry.functional_names, "nnlite.nn.functional"),
        (nn, lambda: [n for n in nn.__all__ if not inspect.ismodule(getattr(nn, n))], "nnlite.nn"),
        (nl, registry.nnlite_names, "nnlite"),
    ],
    ids=["functional", "nn", "nnlite"],
)
def test_every_public_name_is_on_an_api_page(namespace, names, prefix):
    directives = _rendered()
    missing = []
    for name in names():
        obj = getattr(namespace, name)
        if namespace is nl and hasattr(nl.Tensor, name):
            continue  # a function form, documented with its Tensor method
        if prefix == "nnlite.nn.functional":
            on_page = prefix in directives  # the page renders the module's __all__
        else:
            on_page = _on_a_page(obj, f"{prefix}.{name}", directives)
        if not on_page or not inspect.getdoc(obj):
            missing.append(name)
    assert not missing, f"not on an API page (docs/api/*.md, '::: ...') or no docstring: {missing}"


def test_every_tensor_method_has_a_docstring():
    assert "nnlite.Tensor" in _rendered()
    missing = [n for n in registry.tensor_names() if not inspect.getdoc(getattr(nl.Tensor, n))]
    assert not missing, f"Tensor methods without a docstring: {missing}"
