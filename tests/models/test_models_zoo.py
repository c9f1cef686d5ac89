"""nnlite.models: the tutorial nets, LeNet, MLP, ResNet-18 (torchvision's names and shapes), the
registry, and the autograd tutorial's finetuning recipe."""

import sys
import types

import numpy as np
import pytest
from torch_twins import torch_resnet18

import nnlite as nl
from nnlite import models, nn

# torchvision's resnet18 state_dict: 122 entries; a few of them with their shapes
RESNET18_SAMPLE = {
    "conv1.weight": (64, 3, 7, 7),
    "bn1.running_var": (64,),
    "bn1.num_batches_tracked": (),
    "layer1.0.conv1.weight": (64, 64, 3, 3),
    "layer1.1.bn2.bias": (64,),
    "layer2.0.conv1.weight": (128, 64, 3, 3),
    "layer2.0.downsample.0.weight": (128, 64, 1, 1),
    "layer2.0.downsample.1.running_mean": (128,),
    "layer3.1.conv2.weight": (256, 256, 3, 3),
    "layer4.0.downsample.0.weight": (512, 256, 1, 1),
    "layer4.1.bn2.num_batches_tracked": (),
    "fc.weight": (1000, 512),
    "fc.bias": (1000,),
}


def test_resnet18_state_dict_keys_and_shapes():
    sd = models.resnet18().state_dict()
    assert len(sd) == 122
    assert list(sd)[:6] == [
        "conv1.weight",
        "bn1.weight",
        "bn1.bias",
        "bn1.running_mean",
        "bn1.running_var",
        "bn1.num_batches_tracked",
    ]
    assert list(sd)[-2:] == ["fc.weight", "fc.bias"]
    for key, shape in RESNET18_SAMPLE.items():
        assert tuple(sd[key].shape) == shape, key
    assert (
        sum(
            int(np.prod(v.shape))
            for k, v in sd.items()
            if "running" not in k and "num_batches" not in k
        )
        == 11689512
    )  # torchvision's resnet18 parameter count


def test_resnet18_matches_torchvision_definition():
    torch = pytest.importorskip("torch")
    ours, theirs = models.resnet18(num_classes=10), torch_resnet18(num_classes=10)
    a, b = ours.state_dict(), theirs.state_dict()
    assert list(a) == list(b)
    assert all(tuple(a[k].shape) == tuple(b[k].shape) for k in a)
    assert repr(ours) == repr(theirs)
    theirs.load_state_dict({k: torch.from_numpy(v.numpy().copy()) for k, v in a.items()})
    # float64: with 32x32 inputs layer4 normalises 2 values per channel, which magnifies float32 rounding
    ours.double()
    theirs.double()
    x = np.random.default_rng(0).standard_normal((2, 3, 32, 32))
    ya, yb = ours(nl.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(ya.detach().numpy(), yb.detach().numpy(), rtol=1e-9, atol=1e-10)
    ya.sum().backward()
    yb.sum().backward()
    for (name, pa), pb in zip(ours.named_parameters(), theirs.parameters()):
        scale = np.abs(pb.grad.numpy()).max()
        np.testing.assert_allclose(
            pa.grad.numpy(), pb.grad.numpy(), rtol=1e-6, atol=1e-9 * scale, err_msg=name
        )
    for k in ("bn1.running_mean", "layer4.1.bn2.running_var"):
        np.testing.assert_allclose(
            ours.state_dict()[k].numpy(), theirs.state_dict()[k].numpy(), rtol=1e-9
        )


def test_resnet18_initialisation_is_torchvisions():
    nl.manual_seed(0)
    m = models.resnet18()
    w = m.layer1[0].conv1.weight.detach().numpy()
    assert abs(w.std() - np.sqrt(2.0 / (64 * 9))) < 0.01  # kaiming normal, fan_out, relu
    assert m.bn1.weight.detach().numpy().tolist() == [1.0] * 64
    assert m.bn1.bias.detach().numpy().tolist() == [0.0] * 64
    bound = 1 / np.sqrt(512)
    assert np.abs(m.fc.weight.detach().numpy()).max() <= bound + 1e-7


def _counting(monkeypatch, name):
    """Count calls of the numba kernel ``name`` (every convolution gradient goes through one)."""
    from nnlite.nn import kernels

    calls = []
    original = getattr(kernels, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(kernels, name, counted)
    return calls


def test_finetuning_recipe_of_the_autograd_tutorial(monkeypatch):
    from nnlite import optim

    grad_weight_calls = _counting(monkeypatch, "conv2d_backward_weight")
    grad_input_calls = _counting(monkeypatch, "conv2d_backward_input")

    model = models.resnet18()
    for param in model.parameters():
        param.requires_grad = False
    model.fc = nn.Linear(512, 10)
    optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)

    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    x = nl.randn(2, 3, 32, 32)
    loss = nn.CrossEntropyLoss()(model(x), nl.tensor([1, 7]))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

    after = model.state_dict()
    changed = sorted(k for k in before if not np.array_equal(before[k], after[k].numpy()))
    # running statistics move in training mode; of the parameters only fc's change
    params = {n for n, _ in model.named_parameters()}
    assert [k for k in changed if k in params] == ["fc.bias", "fc.weight"]
    for name, p in model.named_parameters():
        if not name.startswith("fc."):
            assert p.grad is None, name
    assert model.fc.weight.grad is not None
    # frozen parameters cost nothing in backward: no convolution gradient is computed at all
    assert grad_weight_calls == [] and grad_input_calls == []


def test_finetuning_with_freeze_of_some_layers(monkeypatch):
    calls = _counting(monkeypatch, "conv2d_backward_weight")
    model = models.resnet18(num_classes=5).freeze("conv1", "bn1", "layer1", "layer2", "layer3")
    model(nl.randn(2, 3, 32, 32)).sum().backward()
    trainable_convs = [
        n for n, m in model.named_modules() if isinstance(m, nn.Conv2d) and m.weight.requires_grad
    ]
    assert all(n.startswith("layer4") for n in trainable_convs)
    assert len(calls) == len(trainable_convs) == 5
    assert (
        model.layer3[1].conv2.weight.grad is None and model.layer4[0].conv1.weight.grad is not None
    )


def test_lenet_shapes_and_mnist_variant():
    m = models.LeNet()
    assert [n for n, _ in m.named_children()] == ["conv1", "pool", "conv2", "fc1", "fc2", "fc3"]
    assert m(nl.randn(4, 3, 32, 32)).shape == (4, 10)
    assert m.fc1.in_features == 400
    g = models.LeNet(in_channels=1, num_classes=7, input_size=28)
    assert g.fc1.in_features == 256 and g(nl.randn(2, 1, 28, 28)).shape == (2, 7)
    with pytest.raises(ValueError, match="too small"):
        models.LeNet(input_size=8)


def test_lenet_repr_matches_cifar_tutorial():
    assert (
        repr(models.LeNet())
        == """LeNet(
  (conv1): Conv2d(3, 6, kernel_size=(5, 5), stride=(1, 1))
  (pool): MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)
  (conv2): Conv2d(6, 16, kernel_size=(5, 5), stride=(1, 1))
  (fc1): Linear(in_features=400, out_features=120, bias=True)
  (fc2): Linear(in_features=120, out_features=84, bias=True)
  (fc3): Linear(in_features=84, out_features=10, bias=True)
)"""
    )


def test_mlp():
    m = models.MLP(12, [8, 6], 3)
    assert m(nl.randn(5, 3, 2, 2)).shape == (5, 3)
    assert [tuple(p.shape) for p in m.parameters()] == [(8, 12), (8,), (6, 8), (6,), (3, 6), (3,)]
    assert models.MLP(4, 5, 2)(nl.randn(1, 4)).shape == (1, 2)


def test_registry_names_and_import_paths(tmp_path, monkeypatch):
    assert {"lenet", "tutorial_net", "resnet18", "mlp"} <= set(models.list_models())
    assert isinstance(models.get_model("lenet", num_classes=3), models.LeNet)
    assert isinstance(models.get_model("tutorial_net"), models.Net)
    assert models.get_model("resnet18", num_classes=4).fc.out_features == 4
    assert isinstance(models.get_model("mlp", in_features=4, hidden=[3], num_classes=2), models.MLP)
    assert isinstance(models.get_model("nnlite.models:LeNet"), models.LeNet)
    with pytest.raises(KeyError, match="unknown model 'lenett'; registered models: .*lenet"):
        models.get_model("lenett")
    with pytest.raises(TypeError, match="unexpected argument 'classes'"):
        models.get_model("lenet", classes=3)
    with pytest.raises(ImportError, match="cannot import module 'no_such_pkg.nets'"):
        models.get_model("no_such_pkg.nets:Net")
    with pytest.raises(AttributeError, match="module 'nnlite.models' has no attribute 'Nope'"):
        models.get_model("nnlite.models:Nope")
    user = types.ModuleType("user_nets_for_test")

    class Tiny(nn.Module):
        def __init__(self, width=3):
            super().__init__()
            self.fc = nn.Linear(2, width)

        def forward(self, x):
            return self.fc(x)

    user.Tiny = Tiny
    user.not_a_model = lambda: 3
    monkeypatch.setitem(sys.modules, "user_nets_for_test", user)
    assert models.get_model("user_nets_for_test:Tiny", width=5).fc.out_features == 5
    with pytest.raises(TypeError, match="not an nnlite.nn.Module"):
        models.get_model("user_nets_for_test:not_a_model")
    assert models.get_model_builder("lenet") is models.LeNet


def test_lenet_training_steps_stay_with_torch():
    """20 SGD-momentum steps of the CIFAR-10 LeNet from the same weights on the same batches."""
    torch = pytest.importorskip("torch")
    from nnlite import optim

    tnn, TF = torch.nn, torch.nn.functional

    class TorchLeNet(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.pool, self.conv2 = (
                tnn.Conv2d(3, 6, 5),
                tnn.MaxPool2d(2, 2),
                tnn.Conv2d(6, 16, 5),
            )
            self.fc1, self.fc2, self.fc3 = (
                tnn.Linear(400, 120),
                tnn.Linear(120, 84),
                tnn.Linear(84, 10),
            )

        def forward(self, x):
            x = self.pool(TF.relu(self.conv1(x)))
            x = torch.flatten(self.pool(TF.relu(self.conv2(x))), 1)
            return self.fc3(TF.relu(self.fc2(TF.relu(self.fc1(x)))))

    ours, theirs = models.LeNet(), TorchLeNet()
    theirs.load_state_dict(
        {k: torch.from_numpy(v.numpy().copy()) for k, v in ours.state_dict().items()}
    )
    opt_a = optim.SGD(ours.parameters(), lr=0.05, momentum=0.9)
    opt_b = torch.optim.SGD(theirs.parameters(), lr=0.05, momentum=0.9)
    rng = np.random.default_rng(0)
    for step in range(20):
        x = rng.standard_normal((8, 3, 32, 32)).astype(np.float32)
        y = rng.integers(0, 10, 8)
        opt_a.zero_grad()
        opt_b.zero_grad()
        la = nn.CrossEntropyLoss()(ours(nl.tensor(x)), nl.tensor(y))
        lb = tnn.CrossEntropyLoss()(theirs(torch.tensor(x)), torch.from_numpy(y))
        np.testing.assert_allclose(la.item(), lb.item(), rtol=1e-4, err_msg=f"step {step}")
        la.backward()
        lb.backward()
        opt_a.step()
        opt_b.step()
    for (name, a), b in zip(ours.named_parameters(), theirs.parameters()):
        np.testing.assert_allclose(
            a.detach().numpy(), b.detach().numpy(), rtol=1e-3, atol=1e-5, err_msg=name
        )
