"""``weights=`` on the model builders: files in torchvision's layout (written by ``torch.save``, by
safetensors, or by ``nl.save``) load into nnlite's ResNet, VGG and MobileNetV2 and give PyTorch's logits."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import models

torch = pytest.importorskip("torch")

from torch_twins import torch_mobilenet_v2, torch_resnet18, torch_vgg11  # noqa: E402

BUILDERS = {
    "resnet18": (models.resnet18, torch_resnet18, 48),
    "vgg11": (models.vgg11, torch_vgg11, 32),
    "mobilenet_v2": (models.mobilenet_v2, torch_mobilenet_v2, 48),
}
# One xdist group per network, so that the networks the module-scoped fixtures below build once
# (VGG-11 alone holds 133 million parameters) are built once per run, not once per worker.
NAMES = [pytest.param(name, marks=pytest.mark.xdist_group(f"weights-{name}")) for name in BUILDERS]


def randomized(module, seed=0):
    """Every parameter and batch-norm statistic random, so a swapped or skipped name shows in the logits."""
    gen = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, tensor in list(module.named_parameters()) + list(module.named_buffers()):
            if name.endswith("num_batches_tracked"):
                tensor.fill_(7)
            elif name.endswith("running_var"):
                tensor.copy_(torch.rand(tensor.shape, generator=gen) + 0.5)
            elif name.endswith("running_mean") or name.endswith("bias"):
                tensor.copy_(torch.randn(tensor.shape, generator=gen) * 0.1)
            else:  # weights: scaled to keep activations of order one through the depth
                fan_in = tensor[0].numel() if tensor.dim() > 1 else 1
                tensor.copy_(torch.randn(tensor.shape, generator=gen) * (1.5 / fan_in) ** 0.5)
    return module


@pytest.fixture(scope="module")
def published_twin():
    """``get(name)``: the randomized 1000-class PyTorch twin in eval mode, built once per module;
    the tests only read it (its state dict and its eval-mode logits)."""
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = randomized(BUILDERS[name][1](num_classes=1000)).eval()
        return cache[name]

    yield get
    cache.clear()


@pytest.fixture(scope="module")
def ten_class_pair():
    """``get(name)``: (nnlite network, PyTorch twin) with 10 classes, built once per module and
    only read (names, shapes, repr)."""
    cache = {}

    def get(name):
        if name not in cache:
            build, build_twin, _ = BUILDERS[name]
            cache[name] = build(num_classes=10), build_twin(num_classes=10)
        return cache[name]

    yield get
    cache.clear()


def write_weights(state_dict, path):
    if path.suffix == ".pth":
        torch.save(state_dict, path)
    elif path.suffix == ".safetensors":
        safetensors_torch = pytest.importorskip("safetensors.torch")
        safetensors_torch.save_file({k: v.contiguous() for k, v in state_dict.items()}, str(path))
    else:
        nl.save({k: v.numpy() for k, v in state_dict.items()}, str(path))


def assert_logits_close(ours, theirs):
    ours, theirs = ours.detach().numpy(), theirs.detach().numpy()
    scale = np.abs(theirs).max()
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4 * scale)


@pytest.mark.parametrize("suffix", [".pth", ".safetensors", ".npz"])
@pytest.mark.parametrize("name", NAMES)
def test_published_layout_loads_and_gives_pytorchs_logits(tmp_path, name, suffix, published_twin):
    build, _, size = BUILDERS[name]
    twin = published_twin(name)
    path = tmp_path / f"{name}{suffix}"
    write_weights(twin.state_dict(), path)

    model = build(weights=str(path)).eval()
    x = np.random.default_rng(1).standard_normal((2, 3, size, size)).astype(np.float32)
    assert_logits_close(model(nl.tensor(x)), twin(torch.tensor(x)))


@pytest.mark.parametrize("name", ["resnet18", "mobilenet_v2"])
def test_train_mode_batch_statistics_match(tmp_path, name):
    build, build_twin, size = BUILDERS[name]
    twin = randomized(build_twin(num_classes=1000))
    path = tmp_path / f"{name}.pth"
    torch.save(twin.state_dict(), path)
    model = build(weights=path)
    for dropout_owner in (
        twin,
        model,
    ):  # dropout draws differ between frameworks; batch norm is the check
        for m in dropout_owner.modules():
            if type(m).__name__ == "Dropout":
                m.p = 0.0
    x = np.random.default_rng(2).standard_normal((4, 3, size, size)).astype(np.float32)
    assert_logits_close(model.train()(nl.tensor(x)), twin.train()(torch.tensor(x)))
    running = model.state_dict()[
        "features.1.conv.2.running_mean" if name == "mobilenet_v2" else "bn1.running_mean"
    ]
    expected = twin.state_dict()[
        "features.1.conv.2.running_mean" if name == "mobilenet_v2" else "bn1.running_mean"
    ]
    np.testing.assert_allclose(running.numpy(), expected.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", NAMES)
def test_state_dict_names_and_shapes_are_torchvisions(name, ten_class_pair):
    ours, theirs = (net.state_dict() for net in ten_class_pair(name))
    assert list(ours) == list(theirs)
    assert [tuple(v.shape) for v in ours.values()] == [tuple(v.shape) for v in theirs.values()]


@pytest.mark.xdist_group("weights-vgg11")
def test_vgg_repr_is_torchvisions(ten_class_pair):
    ours, theirs = ten_class_pair("vgg11")
    assert repr(ours) == repr(theirs)


def test_finetuning_a_loaded_backbone(tmp_path):
    path = tmp_path / "resnet18.pth"
    torch.save(randomized(torch_resnet18()).state_dict(), path)
    model = models.resnet18(weights=path)
    model.requires_grad_(False)
    model.fc = nl.nn.Linear(512, 10)
    opt = nl.optim.SGD(model.fc.parameters(), lr=0.1)
    x, y = nl.randn(4, 3, 32, 32), nl.tensor([0, 1, 2, 3])
    frozen_before = model.conv1.weight.detach().clone()
    loss = nl.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    assert model.conv1.weight.grad is None
    assert model.fc.weight.grad is not None
    np.testing.assert_array_equal(model.conv1.weight.detach().numpy(), frozen_before.numpy())


def test_wrong_head_size_names_the_file(tmp_path):
    path = tmp_path / "resnet18.pth"
    torch.save(torch_resnet18(num_classes=1000).state_dict(), path)
    with pytest.raises(RuntimeError, match=r"(?s)resnet18\.pth.*size mismatch for fc\.weight"):
        models.resnet18(weights=path, num_classes=10)


def test_missing_file_and_wrong_type():
    with pytest.raises(FileNotFoundError, match="no_such_weights.pth"):
        models.resnet18(weights="no_such_weights.pth")
    with pytest.raises(TypeError, match="path to a weight file"):
        models.resnet18(weights=True)


def test_nested_trainer_checkpoint_is_unwrapped(tmp_path):
    source = models.mobilenet_v2(num_classes=5)
    path = tmp_path / "last.npz"
    nl.save({"model": source.state_dict(), "epoch": 3}, str(path))
    loaded = models.mobilenet_v2(weights=path, num_classes=5)
    for (name, a), b in zip(source.state_dict().items(), loaded.state_dict().values()):
        np.testing.assert_array_equal(a.numpy(), b.numpy(), err_msg=name)


def test_relu6_matches_pytorch_including_the_edges():
    values = [-1.0, 0.0, 0.5, 6.0, 7.0]
    x = nl.tensor(values, requires_grad=True)
    t = torch.tensor(values, requires_grad=True)
    y, ty = nl.nn.ReLU6()(x), torch.nn.ReLU6()(t)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), t.grad.numpy())
    assert (
        repr(nl.nn.ReLU6(inplace=True))
        == repr(torch.nn.ReLU6(inplace=True))
        == "ReLU6(inplace=True)"
    )
    assert repr(nl.nn.ReLU6()) == "ReLU6()"
