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
from nnlite import nn, optim
from nnlite.data import DataLoader, TensorDataset


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.act = nn.ReLU()

    def forward(self, x: nl.Tensor) -> nl.Tensor:
        return self.act(self.fc(x))


x = nl.randn(8, 4)
y = nl.randint(0, 3, (8,))
model = Net().train()
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = optim.lr_scheduler.StepLR(opt, step_size=1)
loss_fn = nn.CrossEntropyLoss()
loader = DataLoader(TensorDataset(x, y), batch_size=4, shuffle=True)
for xb, yb in loader:
    opt.zero_grad()
    loss = loss_fn(model(xb), yb)
    loss.backward()
    opt.step()
scheduler.step()
nl.save(model.state_dict(), "model.npz")

reveal_type(model)
reveal_type(model.forward(x))
reveal_type(model.fc.weight)
reveal_type(next(model.parameters()))
reveal_type(model.state_dict())
reveal_type(x @ x.T)
reveal_type(x.relu().sum())
reveal_type(x.shape)
reveal_type(x.size(0))
reveal_type(x.max(dim=1).values)
reveal_type(x.sum().item())
reveal_type(x.grad)
reveal_type(nl.cat([x, x], dim=0))
reveal_type(scheduler.get_last_lr())

n: int = x.numel() + "one"
x.reshape(2, 16).unsqueeze("0")
x.backward(retain_graph="yes")
opt.zero_grad(set_to_none="no")
nn.Linear(4, "3")
"""

EXPECTED_REVEALS = [
    "train_script.Net",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.nn.parameter.Parameter",
    "nnlite.nn.parameter.Parameter",
    "dict[str, Any]",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.sizes.Size",
    "int",
    "nnlite.autograd.tensor.Tensor",
    "Any",
    "nnlite.autograd.tensor.Tensor | None",
    "nnlite.autograd.tensor.Tensor",
    "list[float]",
]

EXPECTED_ERRORS = [
    'Unsupported operand types for + ("int" and "str")',
    'Argument 1 has incompatible type "str"; expected "int"',
    'Argument "retain_graph" to "backward" of "Tensor" has incompatible type "str"',
    'Argument "set_to_none" to "zero_grad" of "Optimizer" has incompatible type "str"',
    'Argument 2 to "Linear" has incompatible type "str"; expected "int"',
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
