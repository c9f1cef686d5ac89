"""Loss edges against PyTorch: unbatched inputs (one sample of C classes), the legacy
``size_average`` / ``reduce`` arguments, targets of another dtype, and the errors for targets and
weights of the wrong shape (PyTorch's exception types and words)."""

import numpy as np
import pytest

import nnlite as nl
from tests.nn.parity import same_error


def _x(lib, *shape, seed=0):
    data = np.random.default_rng(seed).standard_normal(shape)
    return lib.tensor(data, requires_grad=seed == 0)


def _probs(lib, *shape):
    p = np.random.default_rng(1).uniform(0.1, 1.0, shape)
    return lib.tensor(p / p.sum(axis=-1, keepdims=True))


def _long(lib, values):
    return lib.tensor(values, dtype=lib.long)


# name -> (input shape, loss of (lib, input))
VALUE_CASES = {
    "nll_unbatched_0d_target": (
        (4,),
        lambda lib, x: lib.nn.functional.nll_loss(x, _long(lib, 2), reduction="none"),
    ),
    "nll_unbatched_1d_target": (
        (4,),
        lambda lib, x: lib.nn.functional.nll_loss(x, _long(lib, [3])),
    ),
    "cross_entropy_unbatched_1d_target": (
        (4,),
        lambda lib, x: lib.nn.functional.cross_entropy(x, _long(lib, [1]), reduction="none"),
    ),
    "cross_entropy_unbatched_probabilities": (
        (4,),
        lambda lib, x: lib.nn.functional.cross_entropy(
            x, _probs(lib, 4), weight=lib.tensor([1.0, 2.0, 0.5, 1.0], dtype=lib.float64)
        ),
    ),
    "cross_entropy_unbatched_probabilities_none": (
        (3,),
        lambda lib, x: lib.nn.functional.cross_entropy(
            x, _probs(lib, 3), reduction="none", label_smoothing=0.1
        ),
    ),
    # every target ignored: the mean is 0 / 0 = nan, and the ignored entries' gradient is 0
    "cross_entropy_every_target_ignored": (
        (3, 4),
        lambda lib, x: lib.nn.functional.cross_entropy(x, _long(lib, [-100, -100, -100])),
    ),
    "cross_entropy_smoothed_every_target_ignored": (
        (3, 4),
        lambda lib, x: lib.nn.functional.cross_entropy(
            x, _long(lib, [-100, -100, -100]), label_smoothing=0.1
        ),
    ),
    "nll_every_target_ignored": (
        (3, 4),
        lambda lib, x: lib.nn.functional.nll_loss(x, _long(lib, [-100, -100, -100])),
    ),
    # counted targets of weight 0: their gradient is nan, the ignored one's stays 0
    "nll_zero_weight_targets": (
        (3, 4),
        lambda lib, x: lib.nn.functional.nll_loss(
            x, _long(lib, [1, 1, -100]), weight=lib.tensor([1.0, 0.0, 1.0, 1.0], dtype=lib.float64)
        ),
    ),
    "mse_size_average_false": (
        (2, 3),
        lambda lib, x: lib.nn.functional.mse_loss(x, _x(lib, 2, 3, seed=1), size_average=False),
    ),
    "l1_reduce_false": (
        (2, 3),
        lambda lib, x: lib.nn.functional.l1_loss(x, _x(lib, 2, 3, seed=1), reduce=False),
    ),
    "nll_legacy_mean": (
        (3, 4),
        lambda lib, x: lib.nn.functional.nll_loss(
            x, _long(lib, [0, 3, 1]), size_average=True, reduce=True
        ),
    ),
}


# One sample with its class in a 1-vector: PyTorch computes the loss but its backward fails.
# The target class of those cases.
NO_TORCH_GRADIENT = {"nll_unbatched_1d_target": 3, "cross_entropy_unbatched_1d_target": 1}


@pytest.mark.filterwarnings("ignore:size_average and reduce args will be deprecated")
@pytest.mark.parametrize("name", list(VALUE_CASES))
def test_loss_value_and_gradient_match_torch(name):
    torch = pytest.importorskip("torch")
    shape, loss = VALUE_CASES[name]
    x_t, x_n = _x(torch, *shape), _x(nl, *shape)
    expected, got = loss(torch, x_t), loss(nl, x_n)
    assert tuple(got.shape) == tuple(expected.shape)
    assert got.dtype == nl.float64
    np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-12)
    got.sum().backward()
    if name in NO_TORCH_GRADIENT:  # PyTorch's backward fails there: a reference by hand
        x, t = x_t.detach().numpy(), NO_TORCH_GRADIENT[name]
        if name.startswith("nll"):
            want = -np.eye(x.size)[t]
        else:  # cross entropy: softmax - one-hot
            p = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
            want = p - np.eye(x.size)[t]
        np.testing.assert_allclose(x_n.grad.numpy(), want, rtol=1e-10, atol=1e-12)
        return
    expected.sum().backward()
    np.testing.assert_allclose(x_n.grad.numpy(), x_t.grad.numpy(), rtol=1e-10, atol=1e-12)


ERROR_CASES = {
    "target_out_of_bounds": lambda lib: lib.nn.functional.nll_loss(_x(lib, 3), _long(lib, 5)),
    "unbatched_target_too_long": lambda lib: lib.nn.functional.cross_entropy(
        _x(lib, 3), _long(lib, [1, 2])
    ),
    "unbatched_2d_target": lambda lib: lib.nn.functional.nll_loss(_x(lib, 3), _long(lib, [[1]])),
    "batched_2d_target": lambda lib: lib.nn.functional.nll_loss(
        _x(lib, 2, 3), _long(lib, [[0], [1]])
    ),
    "spatial_target_size": lambda lib: lib.nn.functional.nll_loss(
        _x(lib, 2, 3, 4), lib.zeros(2, 3, dtype=lib.long)
    ),
    "spatial_batch_size": lambda lib: lib.nn.functional.nll_loss(
        _x(lib, 2, 3, 4), lib.zeros(3, 4, dtype=lib.long)
    ),
    "scalar_input": lambda lib: lib.nn.functional.nll_loss(
        lib.tensor(1.0, dtype=lib.float64), _long(lib, 0)
    ),
    "probabilities_weight_shape": lambda lib: lib.nn.functional.cross_entropy(
        _x(lib, 2, 3), _probs(lib, 2, 3), weight=lib.ones(4, dtype=lib.float64)
    ),
    "unbatched_probabilities_weight_shape": lambda lib: lib.nn.functional.cross_entropy(
        _x(lib, 3), _probs(lib, 3), weight=lib.ones(4, dtype=lib.float64)
    ),
    "float_target_of_another_shape": lambda lib: lib.nn.functional.cross_entropy(
        _x(lib, 2, 3), _probs(lib, 2, 4)
    ),
    "spatial_float_target_of_another_shape": lambda lib: lib.nn.functional.cross_entropy(
        _x(lib, 2, 3, 4), _probs(lib, 2, 3, 5)
    ),
    "pos_weight_shape": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        _x(lib, 2, 3), _probs(lib, 2, 3), pos_weight=lib.ones(4, dtype=lib.float64)
    ),
    # PyTorch has no gradient for weight and pos_weight: it refuses, not silently drops it
    "bce_with_logits_weight_requires_grad": lambda lib: (
        lib.nn.functional.binary_cross_entropy_with_logits(
            _x(lib, 2, 3), _probs(lib, 2, 3), weight=_x(lib, 3)
        )
    ),
    "bce_weight_requires_grad": lambda lib: lib.nn.functional.binary_cross_entropy(
        _x(lib, 2, 3).sigmoid(), _probs(lib, 2, 3), weight=_x(lib, 3).expand(2, 3)
    ),
    "bce_with_logits_pos_weight_requires_grad": lambda lib: lib.nn.BCEWithLogitsLoss(
        pos_weight=_x(lib, 3)
    )(_x(lib, 2, 3, seed=1), _probs(lib, 2, 3)),
}


@pytest.mark.filterwarnings("ignore:Using a target size")
@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_loss_errors_match_torch(name):
    same_error(ERROR_CASES[name])


@pytest.mark.filterwarnings("ignore:Using a target size")
def test_mse_broadcast_failure_warns_then_names_the_dimension():
    same_error(
        lambda lib: lib.nn.functional.mse_loss(_x(lib, 2, 3), _x(lib, 2, 4, seed=1).detach())
    )


def test_bce_with_logits_takes_trainable_weights_without_grad_mode():
    torch = pytest.importorskip("torch", reason="torch is the reference for losses")
    results = []
    for lib in (torch, nl):
        with lib.no_grad():
            loss = lib.nn.functional.binary_cross_entropy_with_logits(
                _x(lib, 2, 3), _probs(lib, 2, 3), weight=_x(lib, 3), pos_weight=_x(lib, 3).exp()
            )
        results.append(loss.numpy())
    np.testing.assert_allclose(results[1], results[0], rtol=1e-12)


@pytest.mark.parametrize("log_input", [True, False])
def test_poisson_nll_full_gives_the_target_the_stirling_gradient(log_input):
    def loss(lib, x, y):
        return lib.nn.functional.poisson_nll_loss(x, y, log_input=log_input, full=True)

    counts = np.array([0.0, 0.5, 1.0, 2.0, 3.5, 7.0])
    rates = np.random.default_rng(2).uniform(0.2, 2.0, counts.size)

    def pair(lib):
        y = lib.tensor(counts, requires_grad=True)
        return lib.tensor(rates, requires_grad=True), y

    x_n, y_n = pair(nl)
    smooth = [1, 3, 4, 5]  # away from the zero count (NaN) and from the jump at 1
    args = (x_n[smooth].detach().requires_grad_(), y_n[smooth].detach().requires_grad_())
    assert nl.autograd.gradcheck(lambda x, y: loss(nl, x, y), args)
    assert nl.autograd.gradgradcheck(lambda x, y: loss(nl, x, y), args)
    torch = pytest.importorskip("torch", reason="torch is the reference for losses")
    x_t, y_t = pair(torch)
    loss(torch, x_t, y_t).backward()
    loss(nl, x_n, y_n).backward()
    for ours, theirs in ((x_n, x_t), (y_n, y_t)):  # NaN at the zero count, as PyTorch's
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
