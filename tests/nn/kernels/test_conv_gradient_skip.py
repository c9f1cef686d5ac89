"""A convolution's backward computes only the gradients its inputs need: a frozen backbone runs no
conv gradient kernel at all, and a trainable conv on a frozen one's output skips its input gradient."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import kernels


@pytest.fixture
def calls(monkeypatch):
    """Counts of the conv gradient kernels run, by name."""
    counts = {"conv2d_backward_input": 0, "conv2d_backward_weight": 0}
    for name in counts:
        real = getattr(kernels, name)

        def counted(*args, _real=real, _name=name):
            counts[_name] += 1
            return _real(*args)

        monkeypatch.setattr(kernels, name, counted)
    return counts


def _net():
    nl.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1),
        nn.BatchNorm2d(8),
        nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2, padding=1),
        nn.ReLU(),
        nn.AdaptiveAvgPool2d(1),
        nn.Flatten(),
        nn.Linear(16, 4),
    )


def _step(model, batch=2):
    x = nl.from_numpy(np.random.default_rng(0).standard_normal((batch, 3, 8, 8)).astype(np.float32))
    model(x).sum().backward()


def test_frozen_backbone_runs_no_conv_gradient(calls):
    model = _net()
    for p in model.parameters():
        p.requires_grad = False
    model[7] = nn.Linear(16, 4)  # the new head
    _step(model)
    assert calls == {"conv2d_backward_input": 0, "conv2d_backward_weight": 0}
    assert model[7].weight.grad is not None and model[0].weight.grad is None


def test_trainable_conv_on_frozen_features_skips_its_input_gradient(calls):
    model = _net()
    for layer in model[:2]:  # conv and batch norm
        for p in layer.parameters():
            p.requires_grad = False
    _step(model)
    # Only the second conv has a gradient to compute: its weight's, not its input's.
    assert calls == {"conv2d_backward_input": 0, "conv2d_backward_weight": 1}
    assert model[3].weight.grad is not None and model[0].weight.grad is None


def test_all_trainable_runs_both_gradients_below_the_head(calls):
    _step(_net())
    # The first conv's input (the data) needs no gradient; the second conv needs both.
    assert calls == {"conv2d_backward_input": 1, "conv2d_backward_weight": 2}
