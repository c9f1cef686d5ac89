"""The trainer starts from published weights: ``finetune.from`` and ``model.args.weights`` take
PyTorch ``.pth`` and ``.safetensors`` files (written here by PyTorch, torchvision's layout), and the
ImageNet input pipeline (resize, center crop, normalize) is written in the config."""

import sys
from pathlib import Path

import numpy as np
import pytest
from train_helpers import make_config, run_dirs, write_cifar10

import nnlite as nl
from nnlite.train import Trainer, load_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))

torch = pytest.importorskip("torch")
from torch_twins import torch_resnet18  # noqa: E402

IMAGENET = {"name": "normalize", "mean": [0.485, 0.456, 0.406], "std": [0.229, 0.224, 0.225]}
PIPELINE = [
    {"name": "resize", "size": 36},
    {"name": "center_crop", "size": 32},
    {"name": "to_tensor"},
    IMAGENET,
]


def published_weights(tmp_path, suffix):
    state = torch_resnet18().state_dict()
    path = tmp_path / f"resnet18{suffix}"
    if suffix == ".pth":
        torch.save(state, path)
    else:
        pytest.importorskip("safetensors.torch").save_file(state, str(path))
    return path, state


def cifar_with_imagenet_pipeline(tmp_path):
    write_cifar10(tmp_path / "data", per_batch=4, n_test=4)
    return {
        "dataset": "cifar10",
        "root": str(tmp_path / "data"),
        "download": False,
        "batch_size": 4,
        "test_batch_size": 8,
        "num_workers": 0,
        "train_transforms": PIPELINE,
        "test_transforms": PIPELINE,
    }


@pytest.mark.parametrize("suffix", [".pth", ".safetensors"])
def test_finetune_from_a_published_file(tmp_path, suffix):
    weights, state = published_weights(tmp_path, suffix)
    cfg = make_config(
        tmp_path,
        model={"name": "resnet18", "args": {"num_classes": 1000}},
        data=cifar_with_imagenet_pipeline(tmp_path),
        finetune={
            "from": str(weights),
            "freeze": "all_but_head",
            "head": {"module": "fc", "num_classes": 10},
        },
    )
    Trainer(load_config(cfg), progress=False).fit()
    (run,) = run_dirs(tmp_path / "runs")
    saved = nl.load(str(run / "checkpoints" / "last.npz"))["model"]
    for name, value in state.items():
        if not name.startswith(
            "fc."
        ):  # the frozen backbone is the published one, statistics included
            np.testing.assert_array_equal(saved[name].numpy(), value.numpy(), err_msg=name)
    assert tuple(saved["fc.weight"].shape) == (10, 512)


def test_model_weights_argument_and_imagenet_pipeline(tmp_path):
    weights, state = published_weights(tmp_path, ".safetensors")
    cfg = make_config(
        tmp_path,
        model={"name": "resnet18", "args": {"weights": str(weights)}},
        finetune={"freeze": "all_but_head", "head": {"module": "fc", "num_classes": 10}},
        data=cifar_with_imagenet_pipeline(tmp_path),
    )
    Trainer(load_config(cfg), progress=False).fit()
    (run,) = run_dirs(tmp_path / "runs")
    saved = nl.load(str(run / "checkpoints" / "last.npz"))["model"]
    np.testing.assert_array_equal(
        saved["layer4.1.conv2.weight"].numpy(), state["layer4.1.conv2.weight"].numpy()
    )


def test_shipped_config_is_valid():
    config = load_config(
        Path(__file__).resolve().parents[2] / "configs" / "finetune_resnet18_pretrained.yaml"
    )
    assert [t.name for t in config.data.test_transforms] == [
        "resize",
        "center_crop",
        "to_tensor",
        "normalize",
    ]
