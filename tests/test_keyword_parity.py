"""Every keyword PyTorch accepts is accepted by nnlite's name of the same name.

Over every name nnlite shares with ``torch``, ``torch.nn.functional`` and ``torch.Tensor``, PyTorch's
parameter names are read (``inspect.signature``, or for a builtin the signature line of its
docstring) and each one nnlite's signature lacks is reported. Docstring lines sometimes name a
parameter PyTorch itself refuses as a keyword (an old name such as ``Tensor.div(value)``); those are
listed in ``DOCSTRING_ARTIFACTS``, and each entry is checked against PyTorch: the positional call
works and the keyword call raises ``TypeError``, so an entry cannot hide a real keyword. nnlite must
refuse those keywords too.
"""

import inspect
import keyword
import re

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as NF

torch = pytest.importorskip("torch", reason="PyTorch's signatures are the reference")
TF = torch.nn.functional

_SIGNATURE_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*)\((.*?)\)\s*(->.*)?$", re.M)


def _docstring_params(obj, name):
    for match in _SIGNATURE_LINE.finditer((obj.__doc__ or "")[:600]):
        if match.group(1).split(".")[-1] != name:
            continue
        params = []
        for part in match.group(2).split(","):
            part = part.split("=")[0].split(":")[0].strip()
            # "*", "/", "*args" and the reST-escaped "\*" mark argument kinds, not names.
            if part and not part.lstrip("\\").startswith(("*", "/")):
                params.append(part)
        return [p for p in params if p != "self"]
    return None


def torch_params(obj, name):
    """PyTorch's parameter names of ``obj`` (None when they cannot be read)."""
    try:
        sig = inspect.signature(obj)
    except (ValueError, TypeError):
        return _docstring_params(obj, name)
    skip = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    return [p.name for p in sig.parameters.values() if p.kind not in skip and p.name != "self"]


def nnlite_params(obj):
    """The keywords nnlite's ``obj`` accepts (None: unreadable, or it takes any ``**kwargs``).

    A PyTorch keyword that is a Python keyword (``from``) is spelled ``from_`` in the signature and
    taken through ``**kwargs``; such a signature counts as accepting ``from``."""
    try:
        params = inspect.signature(obj).parameters.values()
    except (ValueError, TypeError):
        return None
    names = {p.name for p in params}
    if any(p.kind == p.VAR_KEYWORD for p in params):
        spelled = {n[:-1] for n in names if keyword.iskeyword(n[:-1])}
        return (names | spelled) if spelled else None
    return names


def _shared_names():
    """(label, PyTorch's object, nnlite's object, name) for every callable both define."""
    for tmod, nmod, label in ((torch, nl, "torch"), (TF, NF, "F")):
        for name in dir(tmod):
            if name.startswith("_") or not hasattr(nmod, name):
                continue
            t, n = getattr(tmod, name), getattr(nmod, name)
            if callable(t) and not inspect.isclass(t) and not inspect.isclass(n):
                yield f"{label}.{name}", t, n, name
    for name in dir(torch.Tensor):
        if name.startswith("_") or not hasattr(nl.Tensor, name):
            continue
        if isinstance(inspect.getattr_static(nl.Tensor, name), property):
            continue
        t = getattr(torch.Tensor, name)
        if callable(t):
            yield f"Tensor.{name}", t, getattr(nl.Tensor, name), name


def missing_keywords():
    """{label: [PyTorch's parameter names nnlite's signature lacks]}."""
    report = {}
    for label, t, n, name in _shared_names():
        wanted, accepted = torch_params(t, name), nnlite_params(n)
        if wanted is None or accepted is None:
            continue
        missing = [p for p in wanted if p not in accepted]
        if missing:
            report[label] = missing
    return report


def _tensor():
    return torch.ones(2, 2)


def _method(name, args, keywords, receiver=_tensor):
    """A probe calling ``receiver().name``: positionally with ``args``, or with ``keywords``."""
    return lambda kw: (
        getattr(receiver(), name)(**keywords) if kw else getattr(receiver(), name)(*args)
    )


def _function(fn, args, keywords):
    """A probe calling ``fn()`` positionally with ``args`` (None: no positional check)."""

    def probe(kw):
        if kw:
            return fn()(**keywords)
        return None if args is None else fn()(*args)

    return probe


# Parameter names from PyTorch's docstring signature lines that PyTorch refuses as keywords.
# Each: (label, parameter) -> probe(keyword: bool) calling PyTorch positionally or by that keyword.
DOCSTRING_ARTIFACTS = {
    # Functions bound with METH_O / no keyword support at all.
    ("torch.from_numpy", "ndarray"): _function(
        lambda: torch.from_numpy,
        (__import__("numpy").ones(2),),
        {"ndarray": __import__("numpy").ones(2)},
    ),
    ("torch.set_num_threads", "int"): _function(
        lambda: torch.set_num_threads, (torch.get_num_threads(),), {"int": torch.get_num_threads()}
    ),
    ("torch.set_num_interop_threads", "int"): _function(
        # set_num_interop_threads(n) refuses to run once parallel work started
        lambda: torch.set_num_interop_threads,
        None,
        {"int": 1},
    ),
    ("Tensor.frexp", "input"): _method("frexp", (), {"input": _tensor()}),
    # The docstring names the arguments tensor1/tensor2; the real ones are tensor/other.
    ("torch.result_type", "tensor1"): _function(
        lambda: torch.result_type,
        (_tensor(), _tensor()),
        {"tensor1": _tensor(), "tensor2": _tensor()},
    ),
    ("torch.result_type", "tensor2"): _function(
        lambda: torch.result_type,
        (_tensor(), _tensor()),
        {"tensor1": _tensor(), "tensor2": _tensor()},
    ),
    # Old argument names in Tensor method docstrings; the real keyword is in the comment.
    ("Tensor.bmm", "batch2"): _method(  # mat2
        "bmm", (torch.ones(1, 2, 2),), {"batch2": torch.ones(1, 2, 2)}, lambda: torch.ones(1, 2, 2)
    ),
    ("Tensor.broadcast_to", "shape"): _method("broadcast_to", ((2, 2),), {"shape": (2, 2)}),  # size
    ("Tensor.div", "value"): _method("div", (2,), {"value": 2}),  # other
    ("Tensor.divide", "value"): _method("divide", (2,), {"value": 2}),  # other
    ("Tensor.floor_divide", "value"): _method("floor_divide", (2,), {"value": 2}),  # other
    ("Tensor.true_divide", "value"): _method("true_divide", (2,), {"value": 2}),  # other
    ("Tensor.mul", "value"): _method("mul", (2,), {"value": 2}),  # other
    ("Tensor.multiply", "value"): _method("multiply", (2,), {"value": 2}),  # other
    ("Tensor.fmod", "divisor"): _method("fmod", (2,), {"divisor": 2}),  # other
    ("Tensor.remainder", "divisor"): _method("remainder", (2,), {"divisor": 2}),  # other
    ("Tensor.dot", "other"): _method(  # tensor
        "dot", (torch.ones(2),), {"other": torch.ones(2)}, lambda: torch.ones(2)
    ),
    ("Tensor.dsplit", "split_size_or_sections"): _method(  # sections / indices
        "dsplit", (2,), {"split_size_or_sections": 2}, lambda: torch.ones(2, 2, 2)
    ),
    ("Tensor.hsplit", "split_size_or_sections"): _method(
        "hsplit", (2,), {"split_size_or_sections": 2}
    ),
    ("Tensor.vsplit", "split_size_or_sections"): _method(
        "vsplit", (2,), {"split_size_or_sections": 2}
    ),
    ("Tensor.histogram", "input"): _method("histogram", (), {"input": _tensor()}),  # self only
    ("Tensor.index_copy", "tensor2"): _method(  # source
        "index_copy",
        (0, torch.tensor([0, 1]), _tensor()),
        {"dim": 0, "index": torch.tensor([0, 1]), "tensor2": _tensor()},
    ),
    ("Tensor.masked_scatter", "tensor"): _method(  # source
        "masked_scatter", (_tensor() > 0, _tensor()), {"mask": _tensor() > 0, "tensor": _tensor()}
    ),
    ("Tensor.matmul", "tensor2"): _method("matmul", (_tensor(),), {"tensor2": _tensor()}),  # other
    ("Tensor.narrow", "dimension"): _method(  # dim
        "narrow", (0, 0, 1), {"dimension": 0, "start": 0, "length": 1}
    ),
    ("Tensor.put", "input"): _method(  # self only
        "put",
        (torch.tensor([0]), torch.ones(1)),
        {"input": _tensor(), "index": torch.tensor([0]), "source": torch.ones(1)},
    ),
    ("Tensor.resize_as_", "tensor"): _method(
        "resize_as_", (_tensor(),), {"tensor": _tensor()}
    ),  # the_template
    ("Tensor.take", "indices"): _method(
        "take", (torch.tensor([0]),), {"indices": torch.tensor([0])}
    ),  # index
    ("Tensor.type_as", "tensor"): _method("type_as", (_tensor(),), {"tensor": _tensor()}),  # other
    ("Tensor.where", "y"): _method(  # other
        "where", (_tensor() > 0, _tensor()), {"condition": _tensor() > 0, "y": _tensor()}
    ),
    # new_tensor's docstring lists layout and pin_memory; its binding takes only
    # dtype/device/requires_grad.
    ("Tensor.new_tensor", "layout"): _method(
        "new_tensor", ([1.0],), {"data": [1.0], "layout": torch.strided}
    ),
    ("Tensor.new_tensor", "pin_memory"): _method(
        "new_tensor", ([1.0],), {"data": [1.0], "pin_memory": False}
    ),
}


def test_every_pytorch_keyword_is_accepted():
    report = missing_keywords()
    unexplained = {
        label: [p for p in params if (label, p) not in DOCSTRING_ARTIFACTS]
        for label, params in report.items()
    }
    unexplained = {label: params for label, params in unexplained.items() if params}
    assert not unexplained, "nnlite lacks PyTorch keywords:\n" + "\n".join(
        f"{label}: {params}" for label, params in sorted(unexplained.items())
    )


@pytest.mark.parametrize("entry", sorted(DOCSTRING_ARTIFACTS), ids="{0[0]}-{0[1]}".format)
def test_docstring_artifact_is_refused_by_pytorch_and_nnlite(entry):
    probe = DOCSTRING_ARTIFACTS[entry]
    probe(False)  # the positional form works, so the failure below is the keyword's
    with pytest.raises(TypeError):
        probe(True)
    label, param = entry
    assert param in missing_keywords().get(label, ()), f"nnlite accepts {label}({param}=...)"


def test_from_keyword_of_the_random_fills():
    x = nl.zeros(50).uniform_(**{"from": 2.0, "to": 3.0})
    assert bool(((x >= 2) & (x < 3)).all())
    assert nl.zeros(4).random_(**{"from": 5, "to": 6}).tolist() == [5.0] * 4
    with pytest.raises(TypeError, match="unexpected keyword argument 'frm'"):
        nl.zeros(2).uniform_(frm=1)


def test_generator_keyword_draws_from_the_given_generator():
    def draws(fill):
        return fill(nl.zeros(5), nl.Generator().manual_seed(7)).tolist()

    for fill in (
        lambda x, g: x.uniform_(generator=g),
        lambda x, g: x.normal_(generator=g),
        lambda x, g: x.bernoulli_(0.5, generator=g),
        lambda x, g: x.exponential_(generator=g),
        lambda x, g: nl.rand_like(x, generator=g),
        lambda x, g: nl.randn_like(x, generator=g),
    ):
        assert draws(fill) == draws(fill)


def test_creation_keywords_as_pytorch_on_cpu():
    out = nl.empty(3)
    assert nl.arange(3, out=out) is out and out.tolist() == [0.0, 1.0, 2.0]
    assert nl.zeros_like(input=nl.ones(2), layout=None).tolist() == [0.0, 0.0]
    assert nl.ones(2).new_zeros(2, pin_memory=False).tolist() == [0.0, 0.0]
    for make in (lambda: torch.empty(2, pin_memory=True), lambda: nl.empty(2, pin_memory=True)):
        with pytest.raises(RuntimeError, match="pin_memory=True requires"):
            make()
    for make in (lambda: torch.zeros(2, layout="strided"), lambda: nl.zeros(2, layout="strided")):
        with pytest.raises(TypeError, match="argument 'layout' must be torch.layout, not str"):
            make()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("loss", ["l1_loss", "mse_loss"])
def test_weighted_l1_and_mse_loss_as_pytorch(loss, reduction):
    rng = np.random.default_rng(0)
    x, y, w = rng.random((3, 2, 3))
    got = getattr(NF, loss)(nl.tensor(x), nl.tensor(y), reduction=reduction, weight=nl.tensor(w))
    want = getattr(TF, loss)(
        torch.tensor(x), torch.tensor(y), reduction=reduction, weight=torch.tensor(w)
    )
    np.testing.assert_allclose(got.detach().numpy(), want.numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        getattr(NF, loss)(nl.tensor(x), nl.tensor(y), weight=nl.ones(3))


def test_weighted_loss_gradients():
    rng = np.random.default_rng(1)
    x = nl.tensor(rng.random((2, 3)), requires_grad=True)
    y, w = nl.tensor(rng.random((2, 3))), nl.tensor(rng.random((2, 3)))
    for loss in (NF.l1_loss, NF.mse_loss):
        assert nl.autograd.gradcheck(lambda a, loss=loss: loss(a, y, weight=w), (x,))
    assert nl.autograd.gradgradcheck(lambda a: NF.mse_loss(a, y, weight=w), (x,))


def test_pickle_keywords_of_save_and_load(tmp_path):
    import pickle

    path = tmp_path / "ckpt.pth"
    nl.save({"a": nl.ones(2)}, path, pickle_module=pickle, pickle_protocol=2)
    assert nl.load(path, pickle_module=pickle)["a"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="explicit pickle_module"):
        nl.load(path, pickle_module=pickle, weights_only=True)
    with pytest.raises(ValueError, match="pickle_protocol=2"):
        nl.save({"a": nl.ones(2)}, path, pickle_protocol=4)


@pytest.mark.parametrize(
    "name, args",
    [("logspace", (0, 2, 3)), ("arange", (0, 1, 0.25)), ("fft.fftfreq", (4,)), ("eye", (2, 3))],
)
def test_out_receives_pytorch_values(name, args):
    def resolve(module):
        for part in name.split("."):
            module = getattr(module, part)
        return module

    want = resolve(torch)(*args)
    out = nl.empty(0)
    assert resolve(nl)(*args, out=out) is out
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6)
