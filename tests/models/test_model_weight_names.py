"""torchvision's weight enums and names (``ResNet18_Weights.DEFAULT``, ``weights="IMAGENET1K_V1"``)
resolve to the file in PyTorch's hub cache; a missing file gives a one-line message saying what to
fetch and where to save it."""

import pytest

import nnlite as nl
from nnlite import models


def test_enums_carry_torchvisions_names_and_addresses():
    assert models.ResNet18_Weights.DEFAULT is models.ResNet18_Weights.IMAGENET1K_V1
    assert str(models.ResNet18_Weights.DEFAULT) == "ResNet18_Weights.IMAGENET1K_V1"
    assert (
        models.ResNet18_Weights.IMAGENET1K_V1.url
        == "https://download.pytorch.org/models/resnet18-f37072fd.pth"
    )
    assert models.ResNet50_Weights.DEFAULT is models.ResNet50_Weights.IMAGENET1K_V2
    assert models.get_model_weights("vgg19") is models.VGG19_Weights
    assert models.get_weight("MobileNet_V2_Weights.DEFAULT").url.endswith(
        "mobilenet_v2-7ebf99e0.pth"
    )
    with pytest.raises(ValueError, match="Failed to find Weights IMAGENET1K_V9"):
        models.ResNet18_Weights.verify("IMAGENET1K_V9")


@pytest.mark.parametrize(
    "weights", [models.ResNet18_Weights.DEFAULT, "IMAGENET1K_V1", "ResNet18_Weights.IMAGENET1K_V1"]
)
def test_weight_names_load_the_hub_cache_file(weights, monkeypatch, tmp_path):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path))
    cached = tmp_path / "hub" / "checkpoints" / "resnet18-f37072fd.pth"
    with pytest.raises(FileNotFoundError) as missing:
        models.resnet18(weights=weights)
    assert str(missing.value) == (
        f"{cached} not found: nnlite does not download; fetch "
        "https://download.pytorch.org/models/resnet18-f37072fd.pth and save it there"
    )
    source = models.resnet18(num_classes=10)
    cached.parent.mkdir(parents=True)
    nl.save(source.state_dict(), cached)
    model = models.resnet18(weights=weights, num_classes=10)
    assert bool((model.fc.weight == source.fc.weight).all())


def test_a_path_is_still_a_path(tmp_path):
    source = models.mobilenet_v2(num_classes=3, width_mult=0.25)
    path = tmp_path / "m.pth"
    nl.save(source.state_dict(), path)
    model = models.mobilenet_v2(weights=str(path), num_classes=3, width_mult=0.25)
    assert bool((model.classifier[1].weight == source.classifier[1].weight).all())
