"""nnlite's annotations: mypy passes on the package with the project's configuration, and a user's
training script type-checks against nnlite's types (and its mistakes are caught)."""

import textwrap
from pathlib import Path

import pytest
from optional_modules import importable

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]


def _mypy(*args):
    # mypy's incremental cache (.mypy_cache in the checkout) keeps repeated runs to seconds
    stdout, stderr, status = mypy_api.run(["--config-file", str(ROOT / "pyproject.toml"), *args])
    return stdout + stderr, status


def _mypy_as_a_user(tmp_path, script):
    """mypy --strict on a user's script, with a user's (empty) configuration and this checkout's
    nnlite as if installed: nnlite's exports and types as a strict user sees them."""
    config = tmp_path / "mypy.ini"
    config.write_text("[mypy]\n")
    stdout, stderr, status = mypy_api.run(
        ["--config-file", str(config), "--strict", "--cache-dir", str(tmp_path / "cache"), script]
    )
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
        # a Module's __call__ returns Any, as PyTorch's does: strict checking wants a typed local
        out: nl.Tensor = self.act(self.fc(x))
        return out


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
    out, status = _mypy_as_a_user(tmp_path, str(script))
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


DATA_AND_LAYERS_SCRIPT = """
import numpy as np

import nnlite as nl
import nnlite.nn.functional as F
from nnlite import nn
from nnlite.data import DataLoader
from nnlite.data import transforms as T
from nnlite.data.datasets import FakeData

pipeline = T.Compose(
    [T.RandomCrop(8, padding=2), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize((0.5,), (0.5,))]
)
dataset = FakeData(size=4, image_size=(3, 8, 8), transform=pipeline)
loader = DataLoader(dataset, batch_size=2)
x = nl.randn(2, 3, 8, 8)
w = nl.randn(4, 3, 3, 3)
y = F.conv2d(x, w, stride=(1, 1), padding="same")
z = F.conv_transpose2d(y, nl.randn(4, 2, 3, 3), stride=2, output_padding=1)
lstm = nn.LSTM(8, 16, batch_first=True)
out, (h, c) = lstm.forward(nl.randn(2, 5, 8))
nl.save({"conv": w, "lstm": lstm.state_dict()}, "ckpt.pth")
state = nl.load("ckpt.pth", weights_only=True)

reveal_type(T.ToTensor()(np.zeros((4, 4, 3), np.uint8)))
reveal_type(T.Normalize((0.5,), (0.5,))(x))
reveal_type(T.CenterCrop(4)(np.zeros((8, 8, 3), np.uint8)))
reveal_type(dataset[0])
reveal_type(y)
reveal_type(z)
reveal_type(out)
reveal_type(c)
reveal_type(state)

F.conv2d(x, w, stride="2")
F.conv_transpose2d(y, w, padding=1.5)
nn.LSTM(8, "16")
T.Normalize("0.5", (0.5,))
nl.save(w, 3)
"""

DATA_AND_LAYERS_REVEALS = [
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    # without Pillow, the overload for PIL images (Any then) takes every call
    "numpy.ndarray[Any, Any]" if importable("PIL") else "Any",
    "tuple[Any, Any]",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "nnlite.autograd.tensor.Tensor",
    "Any",
]

DATA_AND_LAYERS_ERRORS = [
    'Argument "stride" to "conv2d" has incompatible type "str"; expected "int | Sequence[int]"',
    'Argument "padding" to "conv_transpose2d" has incompatible type "float"',
    'Argument 2 to "LSTM" has incompatible type "str"; expected "int"',
    'Argument 1 to "Normalize" has incompatible type "str"',
    'Argument 2 to "save" has incompatible type "int"',
]


def test_transforms_datasets_conv_lstm_and_save_are_typed(tmp_path, monkeypatch):
    script = tmp_path / "data_script.py"
    script.write_text(textwrap.dedent(DATA_AND_LAYERS_SCRIPT))
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("MYPYPATH", str(ROOT))
    out, status = _mypy_as_a_user(tmp_path, str(script))
    reveals = [
        line.split('Revealed type is "', 1)[1].rstrip('"')
        for line in out.splitlines()
        if "Revealed type is" in line
    ]
    assert reveals == DATA_AND_LAYERS_REVEALS, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == len(DATA_AND_LAYERS_ERRORS), out
    for expected in DATA_AND_LAYERS_ERRORS:
        assert any(expected in line for line in errors), (expected, out)
    assert status == 1


def test_all_lists_every_public_name_of_nnlite():
    # type checkers in strict mode count a name as exported only when __all__ lists it
    import types

    import nnlite as nl

    public = {
        name
        for name in dir(nl)
        if not name.startswith("_")
        and name not in ("TYPE_CHECKING", "Any")
        and not isinstance(getattr(nl, name), types.ModuleType)
    }
    assert public <= set(nl.__all__), sorted(public - set(nl.__all__))
    assert all(hasattr(nl, name) for name in nl.__all__)
