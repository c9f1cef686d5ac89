"""The README's example commands run as written, offline and without optional packages: each is
run with flags added that cut it to a few steps (later flags win in argparse), on generated
Fashion-MNIST files in place of the README's folder and a generated weight file of torchvision's
layout; an example that needs an optional package says so in one line, before it trains."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from optional_modules import importable

import nnlite as nl

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "train"))
from train_helpers import write_idx_dataset  # noqa: E402

README_DATA = "/usr/share/datasets/fashion-mnist"
# What each example gets on top of its README command: a few steps, a short sample.
FEW_STEPS = {
    "char_gpt.py": [
        "--steps",
        "2",
        "--log-every",
        "1",
        "--sample-every",
        "2",
        "--sample-length",
        "5",
    ],
    "lstm_lm.py": ["--epochs", "1", "--max-steps", "2"],
    "dcgan.py": ["--epochs", "1", "--max-steps", "1", "--out", "samples"],
    "finetune_pretrained.py": ["--max-steps", "2", "--batch-size", "8"],
}


def readme_commands():
    """``{script name: its arguments}`` of the ``python examples/...`` lines in the README."""
    text = (ROOT / "README.md").read_text()
    found = re.findall(r"^\s*python (examples/\S+\.py)([^#\n]*)", text, re.MULTILINE)
    return {Path(script).name: shlex.split(args) for script, args in found}


COMMANDS = readme_commands()


def run_readme_command(name, folder):
    """The README's command for ``name``, cut to a few steps, run in ``folder``."""
    args = [str(folder / "fashion-mnist") if a == README_DATA else a for a in COMMANDS[name]]
    write_idx_dataset(folder / "fashion-mnist", n_train=16, n_test=16)
    return subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), *args, *FEW_STEPS[name]],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_every_readme_example_is_tested():
    assert set(COMMANDS) == set(FEW_STEPS)


def test_char_gpt_learns_the_generated_text(tmp_path):
    result = run_readme_command("char_gpt.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "no text file given: learning a generated text" in result.stdout
    assert "step 2: loss" in result.stdout and "--- sample ---" in result.stdout


def test_lstm_lm_learns_the_generated_corpus(tmp_path):
    result = run_readme_command("lstm_lm.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "no corpus folder given: learning a generated corpus" in result.stdout
    assert re.search(r"end of epoch +1 \| valid loss +[0-9.]+ \| valid ppl", result.stdout)


def test_dcgan_writes_its_grid_or_asks_for_pillow_first(tmp_path):
    result = run_readme_command("dcgan.py", tmp_path)
    if importable("PIL"):
        assert result.returncode == 0, result.stderr
        assert (tmp_path / "samples" / "samples_epoch_001.png").is_file()
    else:  # before any training step
        assert result.returncode == 1 and "loss_D" not in result.stdout
        assert result.stderr == (
            "dcgan.py: error: the sample grids need Pillow: pip install 'nnlite[vision]' "
            "(or pip install Pillow)\n"
        )


def test_finetune_pretrained_trains_the_new_head(tmp_path):
    nl.save(nl.models.resnet18().state_dict(), tmp_path / "resnet18-f37072fd.pth")
    result = run_readme_command("finetune_pretrained.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "trainable parameters: 5130 of 11181642" in result.stdout
    assert "test accuracy" in result.stdout and (tmp_path / "finetuned_resnet18.pth").is_file()


def test_finetune_pretrained_says_where_the_weights_come_from(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCH_HOME", str(tmp_path / "torch"))  # not torchvision's copy either
    result = run_readme_command("finetune_pretrained.py", tmp_path)
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr == (
        "finetune_pretrained.py: error: resnet18-f37072fd.pth: no such file; download "
        "torchvision's ResNet-18 weights from "
        "https://download.pytorch.org/models/resnet18-f37072fd.pth (on any machine with "
        "internet) into the current folder, or give its path with --weights\n"
    )


@pytest.mark.parametrize("name", ["char_gpt.py", "lstm_lm.py"])
def test_language_models_name_a_missing_text(tmp_path, name):
    result = subprocess.run(
        [sys.executable, str(ROOT / "examples" / name), "no-such-text"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith(f"{name}: error: ")
    assert "no-such-text" in result.stderr.splitlines()[-1]
