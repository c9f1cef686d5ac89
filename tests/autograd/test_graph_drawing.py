"""nl.autograd.to_dot and print_graph: the backward graph as Graphviz DOT text and as a tape."""

import io
import re
import shutil
import sys
from collections import Counter

import pytest

import nnlite as nl
from nnlite.models import Net


def independent_walk(tensor):
    """Nodes and edges of the grad_fn graph, found through the public node API only."""
    nodes, edges, stack = [], [], [tensor.grad_fn]
    seen = {tensor.grad_fn}
    while stack:
        node = stack.pop()
        nodes.append(node)
        for child, _ in node.next_functions:
            if child is None:
                continue
            edges.append((child, node))
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return nodes, edges


def parse_dot(text):
    """``{id: label}`` and the list of ``(from id, to id)`` edges of DOT text."""
    labels = {
        m.group(1): m.group(2).replace("\\n", "\n")
        for m in re.finditer(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"', text, re.MULTILINE)
    }
    edges = re.findall(r"^\s*(\w+) -> (\w+)(?: \[[^\]]*\])?;$", text, re.MULTILINE)
    return labels, edges


def node_label(node, names):
    if node.name() == "AccumulateGrad":
        v = node.variable
        return (
            names[id(v)]
            + "\n"
            + "("
            + ", ".join(map(str, v.shape))
            + ("," if v.ndim == 1 else "")
            + ")"
        )
    return node.name()


def tutorial_loss():
    nl.manual_seed(0)
    net = Net()
    out = net(nl.randn(1, 1, 32, 32))
    loss = nl.nn.MSELoss()(out, nl.randn(1, 10))
    return net, loss


def test_dot_of_the_tutorial_net_matches_the_graph():
    net, loss = tutorial_loss()
    params = dict(net.named_parameters())
    dot = nl.autograd.to_dot(loss, params=params)
    assert isinstance(dot, str) and dot.startswith("digraph")
    labels, edges = parse_dot(dot)
    nodes, true_edges = independent_walk(loss)
    names = {id(p): n for n, p in params.items()}

    # every parameter is one light-blue leaf, labelled with its name and shape
    for name, p in params.items():
        shape = "(" + ", ".join(map(str, p.shape)) + ("," if p.ndim == 1 else "") + ")"
        hits = [i for i, lab in labels.items() if lab.split("\n") == [name, shape]]
        assert len(hits) == 1, name
        assert re.search(rf"^\s*{hits[0]} \[.*fillcolor=lightblue\];$", dot, re.MULTILINE)

    # op nodes: the grad_fn names the graph holds, each once per node
    drawn_ops = Counter(
        lab.split("\n")[0] for i, lab in labels.items() if i.startswith("n") and "_r" not in i
    )
    assert drawn_ops == Counter(node_label(n, names).split("\n")[0] for n in nodes)
    for op in (
        "MseLossBackward0",
        "AddmmBackward0",
        "ReluBackward0",
        "MaxPool2DWithIndicesBackward0",
        "ConvolutionBackward0",
    ):
        assert drawn_ops[op] > 0, op
    assert drawn_ops["ConvolutionBackward0"] == 2 and drawn_ops["AddmmBackward0"] == 3

    # edges: input -> op that used it, one per recorded edge (labels compared, ids are internal)
    drawn_edges = Counter(
        (labels[a].split("\n")[0], labels[b].split("\n")[0])
        for a, b in edges
        if not b.startswith("out")
    )
    assert drawn_edges == Counter(
        (node_label(c, names).split("\n")[0], node_label(p, names).split("\n")[0])
        for c, p in true_edges
    )
    # the loss itself: a green box fed by the loss node
    out_id = [i for i in labels if i.startswith("out")]
    assert len(out_id) == 1 and labels[out_id[0]] == "()"
    assert [a for a, b in edges if b == out_id[0]] == [
        i for i, lab in labels.items() if lab.split("\n")[0] == "MseLossBackward0"
    ]


def test_tutorial_op_names_are_pytorch_grad_fn_names():
    torch = pytest.importorskip("torch")
    tnet = torch.nn.Sequential(torch.nn.Conv2d(1, 6, 3), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
    tl = torch.nn.functional.mse_loss(tnet(torch.randn(1, 1, 8, 8)), torch.zeros(1, 6, 3, 3))
    torch_names, stack = set(), [tl.grad_fn]
    while stack:
        n = stack.pop()
        torch_names.add(n.name())
        stack += [c for c, _ in n.next_functions if c is not None]
    net = nl.nn.Sequential(nl.nn.Conv2d(1, 6, 3), nl.nn.ReLU(), nl.nn.MaxPool2d(2))
    loss = nl.nn.functional.mse_loss(net(nl.randn(1, 1, 8, 8)), nl.zeros(1, 6, 3, 3))
    labels, _ = parse_dot(nl.autograd.to_dot(loss))
    ours = {
        lab.split("\n")[0]
        for i, lab in labels.items()
        if not lab.startswith("(") and i.startswith("n")
    }
    ours.discard("AccumulateGrad")
    assert ours <= torch_names, ours - torch_names


def test_second_order_graph_reaches_the_input_again():
    x = nl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x**3).sum()
    (g,) = nl.autograd.grad(y, x, create_graph=True)  # 3 x^2, itself differentiable
    assert g.grad_fn is not None
    dot = nl.autograd.to_dot(g, params={"x": x})
    labels, edges = parse_dot(dot)
    nodes, true_edges = independent_walk(g)
    assert len([i for i in labels if i.startswith("n") and "_r" not in i]) == len(nodes)
    assert len([e for e in edges if not e[1].startswith("out")]) == len(true_edges)
    leaf = [i for i, lab in labels.items() if lab == "x\n(3,)"]
    assert len(leaf) == 1
    assert any(a == leaf[0] for a, _ in edges)  # x feeds the graph of its own gradient
    assert labels["out0"] == "(3,)"
    # the second derivative through that graph: 6 x
    (h,) = nl.autograd.grad(g.sum(), x)
    assert h.tolist() == [6.0, 12.0, 18.0]


def test_retained_grad_and_saved_tensors_are_shown():
    w = nl.randn(4, 3, requires_grad=True)
    hidden = nl.randn(5, 3) @ w.t()
    hidden.retain_grad()
    out = hidden.relu().sum()
    before = nl.autograd.to_dot(out, params={"w": w})
    assert "retains grad (5, 4)" in before
    assert re.search(r'saved: [^"]*\(5, 4\)', before)  # relu keeps its output
    out.backward()
    after = nl.autograd.to_dot(out, params={"w": w})
    assert "retains grad (5, 4)\\ngrad (5, 4)" in after
    assert "saved: freed" in after


def record_execution(loss):
    """The order in which backward really runs the nodes (node hooks)."""
    nodes, _ = independent_walk(loss)
    ran = []
    for n in nodes:
        n.register_hook(lambda gi, go, n=n: ran.append(n))
    loss.backward()
    return ran


def test_print_graph_lists_nodes_in_execution_order():
    net, loss = tutorial_loss()
    params = dict(net.named_parameters())
    buf = io.StringIO()
    nl.autograd.print_graph(loss, params=params, file=buf)
    lines = buf.getvalue().splitlines()
    nodes, _ = independent_walk(loss)
    assert lines[0] == f"backward tape of 1 tensor, {len(nodes)} nodes, in execution order:"
    printed = [re.match(r"\s*(\d+)\. (\S+)", line).group(2) for line in lines[1:]]
    ran = record_execution(loss)
    ops = [n.name() for n in ran if n.name() != "AccumulateGrad"]  # leaves run no node hooks
    assert [p.split("#")[0] for p in printed if "Backward" in p] == ops
    leaves = [p for p in printed if "Backward" not in p]
    assert sorted(leaves) == sorted(params)
    assert "<- output ()" in lines[1]
    assert any(
        re.search(
            r"conv1\.weight \(6, 1, 3, 3\) +<- ConvolutionBackward0#\d+ +-> conv1\.weight\.grad",
            line,
        )
        for line in lines
    )


def test_print_graph_goes_to_stdout(capsys):
    a = nl.tensor([1.0, 2.0], requires_grad=True)
    nl.autograd.print_graph((a * a).sum(), params={"a": a})
    out = capsys.readouterr().out
    assert "MulBackward0  <- SumBackward0  -> a (2,), a (2,)" in out


def test_render_writes_svg(tmp_path):
    pytest.importorskip("graphviz")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    net, loss = tutorial_loss()
    path = nl.autograd.to_dot(loss, params=dict(net.named_parameters())).render(
        tmp_path / "net.svg"
    )
    text = (tmp_path / "net.svg").read_text()
    assert (
        str(path).endswith("net.svg")
        and "<svg" in text
        and "conv1.weight" in text
        and "MseLossBackward0" in text
    )


def test_render_errors_name_what_to_install(tmp_path, monkeypatch):
    x = nl.tensor([1.0], requires_grad=True)
    dot = nl.autograd.to_dot(x * 2)
    pytest.importorskip("graphviz")
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot program
    with pytest.raises(RuntimeError, match="Graphviz's dot program"):
        dot.render(tmp_path / "g.svg")
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match=r"nnlite\[graph\]"):
        dot.render(tmp_path / "g.svg")


def test_bad_argument():
    with pytest.raises(TypeError, match="Tensor"):
        nl.autograd.to_dot([1, 2])
