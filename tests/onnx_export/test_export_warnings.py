"""``nl.onnx.export`` where a value computed from the inputs leaves the graph for Python: a
``TracerWarning`` naming what happened (at the model's own line), an ``ExportError`` under
``strict=True``; models that keep their values in the graph export without a warning."""

import warnings

import pytest

import nnlite as nl
from nnlite import nn
from nnlite.onnx import ExportError, TracerWarning

pytest.importorskip("onnx", reason="nl.onnx.export needs the onnx package")


class Leaks(nn.Module):
    """A linear layer followed by a step that hands a value to Python."""

    def __init__(self, step):
        super().__init__()
        self.fc = nn.Linear(4, 3)
        self.step = step

    def forward(self, x):
        return self.step(self.fc(x))


def _branch(y):
    if y.sum() > 0:  # bool(tensor): the branch taken is baked in
        return y * 2
    return y


LEAKS = {
    "item": (lambda y: y * y.mean().item(), "a Python number"),
    "tolist": (lambda y: y * max(y.flatten().tolist()), "a Python list"),
    "numpy": (lambda y: y * float(y.detach().numpy().max()), "a NumPy array"),
    "if-tensor": (_branch, "a Python boolean"),
    "int": (lambda y: y * int(y.sum()), "a Python integer"),
    "float": (lambda y: y * float(y.sum()), "a Python float"),
}


def _export(model, path, **kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nl.onnx.export(model, nl.randn(2, 4), str(path), **kwargs)
    return [w for w in caught if issubclass(w.category, TracerWarning)]


@pytest.mark.parametrize("name", list(LEAKS))
def test_a_value_leaving_the_graph_warns_at_the_models_line(tmp_path, name):
    step, what = LEAKS[name]
    found = _export(Leaks(step), tmp_path / "m.onnx")
    assert found, f"no TracerWarning for {name}"
    message = str(found[0].message)
    assert f"to {what} while exporting" in message and "constant" in message
    assert found[0].filename == __file__  # the line of the model that did it


@pytest.mark.parametrize("name", list(LEAKS))
def test_strict_refuses_a_value_leaving_the_graph(tmp_path, name):
    step, what = LEAKS[name]
    with pytest.raises(ExportError, match=f"to {what} while exporting.*strict=True"):
        nl.onnx.export(Leaks(step), nl.randn(2, 4), str(tmp_path / "m.onnx"), strict=True)
    assert not (tmp_path / "m.onnx").exists()


def test_no_warning_for_values_that_stay_in_the_graph_or_never_entered_it(tmp_path):
    scale = nl.tensor(3.0)

    def step(y):
        # a constant's value (not computed from the inputs) may leave: nothing to warn about
        return nl.relu(y) * scale.item() + y.mean(dim=1, keepdim=True)

    assert _export(Leaks(step), tmp_path / "m.onnx", strict=True) == []
    assert (tmp_path / "m.onnx").exists()


def test_a_mask_computed_from_the_inputs_is_not_baked_in_as_a_constant(tmp_path):
    # a comparison has no ONNX conversion here: its result, computed from the input, must not
    # enter the graph as the constant this example gave
    with pytest.raises(ExportError, match="computed from the inputs by an op that cannot be"):
        nl.onnx.export(Leaks(lambda y: y * (y > 0)), nl.randn(2, 4), str(tmp_path / "m.onnx"))


def test_the_tensor_methods_are_restored_after_export(tmp_path):
    before = {a: getattr(nl.Tensor, a) for a in ("item", "tolist", "numpy", "__bool__", "detach")}
    _export(Leaks(LEAKS["item"][0]), tmp_path / "m.onnx")
    assert {a: getattr(nl.Tensor, a) for a in before} == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nl.ones(1, requires_grad=True).sum().item() == 1.0  # no warning outside export
