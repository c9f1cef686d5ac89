"""``examples/finetune_pretrained.py`` on a torchvision-layout weight file written by PyTorch."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import nnlite as nl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "train"))
sys.path.insert(0, str(ROOT / "tests" / "models"))
from train_helpers import write_cifar10  # noqa: E402


@pytest.mark.parametrize("suffix", [".pth", ".safetensors"])
def test_finetuning_trains_only_the_new_head(tmp_path, suffix):
    torch = pytest.importorskip("torch")
    from torch_twins import torch_resnet18

    twin = torch_resnet18()
    weights = tmp_path / f"resnet18{suffix}"
    if suffix == ".pth":
        torch.save(twin.state_dict(), weights)
    else:
        safetensors_torch = pytest.importorskip("safetensors.torch")
        safetensors_torch.save_file(twin.state_dict(), str(weights))
    write_cifar10(tmp_path / "data", per_batch=8, n_test=8)
    out = tmp_path / "finetuned.npz"
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "examples" / "finetune_pretrained.py"),
            "--weights",
            str(weights),
            "--dataset",
            "cifar10",
            "--data",
            str(tmp_path / "data"),
            "--batch-size",
            "8",
            "--max-steps",
            "3",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    assert "trainable parameters: 5130 of 11181642" in result.stdout
    assert "test accuracy" in result.stdout
    finetuned = nl.load(str(out))
    original = twin.state_dict()
    for name, value in original.items():
        if not name.startswith("fc."):  # the backbone, batch-norm statistics included, is untouched
            np.testing.assert_array_equal(finetuned[name].numpy(), value.numpy(), err_msg=name)
    assert tuple(finetuned["fc.weight"].shape) == (10, 512)
