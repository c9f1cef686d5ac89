"""Module behaviour: registration, iteration, state_dict / load_state_dict (PyTorch's key order and
error messages), train/eval, zero_grad, freeze/unfreeze, apply, to(), hooks, containers, repr, and
the errors layers raise for wrong input."""

import copy
from collections import OrderedDict

import numpy as np
import pytest

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn
from nnlite.nn import Parameter


def torch_or_skip():
    return pytest.importorskip("torch")


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.bn = nn.BatchNorm2d(3)
        self.register_buffer("scale", nl.ones(1))
        self.register_buffer("scratch", nl.zeros(2), persistent=False)
        self.alpha = Parameter(nl.tensor([0.5]))

    def forward(self, x):
        return self.bn(self.conv(x)) * self.alpha * self.scale


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.head_bias = Parameter(nl.zeros(4))
        self.block = Block()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(3, 4)

    def forward(self, x):
        return self.fc(self.pool(self.block(x)).flatten(1)) + self.head_bias


def torch_model(torch):
    tnn = torch.nn

    class Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tnn.Conv2d(2, 3, 3, padding=1)
            self.bn = tnn.BatchNorm2d(3)
            self.register_buffer("scale", torch.ones(1))
            self.register_buffer("scratch", torch.zeros(2), persistent=False)
            self.alpha = tnn.Parameter(torch.tensor([0.5]))

    class Model(tnn.Module):
        def __init__(self):
            super().__init__()
            self.head_bias = tnn.Parameter(torch.zeros(4))
            self.block = Block()
            self.pool = tnn.AdaptiveAvgPool2d(1)
            self.fc = tnn.Linear(3, 4)

    return Model()


# ------------------------------------------------------------------------------------ registration


def test_registration_order_and_names():
    m = Model()
    assert [n for n, _ in m.named_parameters()] == [
        "head_bias",
        "block.alpha",
        "block.conv.weight",
        "block.conv.bias",
        "block.bn.weight",
        "block.bn.bias",
        "fc.weight",
        "fc.bias",
    ]
    assert [n for n, _ in m.named_buffers()] == [
        "block.scale",
        "block.scratch",
        "block.bn.running_mean",
        "block.bn.running_var",
        "block.bn.num_batches_tracked",
    ]
    assert [n for n, _ in m.named_children()] == ["block", "pool", "fc"]
    assert [n for n, _ in m.named_modules()] == [
        "",
        "block",
        "block.conv",
        "block.bn",
        "pool",
        "fc",
    ]
    assert [n for n, _ in m.named_parameters(prefix="model", recurse=False)] == ["model.head_bias"]
    assert len(list(m.parameters(recurse=False))) == 1
    assert all(isinstance(p, Parameter) for p in m.parameters())


def test_same_order_as_torch():
    torch = torch_or_skip()
    ours, theirs = Model(), torch_model(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert repr(ours) == repr(theirs)


def test_shared_parameters_and_modules_listed_once():
    fc = nn.Linear(3, 3)
    m = nn.Sequential(fc, nn.ReLU(), fc)
    assert len(list(m.parameters())) == 2
    assert [n for n, _ in m.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(m.modules())) == 3
    assert len(list(m.named_parameters(remove_duplicate=False))) == 4
    other = nn.Linear(3, 3)
    other.weight = fc.weight
    pair = nn.ModuleList([fc, other])
    assert [n for n, _ in pair.named_parameters()] == ["0.weight", "0.bias", "1.bias"]


def test_attribute_routing_and_deletion():
    m = nn.Module()
    p = Parameter(nl.ones(2))
    m.w = p
    assert m.w is p and m._parameters["w"] is p and "w" not in m.__dict__
    m.sub = nn.Linear(2, 2)
    assert "sub" in m._modules
    m.register_buffer("buf", nl.zeros(1))
    m.buf = nl.ones(1)
    assert m._buffers["buf"].item() == 1
    m.w = None
    assert m._parameters["w"] is None and m.w is None
    del m.sub
    assert "sub" not in m._modules
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'sub'"):
        _ = m.sub
    m.plain = 3
    assert m.__dict__["plain"] == 3
    # a plain attribute replaced by a parameter moves into _parameters
    m.plain = Parameter(nl.ones(1))
    assert "plain" in m._parameters and "plain" not in m.__dict__


SETATTR_ERRORS = [
    (
        "param_as_tensor",
        lambda lib, m: m.register_parameter("w", None) or setattr(m, "w", lib.ones(2)),
    ),
    ("module_slot_as_int", lambda lib, m: m.add_module("c", None) or setattr(m, "c", 3)),
    ("buffer_as_list", lambda lib, m: m.register_buffer("b", lib.ones(1)) or setattr(m, "b", [1])),
    ("dotted_buffer", lambda lib, m: m.register_buffer("a.b", lib.ones(1))),
    ("empty_buffer", lambda lib, m: m.register_buffer("", lib.ones(1))),
    (
        "existing_attr_buffer",
        lambda lib, m: setattr(m, "x", 1) or m.register_buffer("x", lib.ones(1)),
    ),
    ("buffer_not_tensor", lambda lib, m: m.register_buffer("b", 3)),
    ("param_not_param", lambda lib, m: m.register_parameter("p", lib.ones(1))),
    ("dotted_param", lambda lib, m: m.register_parameter("a.b", None)),
    ("add_module_not_module", lambda lib, m: m.add_module("a", 3)),
    ("dotted_module", lambda lib, m: m.add_module("a.b", None)),
    ("nonstring_param", lambda lib, m: m.register_parameter(3, None)),
]


@pytest.mark.parametrize("name,action", SETATTR_ERRORS, ids=[e[0] for e in SETATTR_ERRORS])
def test_registration_errors_match_torch(name, action):
    torch = torch_or_skip()
    with pytest.raises(Exception) as expected:
        action(torch, torch.nn.Module())
    with pytest.raises(expected.type) as got:
        action(nl, nn.Module())
    want = (
        str(expected.value)
        .replace("torch.nn.", "nnlite.nn.")
        .replace("torch.", "nnlite.")
        .replace("torch Tensor", "nnlite Tensor")
    )
    assert str(got.value) == want


def test_non_leaf_parameter_and_missing_init():
    x = nl.ones(2, requires_grad=True)

    class Bad(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(
        AttributeError, match=r"cannot assign module before Module.__init__\(\) call"
    ):
        Bad()
    p = Parameter(nl.ones(2))
    p2 = x * 2
    m = nn.Module()
    with pytest.raises(TypeError):
        m.register_parameter("p", p2)
    m.register_parameter("p", p)
    assert m.p is p


def test_buffer_assignment():
    m = nn.Module()
    m.total = nn.Buffer(nl.zeros(2))
    m.tmp = nn.Buffer(nl.ones(1), persistent=False)
    assert list(m._buffers) == ["total", "tmp"] and list(m.state_dict()) == ["total"]
    m.total = nl.ones(2)
    assert m.total.tolist() == [1.0, 1.0]


def test_parameter_basics():
    p = Parameter(nl.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert (
        repr(Parameter(nl.tensor([1.0]), requires_grad=False))
        == "Parameter containing:\ntensor([1.])"
    )
    assert p.is_leaf and p.requires_grad
    base = nl.zeros(3)
    q = Parameter(base)
    q.data.add_(1)
    assert base.tolist() == [1.0, 1.0, 1.0]  # shares memory
    assert Parameter().shape == (0,)
    c = copy.deepcopy(q)
    assert (
        isinstance(c, Parameter)
        and c.requires_grad
        and not np.shares_memory(c.detach().numpy(), base.numpy())
    )
    import pickle

    r = pickle.loads(pickle.dumps(q))
    assert isinstance(r, Parameter) and r.tolist() == q.tolist()


# ------------------------------------------------------------------------------------ state dict


def test_state_dict_detached_and_shares_memory():
    m = Model()
    sd = m.state_dict()
    assert list(sd) == [
        "head_bias",
        "block.alpha",
        "block.scale",
        "block.conv.weight",
        "block.conv.bias",
        "block.bn.weight",
        "block.bn.bias",
        "block.bn.running_mean",
        "block.bn.running_var",
        "block.bn.num_batches_tracked",
        "fc.weight",
        "fc.bias",
    ]
    assert "block.scratch" not in sd
    w = sd["fc.weight"]
    assert not w.requires_grad and w.grad_fn is None and not isinstance(w, Parameter)
    with nl.no_grad():
        m.fc.weight.mul_(2)
    assert np.array_equal(w.numpy(), m.fc.weight.detach().numpy())
    kept = m.state_dict(keep_vars=True)
    assert kept["fc.weight"] is m.fc.weight


def test_load_state_dict_copies_in_place():
    a, b = Model(), Model()
    weight = b.fc.weight
    result = b.load_state_dict(a.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.fc.weight is weight
    for (ka, va), (kb, vb) in zip(a.state_dict().items(), b.state_dict().items()):
        assert ka == kb and np.array_equal(va.numpy(), vb.numpy())
    # arrays from a checkpoint file are accepted too
    b.load_state_dict({k: v.numpy().copy() for k, v in a.state_dict().items()})


def _broken_state(sd):
    sd = OrderedDict(sd)
    del sd["block.conv.bias"]
    del sd["fc.bias"]
    sd["fc.extra"] = sd["fc.weight"]
    sd["unknown.weight"] = sd["fc.weight"]
    sd["block.bn.weight"] = sd["block.bn.weight"][:2]
    sd["head_bias"] = sd["head_bias"].reshape(2, 2)
    return sd


def test_load_state_dict_strict_error_matches_torch():
    torch = torch_or_skip()
    ours, theirs = Model(), torch_model(torch)
    with pytest.raises(RuntimeError) as expected:
        theirs.load_state_dict(_broken_state(theirs.state_dict()))
    with pytest.raises(RuntimeError) as got:
        ours.load_state_dict(_broken_state(ours.state_dict()))
    assert str(got.value) == str(expected.value).replace("torch.Size", "nnlite.Size")
    text = str(got.value)
    assert text.startswith(
        "Error(s) in loading state_dict for Model:\n\tMissing key(s) in state_dict: "
        '"block.conv.bias", "fc.bias". \n\tUnexpected key(s) in state_dict: "unknown.weight", '
        '"fc.extra". \n\tsize mismatch for head_bias: '
    )
    assert (
        "size mismatch for block.bn.weight: copying a param with shape nnlite.Size([2]) from checkpoint, the "
        "shape in current model is nnlite.Size([3])."
    ) in text


def test_load_state_dict_non_strict_reports_keys():
    torch = torch_or_skip()
    ours, theirs = Model(), torch_model(torch)
    sd_ours, sd_theirs = ours.state_dict(), theirs.state_dict()
    for sd in (sd_ours, sd_theirs):
        del sd["fc.bias"]
        sd["extra"] = sd["fc.weight"]
    a = ours.load_state_dict(sd_ours, strict=False)
    b = theirs.load_state_dict(sd_theirs, strict=False)
    assert a.missing_keys == b.missing_keys == ["fc.bias"]
    assert a.unexpected_keys == b.unexpected_keys == ["extra"]
    assert repr(a) == repr(b).replace("IncompatibleKeys", "IncompatibleKeys")
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        ours.load_state_dict([1, 2])


def test_batchnorm_state_without_num_batches_tracked_loads():
    bn = nn.BatchNorm2d(3)
    sd = bn.state_dict()
    del sd["num_batches_tracked"]
    assert nn.BatchNorm2d(3).load_state_dict(sd).missing_keys == []


# ------------------------------------------------------------------------------------ modes and grads


def test_train_eval_recurse_and_return_self():
    m = Model()
    assert m.training and m.block.bn.training
    assert m.eval() is m
    assert not any(x.training for x in m.modules())
    assert m.train() is m and all(x.training for x in m.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        m.train("yes")


def test_dropout_train_and_eval():
    d = nn.Dropout(0.25)
    x = nl.ones(200, 50)
    y = d(x)
    zeros = float((y.numpy() == 0).mean())
    assert 0.2 < zeros < 0.3
    assert np.allclose(y.numpy()[y.numpy() != 0], 1 / 0.75)
    d.eval()
    assert d(x) is x
    xr = nl.ones(10, requires_grad=True)
    nl.manual_seed(3)
    out = nn.Dropout(0.5)(xr)
    out.sum().backward()
    assert np.array_equal(xr.grad.numpy(), out.detach().numpy())
    assert nn.Dropout(1.0)(nl.ones(3)).tolist() == [0, 0, 0]
    nl.manual_seed(5)
    a = nn.Dropout()(x).numpy()
    nl.manual_seed(5)
    assert np.array_equal(a, nn.Dropout()(x).numpy())  # reproducible with nl.manual_seed
    y = nl.ones(4, 4) * 1.0
    nn.Dropout(0.5, inplace=True)(y)
    assert set(np.unique(y.numpy())) <= {0.0, 2.0}


def test_batchnorm_train_vs_eval_output():
    bn = nn.BatchNorm1d(2)
    x = nl.tensor([[1.0, 10.0], [3.0, 30.0], [5.0, 50.0]])
    y = bn(x).detach()
    assert np.allclose(y.numpy().mean(0), 0, atol=1e-6)
    assert np.allclose(bn.running_mean.numpy(), [0.3, 3.0])
    bn.eval()
    y = bn(x).detach()
    expected = (x.numpy() - bn.running_mean.numpy()) / np.sqrt(bn.running_var.numpy() + 1e-5)
    assert np.allclose(y.numpy(), expected, atol=1e-5)
    assert int(bn.num_batches_tracked.item()) == 1
    with pytest.raises(
        ValueError,
        match=r"Expected more than 1 value per channel when training, got input size "
        r"nnlite.Size\(\[1, 2\]\)",
    ):
        nn.BatchNorm1d(2)(nl.ones(1, 2))


def test_zero_grad_and_requires_grad():
    m = Model()
    m(nl.randn(2, 2, 4, 4)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.numpy().any() for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    assert m.requires_grad_(False) is m
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    assert all(p.requires_grad for p in m.parameters())


def test_freeze_unfreeze():
    m = Model()
    assert m.freeze() is m
    assert not any(p.requires_grad for p in m.parameters())
    m.unfreeze("fc", "block.alpha")
    assert [n for n, p in m.named_parameters() if p.requires_grad] == [
        "block.alpha",
        "fc.weight",
        "fc.bias",
    ]
    m.unfreeze()
    m.freeze("block.conv", "head_bias")
    assert [n for n, p in m.named_parameters() if not p.requires_grad] == [
        "head_bias",
        "block.conv.weight",
        "block.conv.bias",
    ]
    with pytest.raises(
        KeyError, match="freeze\\(\\): Model has no submodule or parameter named 'blok'"
    ):
        m.freeze("blok")
    with pytest.raises(KeyError, match="'fc.wieght'"):
        m.unfreeze("fc.wieght")


def test_frozen_parameters_get_no_gradient_and_skip_the_work(monkeypatch):
    from nnlite.nn import kernels

    calls = []
    original = kernels.conv2d_backward_weight

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(kernels, "conv2d_backward_weight", counting)
    m = Model()
    m.freeze("block.conv")
    m(nl.randn(2, 2, 4, 4)).sum().backward()
    assert m.block.conv.weight.grad is None and m.block.conv.bias.grad is None
    assert m.block.bn.weight.grad is not None
    assert calls == []
    m.unfreeze()
    m(nl.randn(2, 2, 4, 4)).sum().backward()
    assert len(calls) == 1


def test_apply_order_and_init():
    m = Model()
    seen = []
    assert m.apply(lambda mod: seen.append(type(mod).__name__)) is m
    assert seen == ["Conv2d", "BatchNorm2d", "Block", "AdaptiveAvgPool2d", "Linear", "Model"]

    def init_weights(mod):
        if isinstance(mod, nn.Linear):
            nn.init.zeros_(mod.weight)

    m.apply(init_weights)
    assert not m.fc.weight.detach().numpy().any()


def test_to_dtype_keeps_parameter_identity():
    m = Model()
    weight = m.fc.weight
    m(nl.randn(2, 2, 4, 4)).sum().backward()
    assert m.to(nl.float64) is m
    assert m.fc.weight is weight and weight.dtype == nl.float64 and weight.grad.dtype == nl.float64
    assert m.block.bn.running_mean.dtype == nl.float64
    assert m.block.bn.num_batches_tracked.dtype == nl.int64
    out = m(nl.randn(2, 2, 4, 4, dtype=nl.float64))
    assert out.dtype == nl.float64
    m.float()
    assert weight.dtype == nl.float32 and m.block.scale.dtype == nl.float32
    m.double()
    assert weight.dtype == nl.float64
    assert (
        m.to("cpu") is m
        and m.to(device="cpu", dtype=nl.float32) is m
        and weight.dtype == nl.float32
    )
    with pytest.raises(RuntimeError, match="cuda"):
        m.to("cuda")
    with pytest.raises(
        TypeError,
        match=r"nn.Module.to only accepts floating point or complex dtypes, but got desired "
        r"dtype=nnlite.int64",
    ):
        m.to(nl.int64)


def test_forward_hooks():
    m = nn.Linear(2, 2)
    x = nl.ones(1, 2)
    pre = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    assert np.allclose(m(x).detach().numpy(), m.bias.detach().numpy())
    pre.remove()
    calls = []
    h = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out * 0 + 7)
    assert m(x).tolist() == [[7.0, 7.0]] and calls == [(1, 2)]
    h.remove()
    assert m(x).tolist() != [[7.0, 7.0]]
    h = m.register_forward_hook(lambda mod, args, kwargs, out: out + 1, with_kwargs=True)
    h2 = m.register_forward_hook(lambda mod, args, out: out * 0, prepend=True)
    assert m(x).tolist() == [[1.0, 1.0]]
    h.remove()
    h2.remove()


def test_forward_missing():
    with pytest.raises(
        NotImplementedError, match='Module \\[Module\\] is missing the required "forward" function'
    ):
        nn.Module()(1)


# ------------------------------------------------------------------------------------ containers


def test_sequential():
    layers = [nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2)]
    s = nn.Sequential(*layers)
    assert len(s) == 3 and list(s) == layers and s[0] is layers[0] and s[-1] is layers[2]
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == layers[1:]
    assert [n for n, _ in s[1:].named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    out = s(nl.randn(5, 4))
    assert out.shape == (5, 2)
    s.append(nn.Tanh())
    assert len(s) == 4 and isinstance(s[3], nn.Tanh)
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 2)), ("act", nn.Sigmoid())]))
    assert named.fc is named[0] and [n for n, _ in named.named_children()] == ["fc", "act"]
    del s[1]
    assert [n for n, _ in s.named_children()] == ["0", "1", "2"] and isinstance(s[1], nn.Linear)
    s[0] = nn.Identity()
    assert isinstance(s[0], nn.Identity)


def test_modulelist_and_moduledict():
    ml = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    assert len(ml) == 3 and len(list(ml.parameters())) == 6
    ml.append(nn.ReLU())
    ml.extend([nn.Tanh()])
    assert len(ml) == 5 and isinstance(ml[-1], nn.Tanh)
    assert isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    md = nn.ModuleDict({"a": nn.Linear(2, 2), "b": nn.ReLU()})
    assert list(md.keys()) == ["a", "b"] and "a" in md and len(md) == 2
    md["c"] = nn.Tanh()
    assert [n for n, _ in md.named_children()] == ["a", "b", "c"]
    assert len(list(md.parameters())) == 2
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable"):
        ml.extend(nn.ReLU())


def test_container_reprs_match_torch():
    torch = torch_or_skip()

    def build(lib):
        return lib.Sequential(
            OrderedDict(
                [
                    (
                        "features",
                        lib.Sequential(
                            lib.Conv2d(3, 8, 3, padding=1, bias=False),
                            lib.BatchNorm2d(8),
                            lib.ReLU(inplace=True),
                            lib.MaxPool2d(2),
                        ),
                    ),
                    (
                        "blocks",
                        lib.ModuleList([lib.Linear(8, 8) for _ in range(3)] + [lib.Dropout(0.1)]),
                    ),
                    ("heads", lib.ModuleDict({"cls": lib.Linear(8, 10), "aux": lib.Identity()})),
                    ("empty", lib.ModuleList()),
                    ("pool", lib.AdaptiveAvgPool2d((1, 1))),
                    ("avg", lib.AvgPool2d(3, stride=2, padding=1)),
                    ("flat", lib.Flatten()),
                    (
                        "acts",
                        lib.Sequential(
                            lib.Sigmoid(), lib.Tanh(), lib.Softmax(dim=1), lib.LogSoftmax(dim=-1)
                        ),
                    ),
                    (
                        "losses",
                        lib.ModuleList(
                            [
                                lib.MSELoss(),
                                lib.L1Loss(),
                                lib.NLLLoss(),
                                lib.CrossEntropyLoss(),
                                lib.BCEWithLogitsLoss(),
                            ]
                        ),
                    ),
                    (
                        "convs",
                        lib.Sequential(
                            lib.Conv2d(
                                2,
                                4,
                                (3, 1),
                                stride=(2, 1),
                                padding="same" if False else 0,
                                dilation=2,
                                groups=2,
                            ),
                            lib.Conv2d(4, 4, 3, padding="same"),
                            lib.BatchNorm1d(4, momentum=None, affine=False),
                        ),
                    ),
                ]
            )
        )

    assert repr(build(nn)) == repr(build(torch.nn))


# ------------------------------------------------------------------------------------ wrong input


def test_linear_wrong_input_names_layer_and_shapes():
    with pytest.raises(RuntimeError) as e:
        nn.Linear(400, 120)(nl.randn(4, 576))
    assert str(e.value) == (
        "Linear(in_features=400, out_features=120, bias=True): expected input with last "
        "dimension 400, got shape (4, 576)"
    )
    with pytest.raises(
        RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(4x576 and 400x120\)"
    ):
        F.linear(nl.randn(4, 576), nl.randn(120, 400), nl.randn(120))
    with pytest.raises(TypeError, match="Linear.*expected a Tensor as input, got ndarray"):
        nn.Linear(2, 2)(np.ones((1, 2)))


def test_layer_errors_contain_torchs_message():
    torch = torch_or_skip()
    cases = [
        (
            lambda lib, ones: lib.Conv2d(3, 6, 5)(ones(4, 1, 32, 32)),
            "Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1)): ",
        ),
        (
            lambda lib, ones: lib.Conv2d(3, 6, 5)(ones(4, 576)),
            "Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1)): ",
        ),
        (
            lambda lib, ones: lib.Conv2d(3, 6, 5)(ones(4, 3, 4, 4)),
            "Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1)): ",
        ),
        (
            lambda lib, ones: lib.MaxPool2d(2)(ones(1, 16, 1, 1)),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False): ",
        ),
        (
            lambda lib, ones: lib.MaxPool2d(2)(ones(16, 1)),
            "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False): ",
        ),
        (
            lambda lib, ones: lib.AvgPool2d(2)(ones(1, 16, 1, 1)),
            "AvgPool2d(kernel_size=2, stride=2, padding=0): ",
        ),
        (lambda lib, ones: lib.BatchNorm2d(3)(ones(2, 4, 2, 2)), "BatchNorm2d(3, "),
    ]
    for action, prefix in cases:
        with pytest.raises(Exception) as expected:
            action(torch.nn, torch.ones)
        with pytest.raises(expected.type) as got:
            action(nn, nl.ones)
        assert str(got.value).startswith(prefix), str(got.value)
        assert str(got.value).endswith(str(expected.value)), (str(got.value), str(expected.value))


@pytest.mark.parametrize(
    "action",
    [
        lambda lib: lib.Conv2d(3, 6, 5, padding="foo"),
        lambda lib: lib.Conv2d(3, 6, 5, stride=2, padding="same"),
        lambda lib: lib.Conv2d(3, 6, 5, groups=2),
        lambda lib: lib.Conv2d(4, 6, 5, groups=4),
        lambda lib: lib.Conv2d(4, 8, 5, groups=0),
        lambda lib: lib.Conv2d(4, 8, 5, padding_mode="foo"),
        lambda lib: lib.Dropout(1.5),
        lambda lib: lib.BatchNorm2d(3)(lib_ones(lib)(4, 3)),
        lambda lib: lib.BatchNorm1d(3)(lib_ones(lib)(4, 3, 2, 2)),
        lambda lib: lib.CrossEntropyLoss()(lib_ones(lib)(4, 10), lib_tensor(lib)([1, 2, 3, 10])),
        lambda lib: lib.CrossEntropyLoss()(lib_ones(lib)(4, 10), lib_tensor(lib)([1, 2, 3])),
        lambda lib: lib.CrossEntropyLoss()(lib_ones(lib)(4, 10), lib_tensor(lib)([1.0, 2, 3, 4])),
        lambda lib: lib.CrossEntropyLoss(label_smoothing=1.5)(
            lib_ones(lib)(4, 10), lib_tensor(lib)([1, 2, 3, 4])
        ),
        lambda lib: lib.CrossEntropyLoss(weight=lib_ones(lib)(9))(
            lib_ones(lib)(4, 10), lib_tensor(lib)([1, 2, 3, 4])
        ),
        lambda lib: lib.NLLLoss()(lib_ones(lib)(4, 10), lib_tensor(lib)([1, 2, 3, -5])),
        lambda lib: lib.MSELoss()(lib_ones(lib)(4, 10), lib_ones(lib)(4, 9)),
        lambda lib: lib.BCEWithLogitsLoss()(lib_ones(lib)(4, 10), lib_ones(lib)(4, 9)),
        lambda lib: lib.MSELoss(reduction="foo")(lib_ones(lib)(4, 10), lib_ones(lib)(4, 10)),
        lambda lib: lib.Softmax(dim=3)(lib_ones(lib)(4, 10)),
        lambda lib: lib.functional.max_pool2d(
            lib_ones(lib)(1, 1, 8, 8), 3, stride=1, padding=2, dilation=2
        ),
        lambda lib: lib.MaxPool2d(3, 1, 2, 2)(lib_ones(lib)(1, 1, 8, 8)),
        lambda lib: lib.functional.max_pool2d(
            lib_ones(lib)(1, 1, 8, 8), 3, stride=1, padding=(1, 2)
        ),
        lambda lib: lib.functional.avg_pool2d(lib_ones(lib)(1, 1, 8, 8), 3, stride=1, padding=2),
        lambda lib: lib.functional.conv2d(
            lib_ones(lib)(1, 4, 8, 8), lib_ones(lib)(3, 2, 3, 3), groups=2
        ),
    ],
    ids=lambda f: "",
)
def test_constructor_and_input_errors_match_torch(action):
    torch = torch_or_skip()
    with pytest.raises(Exception) as expected:
        with _quiet():
            action(torch.nn)
    with pytest.raises(expected.type) as got:
        with _quiet():
            action(nn)
    assert _sets_sorted(str(got.value)) == _sets_sorted(
        str(expected.value).replace("torch.Size", "nnlite.Size")
    )


def _sets_sorted(message):
    """PyTorch prints some choices as a Python set, whose order varies between runs: sort them."""
    import re

    return re.sub(
        r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m.group(1).split(", "))) + "}", message
    )


def lib_ones(lib):
    import torch

    return torch.ones if lib is torch.nn else nl.ones


def lib_tensor(lib):
    import torch

    return torch.tensor if lib is torch.nn else nl.tensor


class _quiet:
    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._w.__exit__(*exc)


def test_mse_broadcast_warning():
    with pytest.warns(
        UserWarning,
        match=r"Using a target size \(nnlite.Size\(\[10\]\)\) that is different to the "
        r"input size \(nnlite.Size\(\[4, 10\]\)\)",
    ):
        nn.MSELoss()(nl.ones(4, 10), nl.ones(10))


def test_get_submodule_and_parameter():
    m = Model()
    assert m.get_submodule("block.bn") is m.block.bn
    assert m.get_parameter("block.conv.weight") is m.block.conv.weight
    assert m.get_buffer("block.bn.running_mean") is m.block.bn.running_mean
    with pytest.raises(AttributeError, match="Block has no attribute `nope`"):
        m.get_submodule("block.nope")
