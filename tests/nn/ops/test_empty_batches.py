"""A batch of 0 samples through pooling, BatchNorm (eval and training) and GroupNorm, and
softmax/log_softmax over 0 classes: empty results and gradients of PyTorch's shapes, no error;
the statistics of a BatchNorm trained on an empty batch stay as they were."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn import functional as F

LAYERS = {
    "max_pool2d": lambda lib: lambda t: lib.nn.functional.max_pool2d(t, 2),
    "avg_pool2d": lambda lib: lambda t: lib.nn.functional.avg_pool2d(t, 2),
    "adaptive_avg_pool2d": lambda lib: lambda t: lib.nn.functional.adaptive_avg_pool2d(t, 1),
    "adaptive_max_pool2d": lambda lib: lambda t: lib.nn.functional.adaptive_max_pool2d(t, 1),
    "BatchNorm2d-eval": lambda lib: lib.nn.BatchNorm2d(3).eval(),
    "BatchNorm2d-train": lambda lib: lib.nn.BatchNorm2d(3),
    "GroupNorm": lambda lib: lib.nn.GroupNorm(1, 3),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_a_batch_of_zero_gives_an_empty_result_and_gradient(name):
    x = nl.zeros(0, 3, 4, 4, requires_grad=True)
    y = LAYERS[name](nl)(x)
    assert y.shape[0] == 0 and y.shape[1] == 3
    y.sum().backward()
    assert x.grad.shape == (0, 3, 4, 4)


@pytest.mark.parametrize("name", list(LAYERS))
def test_a_batch_of_zero_matches_pytorch(name):
    torch = pytest.importorskip("torch", reason="the expected shapes come from PyTorch")
    ours = LAYERS[name](nl)(nl.zeros(0, 3, 4, 4))
    theirs = LAYERS[name](torch)(torch.zeros(0, 3, 4, 4))
    assert tuple(ours.shape) == tuple(theirs.shape)


def test_batchnorm_trained_on_an_empty_batch_keeps_its_statistics():
    bn = nn.BatchNorm2d(3)
    bn.running_mean.fill_(0.5)
    bn.running_var.fill_(2.0)
    y = bn(nl.zeros(0, 3, 4, 4))
    y.sum().backward()
    assert bn.running_mean.tolist() == [0.5] * 3 and bn.running_var.tolist() == [2.0] * 3
    assert int(bn.num_batches_tracked) == 1  # counted, as PyTorch counts it
    assert bn.weight.grad.tolist() == [0.0] * 3 and bn.bias.grad.tolist() == [0.0] * 3


def test_batchnorm_still_refuses_one_value_per_channel_when_training():
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        nn.BatchNorm1d(3)(nl.zeros(1, 3))


def test_pooling_still_refuses_empty_channels_or_pixels():
    with pytest.raises(
        Exception, match=r"optional 0 dim batch size for input, but got:\[2, 0, 4, 4\]"
    ):
        F.max_pool2d(nl.zeros(2, 0, 4, 4), 2)
    with pytest.raises(Exception, match="optional 0 dim batch size"):
        F.avg_pool2d(nl.zeros(0, 4, 4), 2)  # unbatched: every dimension counts


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
def test_softmax_over_zero_classes_is_empty(fn):
    x = nl.zeros(2, 0, requires_grad=True)
    y = fn(x, dim=1)
    assert y.shape == (2, 0)
    y.sum().backward()
    assert x.grad.shape == (2, 0)
    assert fn(nl.zeros(0, 5), dim=1).shape == (0, 5)


def test_softmax_over_zero_classes_matches_pytorch():
    torch = pytest.importorskip("torch", reason="the expected shapes come from PyTorch")
    for fn in ("softmax", "log_softmax"):
        ours = getattr(F, fn)(nl.zeros(2, 0), dim=1)
        theirs = getattr(torch.nn.functional, fn)(torch.zeros(2, 0), dim=1)
        assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(
        F.softmax(nl.tensor([[1.0, 2.0]]), dim=1).numpy(),
        torch.softmax(torch.tensor([[1.0, 2.0]]), dim=1).numpy(),
        rtol=1e-6,
    )
