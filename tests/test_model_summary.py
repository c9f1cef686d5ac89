"""nl.summary / Module.summary: the layer table of a model."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn


def conv_params(cin, cout, k):
    return cin * cout * k * k + cout


def linear_params(fin, fout):
    return fin * fout + fout


def test_lenet_rows_counts_and_mult_adds():
    s = nl.summary(nl.models.LeNet(), input_size=(2, 3, 32, 32), timing=False)
    rows = {r.name: r for r in s.layers}
    assert [r.name for r in s.layers] == [
        "LeNet",
        "conv1",
        "pool",
        "conv2",
        "pool",
        "fc1",
        "fc2",
        "fc3",
    ]
    assert rows["conv1"].type == "Conv2d" and rows["conv1"].output_shape == (2, 6, 28, 28)
    assert rows["conv2"].output_shape == (2, 16, 10, 10)
    assert rows["fc3"].output_shape == (2, 10)
    assert rows["conv1"].params == conv_params(3, 6, 5)
    assert rows["fc1"].params == linear_params(16 * 5 * 5, 120)
    expected_total = (
        conv_params(3, 6, 5)
        + conv_params(6, 16, 5)
        + linear_params(400, 120)
        + linear_params(120, 84)
        + linear_params(84, 10)
    )
    assert s.total_params == s.trainable_params == expected_total and s.frozen_params == 0
    # one dot product of length cin*k*k per output element; one of length fin per output of a Linear
    assert rows["conv1"].mult_adds == 2 * 6 * 28 * 28 * 3 * 25
    assert rows["fc2"].mult_adds == 2 * 120 * 84
    expected_adds = 2 * (6 * 28 * 28 * 75 + 16 * 10 * 10 * 150 + 400 * 120 + 120 * 84 + 84 * 10)
    assert s.total_mult_adds == expected_adds
    assert s.param_bytes == expected_total * 4
    assert s.input_bytes == 2 * 3 * 32 * 32 * 4
    # the pool module is called twice: its second row is marked shared
    pools = [r for r in s.layers if r.name == "pool"]
    assert [p.shared for p in pools] == [False, True]


def test_frozen_layers_are_marked_in_table_and_dict():
    model = nl.models.LeNet()
    model.freeze("conv1", "conv2")
    model.fc1.bias.requires_grad_(False)
    s = model.summary((1, 3, 32, 32), timing=False)
    rows = {r.name: r for r in s.layers}
    assert rows["conv1"].trainable == "False" and rows["conv2"].trainable == "False"
    assert rows["fc1"].trainable == "Partial" and rows["fc1"].frozen_params == 120
    assert rows["fc3"].trainable == "True" and rows["pool"].trainable == "--"
    assert s.frozen_params == conv_params(3, 6, 5) + conv_params(6, 16, 5) + 120
    text = str(s)
    assert "Frozen layers: conv1, conv2" in text
    assert f"Non-trainable (frozen) params: {s.frozen_params:,}" in text
    d = s.to_dict()
    assert d["frozen_params"] == s.frozen_params
    assert [r["trainable"] for r in d["layers"] if r["name"] == "conv1"] == ["False"]


def test_timing_measures_every_layer_and_leaves_the_model_as_it_was():
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 3)
    )
    model.train()
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    s = nl.summary(model, input_size=(2, 1, 8, 8), repeats=2)
    assert model.training
    after = model.state_dict()
    for k, v in before.items():  # batch-norm statistics untouched
        np.testing.assert_array_equal(after[k].numpy(), v, err_msg=k)
    assert all(p.grad is None for p in model.parameters())
    for row in s.layers:
        assert row.forward_ms is not None and row.forward_ms >= 0, row.name
        assert row.backward_ms is not None and row.backward_ms >= 0, row.name
    assert s.timed and "Fwd ms" in str(s)


def test_depth_folds_children_into_their_parent():
    model = nn.Sequential(nn.Sequential(nn.Linear(4, 5), nn.ReLU()), nn.Linear(5, 2))
    s = nl.summary(model, input_size=(3, 4), depth=1, timing=False)
    assert [(r.name, r.depth) for r in s.layers] == [("Sequential", 0), ("0", 1), ("1", 1)]
    assert s.layers[1].params == linear_params(4, 5)
    assert s.layers[1].mult_adds == 3 * 4 * 5
    assert s.total_mult_adds == 3 * 4 * 5 + 3 * 5 * 2


def test_input_data_and_bad_arguments():
    model = nn.Linear(4, 2)
    s = nl.summary(model, input_data=nl.ones(5, 4), timing=False)
    assert s.layers[0].output_shape == (5, 2)
    with pytest.raises(ValueError, match="input_size"):
        nl.summary(model)
    with pytest.raises(ValueError, match="positive ints"):
        nl.summary(model, input_size=(0, 4))
    with pytest.raises(TypeError, match="nl.nn.Module"):
        nl.summary(lambda x: x, input_size=(1, 4))


def test_shapes_and_counts_match_torch():
    torch = pytest.importorskip("torch")
    tnn = torch.nn
    twin = tnn.Sequential(
        tnn.Conv2d(3, 8, 3, padding=1, stride=2),
        tnn.BatchNorm2d(8),
        tnn.ReLU(),
        tnn.MaxPool2d(2),
        tnn.Flatten(),
        tnn.Linear(8 * 4 * 4, 5),
    )
    model = nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1, stride=2),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(8 * 4 * 4, 5),
    )
    shapes = []
    x = torch.zeros(2, 3, 16, 16)
    for layer in twin:
        x = layer(x)
        shapes.append(tuple(x.shape))
    s = nl.summary(model, input_size=(2, 3, 16, 16), timing=False)
    assert [r.output_shape for r in s.layers[1:]] == shapes
    assert [r.params for r in s.layers[1:]] == [
        sum(p.numel() for p in m.parameters()) for m in twin
    ]
    assert s.total_params == sum(p.numel() for p in twin.parameters())
