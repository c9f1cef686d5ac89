"""``nl.onnx.export``: the written graph passes ``onnx.checker`` and onnxruntime computes nnlite's outputs."""

import sys

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import functional as F

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def randomize_statistics(model, seed=0):
    """Batch-norm statistics away from (0, 1), so a skipped normalisation shows."""
    rng = np.random.default_rng(seed)
    for m in model.modules():
        if isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
            m.running_mean.copy_(nl.tensor(rng.normal(0, 0.2, m.num_features).astype(np.float32)))
            m.running_var.copy_(nl.tensor(rng.uniform(0.5, 1.5, m.num_features).astype(np.float32)))
            with nl.no_grad():
                m.weight.copy_(nl.tensor(rng.uniform(0.5, 1.5, m.num_features).astype(np.float32)))
                m.bias.copy_(nl.tensor(rng.normal(0, 0.2, m.num_features).astype(np.float32)))
    return model


class Glue(nn.Module):
    """The tensor ops models use between layers."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding="same", bias=False)
        self.bn = nn.BatchNorm1d(8)
        self.fc_weight = nn.Parameter(nl.randn(5, 8))
        self.drop = nn.Dropout(0.3)
        self.flatten = nn.Flatten()

    def forward(self, x):
        y = F.avg_pool2d(F.conv2d(x, self.conv.weight, stride=1, padding=1), 2)  # (N, 4, 4, 4)
        y = y.permute(0, 2, 3, 1).transpose(1, 2).contiguous()  # (N, 4, 4, 4)
        z = nl.cat([y.mean(dim=(1, 2)), y.sum(dim=1).mean(1)], dim=1)  # (N, 8)
        z = self.bn(z) * 0.5 + 1.0 - nl.stack([z, -z], dim=0).mean(0)
        z = (2.0 - z) / (1.0 + z.sigmoid()) + 3.0 / (2.0 + z.tanh())
        w = F.linear(self.drop(z), self.fc_weight).unsqueeze(1).squeeze(1)  # (N, 5)
        v = self.flatten(self.conv(x)).view(x.size(0), 4, -1).mean(-1)  # (N, 4)
        return F.log_softmax(nl.cat([w, v @ nl.ones(4, 3)], dim=1), dim=1), F.relu6(v.exp() * 4)


MODELS = {
    "tutorial_net": (lambda: nl.models.Net(), (1, 32, 32)),
    "lenet": (lambda: nl.models.LeNet(num_classes=10), (3, 32, 32)),
    "mlp": (lambda: nl.models.MLP(20, num_classes=4), (20,)),
    "resnet18": (lambda: randomize_statistics(nl.models.resnet18(num_classes=10)), (3, 32, 32)),
    "mobilenet_v2": (
        lambda: randomize_statistics(nl.models.mobilenet_v2(num_classes=10)),
        (3, 32, 32),
    ),
    "vgg11": (lambda: nl.models.vgg11(num_classes=10), (3, 48, 48)),
}


def run_onnx(path, feeds):
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def assert_close(ours, theirs):
    ours = ours.detach().numpy()
    np.testing.assert_allclose(theirs, ours, rtol=1e-4, atol=1e-5 * max(1.0, np.abs(ours).max()))


@pytest.mark.parametrize("name", list(MODELS))
def test_model_runs_in_onnxruntime_with_nnlites_outputs(tmp_path, name):
    build, shape = MODELS[name]
    nl.manual_seed(0)
    model = build()
    path = tmp_path / f"{name}.onnx"
    nl.onnx.export(
        model,
        nl.randn(2, *shape),
        path,
        input_names=["images"],
        output_names=["logits"],
        dynamic_axes={"images": {0: "batch"}, "logits": {0: "batch"}},
    )
    onnx.checker.check_model(str(path))
    assert model.training  # export runs in eval mode and restores the mode
    # a batch size other than the traced one: the batch axis is free in the graph
    x = np.random.default_rng(1).standard_normal((3, *shape)).astype(np.float32)
    (logits,) = run_onnx(path, {"images": x})
    assert_close(model.eval()(nl.tensor(x)), logits)


@pytest.mark.parametrize("opset", [13, 17, 18])
def test_tensor_ops_between_layers(tmp_path, opset):
    nl.manual_seed(1)
    model = randomize_statistics(Glue())
    path = tmp_path / "glue.onnx"
    nl.onnx.export(
        model,
        nl.randn(2, 3, 8, 8),
        path,
        output_names=["scores", "gates"],
        dynamic_axes={"input": [0], "scores": [0], "gates": [0]},
        opset_version=opset,
    )
    graph = onnx.load(str(path))
    assert graph.opset_import[0].version == opset
    assert [o.name for o in graph.graph.output] == ["scores", "gates"]
    assert graph.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "input_dynamic_axes_1"
    x = np.random.default_rng(2).standard_normal((4, 3, 8, 8)).astype(np.float32)
    scores, gates = run_onnx(path, {"input": x})
    ours = model.eval()(nl.tensor(x))
    assert_close(ours[0], scores)
    assert_close(ours[1], gates)


def test_parameter_names_are_state_dict_names(tmp_path):
    model = nl.models.LeNet(num_classes=10)
    path = tmp_path / "lenet.onnx"
    nl.onnx.export(model, nl.randn(1, 3, 32, 32), path)
    names = {init.name for init in onnx.load(str(path)).graph.initializer}
    assert set(model.state_dict()) - {k for k in model.state_dict() if "num_batches" in k} <= names


def test_an_op_without_conversion_is_named(tmp_path):
    class Clamped(nn.Module):
        def forward(self, x):
            return x.clamp(0.0, 1.0) * 2

    with pytest.raises(nl.onnx.ExportError, match="ClampBackward"):
        nl.onnx.export(Clamped(), nl.randn(2, 3), tmp_path / "clamped.onnx")
    assert not (tmp_path / "clamped.onnx").exists()


def test_max_pool_indices_are_refused(tmp_path):
    with pytest.raises(nl.onnx.ExportError, match="return_indices"):
        nl.onnx.export(
            nn.Sequential(nn.MaxPool2d(2, return_indices=True)),
            nl.randn(1, 1, 4, 4),
            tmp_path / "indices.onnx",
        )


def test_bad_arguments(tmp_path):
    model = nl.models.MLP(4, num_classes=2)
    with pytest.raises(ValueError, match="opset_version"):
        nl.onnx.export(model, nl.randn(1, 4), tmp_path / "m.onnx", opset_version=9)
    with pytest.raises(ValueError, match="input_names"):
        nl.onnx.export(model, nl.randn(1, 4), tmp_path / "m.onnx", input_names=["a", "b"])
    with pytest.raises(TypeError, match="example inputs"):
        nl.onnx.export(model, [[1.0, 2.0]], tmp_path / "m.onnx")


def test_missing_onnx_package_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"nnlite\[onnx\]"):
        nl.onnx.export(nl.models.MLP(4, num_classes=2), nl.randn(1, 4), tmp_path / "m.onnx")


class Shrinks(nn.Module):
    """Activations with an ONNX op (SELU, Softsign, Shrink, CELU) or a short chain of them
    (softmin, tanhshrink, logsigmoid)."""

    def __init__(self):
        super().__init__()
        self.selu, self.hardshrink = nn.SELU(), nn.Hardshrink(0.3)

    def forward(self, x):
        return (
            self.selu(x) + F.softsign(x),
            self.hardshrink(x) * F.softshrink(x, 0.2) + F.selu(x * 2),
            F.celu(x, 0.7) + F.softmin(x, dim=1) + F.tanhshrink(x) + F.logsigmoid(x * 30),
        )


def test_activations_with_onnx_ops_run_in_onnxruntime(tmp_path):
    model = Shrinks()
    path = tmp_path / "shrinks.onnx"
    nl.onnx.export(model, nl.randn(2, 7), path, output_names=["a", "b", "c"])
    graph = onnx.load(str(path))
    assert {"Selu", "Softsign", "Shrink", "Celu", "Softplus"} <= {
        n.op_type for n in graph.graph.node
    }
    x = np.linspace(-1.5, 1.5, 14, dtype=np.float32).reshape(2, 7)  # values in each shrink zone
    ours = model(nl.tensor(x))
    for mine, theirs in zip(ours, run_onnx(path, {"input": x}), strict=True):
        assert_close(mine, theirs)
