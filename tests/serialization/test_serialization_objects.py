"""Whole objects saved as torch.save saves them (a model, a dict holding a model and its
optimizer): nl.load refuses them by default naming the global and the two ways out, loads them
with weights_only=False or with the classes allowlisted, and never runs code otherwise."""

import argparse
import io
import os
import pickle

import numpy as np
import pytest

import nnlite as nl
from nnlite.serialization import CheckpointError, WeightsOnlyError


class TinyNet(nl.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nl.nn.Linear(3, 4)
        self.bn = nl.nn.BatchNorm1d(4)
        self.head = nl.nn.Linear(4, 4)
        self.head.weight = self.fc2_weight = nl.nn.Parameter(nl.randn(4, 4))  # tied
        self.scale = 0.5
        self.dtype_seen = nl.float64

    def forward(self, x):
        return self.head(self.bn(self.fc(x))) * self.scale


TINY_CLASSES = [TinyNet, nl.nn.Linear, nl.nn.BatchNorm1d]


class _Marker:
    """A class whose unpickling leaves a file behind: it must never run unless allowed."""

    def __init__(self, path):
        self.path = path

    def __setstate__(self, state):
        with open(state["path"], "w") as f:
            f.write("ran")
        self.__dict__.update(state)


def trained_net():
    nl.manual_seed(0)
    net = TinyNet()
    net(nl.randn(8, 3)).sum().backward()  # running statistics move off their initial values
    return net.eval()


def saved(obj, path=None):
    if path is None:
        buf = io.BytesIO()
        nl.save(obj, buf)
        buf.seek(0)
        return buf
    nl.save(obj, path)
    return path


def test_default_load_refuses_naming_the_global_and_the_two_ways(tmp_path):
    path = saved(trained_net(), tmp_path / "model.pt")
    with pytest.raises(WeightsOnlyError) as e:
        nl.load(path)
    message = str(e.value)
    name = f"{TinyNet.__module__}.TinyNet"
    assert str(path) in message and f"the global {name} was not an allowed global" in message
    assert "weights_only=False" in message
    assert f"nnlite.serialization.add_safe_globals([{name}])" in message
    assert f"nnlite.serialization.safe_globals([{name}])" in message
    # PyTorch raises pickle.UnpicklingError here; nnlite's error is also a CheckpointError
    assert isinstance(e.value, pickle.UnpicklingError) and isinstance(e.value, CheckpointError)


@pytest.mark.parametrize("where", ["file object", "model.pt", "model.pth", "model.bin"])
def test_weights_only_false_restores_the_model(tmp_path, where):
    net = trained_net()
    target = saved(net, None if where == "file object" else tmp_path / where)
    restored = nl.load(target, weights_only=False)
    assert type(restored) is TinyNet and restored.scale == 0.5 and not restored.training
    assert restored.dtype_seen is nl.float64
    x = nl.randn(5, 3)
    np.testing.assert_array_equal(restored(x).detach().numpy(), net(x).detach().numpy())
    assert restored.head.weight is restored.fc2_weight  # tied weights stay one Parameter
    assert isinstance(restored.fc.weight, nl.nn.Parameter) and restored.fc.weight.requires_grad
    assert restored.bn.num_batches_tracked.item() == 1
    assert list(restored.state_dict()) == list(net.state_dict())


def test_allowlisted_classes_load_with_weights_only(tmp_path):
    net = trained_net()
    path = saved(net, tmp_path / "model.pt")
    with nl.serialization.safe_globals(TINY_CLASSES):
        assert nl.serialization.get_safe_globals() == TINY_CLASSES
        restored = nl.load(path)
    assert nl.serialization.get_safe_globals() == []
    x = nl.randn(5, 3)
    np.testing.assert_array_equal(restored(x).detach().numpy(), net(x).detach().numpy())
    # one class short: the refusal names the missing one
    with nl.serialization.safe_globals([TinyNet, nl.nn.Linear]):
        with pytest.raises(
            WeightsOnlyError, match="global nnlite.nn.modules.batchnorm.BatchNorm1d"
        ):
            nl.load(path)


def test_add_safe_globals_persists_until_cleared(tmp_path):
    path = saved(trained_net(), tmp_path / "model.pt")
    try:
        nl.serialization.add_safe_globals(TINY_CLASSES)
        assert type(nl.load(path)) is TinyNet
    finally:
        nl.serialization.clear_safe_globals()
    with pytest.raises(WeightsOnlyError):
        nl.load(path)
    with pytest.raises(TypeError, match="must be a list"):
        nl.serialization.add_safe_globals(TinyNet)


def test_a_model_and_its_optimizer_in_one_dict(tmp_path):
    net = trained_net()
    opt = nl.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    opt.step()
    path = saved({"model": net, "optim": opt, "epoch": 3}, tmp_path / "ckpt.pth")
    out = nl.load(path, weights_only=False)
    assert out["epoch"] == 3
    params = list(out["model"].parameters())
    assert out["optim"].param_groups[0]["params"] == params
    assert all(a is b for a, b in zip(out["optim"].param_groups[0]["params"], params))
    for p, q in zip(net.parameters(), params):
        np.testing.assert_array_equal(
            opt.state[p]["momentum_buffer"].numpy(),
            out["optim"].state[q]["momentum_buffer"].numpy(),
        )


def test_nothing_runs_unless_the_user_opts_out(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = saved({"w": nl.ones(2), "marker": _Marker("ran.txt")}, tmp_path / "m.pt")
    with pytest.raises(WeightsOnlyError, match="_Marker"):
        nl.load(path)
    with nl.serialization.safe_globals([TinyNet]):  # allowing one class allows no other
        with pytest.raises(WeightsOnlyError, match="_Marker"):
            nl.load(path)
    assert not os.path.exists("ran.txt")
    out = nl.load(path, weights_only=False)
    assert os.path.exists("ran.txt") and out["w"].tolist() == [1.0, 1.0]


def test_named_npz_still_refuses_objects(tmp_path):
    with pytest.raises(TypeError, match="cannot save an object of type"):
        nl.save(trained_net(), tmp_path / "model.npz")
    with pytest.raises(TypeError, match="cannot save an object of type"):
        nl.save(trained_net(), io.BytesIO(), format="npz")


def test_unpicklable_objects_name_the_problem(tmp_path):
    with pytest.raises(TypeError, match="nl.save: cannot pickle"):
        nl.save({"f": lambda x: x}, tmp_path / "f.pt")
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------ PyTorch as the oracle


def test_torch_reads_the_tensors_of_an_object_pickle(tmp_path):
    torch = pytest.importorskip("torch")
    args = argparse.Namespace(lr=0.5, layers=[1, 2])
    nl.save(
        {"args": args, "w": nl.arange(6.0).reshape(2, 3), "i": nl.tensor([1, 2])}, tmp_path / "a.pt"
    )
    theirs = torch.load(tmp_path / "a.pt", weights_only=False)
    assert theirs["args"] == args
    assert torch.equal(theirs["w"], torch.arange(6.0).reshape(2, 3))
    assert theirs["i"].dtype == torch.int64 and theirs["i"].tolist() == [1, 2]
    # and PyTorch's default refuses the same file as nnlite's does, naming the same global
    with pytest.raises(pickle.UnpicklingError, match="argparse.Namespace"):
        torch.load(tmp_path / "a.pt")
    with pytest.raises(WeightsOnlyError, match="the global argparse.Namespace"):
        nl.load(tmp_path / "a.pt")
    with nl.serialization.safe_globals([argparse.Namespace]):
        assert nl.load(tmp_path / "a.pt")["args"] == args


def test_a_torch_model_is_refused_even_with_weights_only_false(tmp_path):
    torch = pytest.importorskip("torch")
    torch.save(torch.nn.Linear(2, 3), tmp_path / "linear.pt")
    with pytest.raises(CheckpointError, match="whole model .*torch.nn.modules.linear.Linear"):
        nl.load(tmp_path / "linear.pt")
    with pytest.warns(UserWarning, match="not written by nl.save"):
        with pytest.raises(CheckpointError, match="whole model .*torch.nn.modules.linear.Linear"):
            nl.load(tmp_path / "linear.pt", weights_only=False)
