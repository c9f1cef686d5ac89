"""The ``nnlite`` command: ``python -m nnlite`` as a subprocess, and ``nnlite.cli.main`` in-process."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

import nnlite as nl
from nnlite.cli import main

sys.path.insert(0, str(Path(__file__).resolve().parent / "train"))

from train_helpers import (  # noqa: E402  (found through the path added above)
    fashion_sections,
    make_config,
    run_dirs,
    write_idx_dataset,
)

ROOT = Path(__file__).resolve().parents[1]


def run_nnlite(*args, cwd=None, timeout=300):
    """``python -m nnlite ARGS``; returns the CompletedProcess (text output)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "nnlite", *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_version_subprocess():
    proc = run_nnlite("--version")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"nnlite {nl.__version__}"


def test_help_lists_the_commands():
    proc = run_nnlite("--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: nnlite")
    for command in ("train", "report", "summary"):
        assert f"\n    {command} " in proc.stdout


def test_no_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main([])
    assert e.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


def test_unknown_command_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["fit", "x.yaml"])
    assert e.value.code == 2
    assert "invalid choice: 'fit'" in capsys.readouterr().err


# ---------------------------------------------------------------- summary


def test_summary_prints_the_models_table(capsys):
    assert main(["summary", "lenet", "--no-timing"]) == 0
    out = capsys.readouterr().out
    model = nl.models.LeNet()
    total = sum(p.numel() for p in model.parameters())
    assert f"Total params: {total:,}" in out
    assert "[1, 10]" in out  # LeNet's output on the default 1,3,32,32 input
    assert "conv1" in out and "fc3" in out


def test_summary_input_size_and_model_arguments(capsys):
    argv = ["summary", "lenet", "--input-size", "2,1,28,28", "--no-timing"]
    argv += ["--arg", "in_channels=1", "--arg", "input_size=28", "--arg", "num_classes=7"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    model = nl.models.LeNet(in_channels=1, input_size=28, num_classes=7)
    assert f"Total params: {sum(p.numel() for p in model.parameters()):,}" in out
    assert "[2, 7]" in out and "[2, 6, 24, 24]" in out


def test_summary_depth_hides_nested_rows(capsys):
    assert main(["summary", "resnet18", "--depth", "1", "--no-timing"]) == 0
    shallow = capsys.readouterr().out
    assert main(["summary", "resnet18", "--depth", "2", "--no-timing"]) == 0
    deeper = capsys.readouterr().out
    assert "layer1" in shallow and "layer1.0" not in shallow
    assert "0" in deeper and len(deeper.splitlines()) > len(shallow.splitlines())


def test_summary_model_by_import_path(tmp_path, capsys, monkeypatch):
    (tmp_path / "tiny_net.py").write_text(
        "import nnlite.nn as nn\n\n"
        "class Tiny(nn.Module):\n"
        "    def __init__(self, width=5):\n"
        "        super().__init__()\n"
        "        self.fc = nn.Linear(4, width)\n\n"
        "    def forward(self, x):\n"
        "        return self.fc(x)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["summary", "tiny_net:Tiny", "--input-size", "3,4", "--arg", "width=6", "--no-timing"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Total params: 30" in out and "[3, 6]" in out  # 4 * 6 weights + 6 biases


def test_summary_unknown_model_names_the_registered_ones(capsys):
    assert main(["summary", "resnet19"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nnlite summary: error: unknown model 'resnet19'")
    assert "resnet18" in err and "did you mean" in err


def test_summary_unknown_model_argument_is_an_error(capsys):
    assert main(["summary", "lenet", "--arg", "widht=3"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nnlite summary: error: ") and "widht" in err


def test_summary_model_that_does_not_run_on_the_input(capsys):
    assert main(["summary", "lenet", "--input-size", "1,3,8,8", "--no-timing"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("nnlite summary: error: lenet does not run on input size 1,3,8,8: ")


@pytest.mark.parametrize("size", ["1,3,x", "", "1,0,4", "1;3"])
def test_summary_bad_input_size_is_a_usage_error(size, capsys):
    with pytest.raises(SystemExit) as e:
        main(["summary", "lenet", "--input-size", size])
    assert e.value.code == 2
    assert "--input-size: expected positive integers separated by commas" in capsys.readouterr().err


@pytest.mark.parametrize("arg", ["noequals", "1x=2", "k=[1, 2"])
def test_summary_bad_model_argument_is_a_usage_error(arg, capsys):
    with pytest.raises(SystemExit) as e:
        main(["summary", "lenet", "--arg", arg])
    assert e.value.code == 2
    assert "--arg: " in capsys.readouterr().err


def test_summary_negative_depth_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as e:
        main(["summary", "lenet", "--depth", "-1"])
    assert e.value.code == 2
    assert "--depth must be >= 0, got -1" in capsys.readouterr().err


# ---------------------------------------------------------------- train and report


def test_train_help_is_train_py_help_under_its_own_name():
    proc = run_nnlite("train", "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: nnlite train [-h] [--set KEY=VALUE] [--resume RUN_DIR]")
    assert "nnlite train --resume runs/" in proc.stdout
    assert "mpirun -n 2 nnlite train configs/" in proc.stdout


def test_train_missing_config_file(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    assert main(["train", str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nnlite train: error: ") and "nope.yaml" in err


def test_train_bad_override_is_a_config_error(tmp_path, capsys):
    cfg = make_config(tmp_path)
    assert main(["train", str(cfg), "--set", "optimizer.lr"]) == 2
    assert capsys.readouterr().err.startswith("nnlite train: error: ")


def test_train_then_report_subprocess(tmp_path):
    """``nnlite train`` runs a config as train.py does (run folder, report page), ``--set``
    overrides reach the run, and ``nnlite report`` rebuilds the page from the folder."""
    write_idx_dataset(tmp_path / "fm", n_train=16, n_test=8)
    cfg = make_config(tmp_path, name="cli", **fashion_sections(tmp_path, batch_size=8))
    proc = run_nnlite("train", cfg, "--set", "optimizer.lr=0.02", "--set", "name=cli", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    (run,) = run_dirs(tmp_path / "runs")
    assert run.name.startswith("cli")
    saved = (run / "config.yaml").read_text()
    assert "lr: 0.02" in saved
    page = run / "report.html"
    assert page.exists()
    page.unlink()

    proc = run_nnlite("report", run, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert Path(proc.stdout.strip()) == page
    assert page.exists() and "<html" in page.read_text().lower()


def test_report_of_a_folder_that_is_not_a_run(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("nnlite report: error: ") and str(tmp_path) in err


def test_report_open_opens_the_page_in_a_browser(tmp_path, monkeypatch, capsys):
    import webbrowser

    from nnlite.report import __main__ as report_main

    opened = []
    monkeypatch.setattr(webbrowser, "open", opened.append)
    page = tmp_path / "report.html"
    monkeypatch.setattr(report_main, "write_report", lambda run_dir: str(page))
    assert main(["report", str(tmp_path), "--open"]) == 0
    assert capsys.readouterr().out.strip() == str(page)
    assert opened == [page.resolve().as_uri()]
