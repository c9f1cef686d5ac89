"""nnlite's annotations: mypy passes on the package with the project's configuration, and a user's
training script type-checks against nnlite's types (and its mistakes are caught)."""

import textwrap
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]


def _mypy(*args):
    # mypy's incremental cache (.mypy_cache in the checkout) keeps repeated runs to seconds
    stdout, stderr, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml"), *args])
    return stdout + stderr, status


def test_package_passes_mypy(monkeypatch):
    monkeypatch.chdir(ROOT)
    out, status = _mypy("--package", "nnlite")
    assert status == 0, out
    assert "Success: no issues found" in out


def test_package_ships_py_typed_marker():
    import tomllib

    assert (ROOT / "nnlite" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["nnlite"]


USER_SCRIPT = """
import nnlite as nl
from nnlite import nn

x = nl.randn(8, 4)
w = nl.zeros(4, 2, requires_grad=True)
reveal_type(x)
reveal_type(x @ w)
reveal_type((x @ w).relu().sum())
reveal_type(x.shape)
reveal_type(x.size(0))
reveal_type(x.max(dim=1).values)
reveal_type(x.sum().item())
reveal_type(w.grad)
reveal_type(nl.cat([x, x], dim=0))

n: int = x.numel() + "one"
x.reshape(2, 16).unsqueeze("0")
nl.tensor([1.0], requires_grad=True).backward(retain_graph="yes")
"""

EXPECTED_REVEALS = [
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.sizes.Size",
    "int",
    "nnlite.autograd.tensor.Tensor",
    "Any",
    "nnlite.autograd.tensor.Tensor | None",
    "nnlite.autograd.tensor.Tensor",
]

EXPECTED_ERRORS = [
    'Unsupported operand types for + ("int" and "str")',
    'Argument 1 has incompatible type "str"; expected "int"',
    'Argument "retain_graph" to "backward" of "Tensor" has incompatible type "str"',
]


def test_user_script_sees_nnlite_types(tmp_path, monkeypatch):
    script = tmp_path / "train_script.py"
    script.write_text(textwrap.dedent(USER_SCRIPT))
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MYPYPATH", str(ROOT))  # this checkout's nnlite, as an installed one
    out, status = _mypy(str(script))
    reveals = [
        line.split('Revealed type is "', 1)[1].rstrip('"')
        for line in out.splitlines()
        if "Revealed type is" in line
    ]
    assert reveals == EXPECTED_REVEALS, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == len(EXPECTED_ERRORS), out
    for expected in EXPECTED_ERRORS:
        assert any(expected in line for line in errors), (expected, out)
    assert status == 1
