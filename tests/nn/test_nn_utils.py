"""nnlite.nn.utils (gradient clipping, parameter vectors) and nn.parallel.data_parallel, against
PyTorch where it is installed."""

import math

import numpy as np
import pytest

import nnlite as nl
from nnlite import nn
from nnlite.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    vector_to_parameters,
)


def _params_with_grads(grads):
    params = []
    for g in grads:
        p = nn.Parameter(nl.zeros(*g.shape))
        p.grad = nl.tensor(g)
        params.append(p)
    return params


GRADS = [np.array([[3.0, -4.0], [0.5, 1.0]], np.float32), np.array([12.0, -0.25, 2.0], np.float32)]


def test_clip_grad_norm_by_hand():
    params = _params_with_grads(GRADS)
    total = clip_grad_norm_(params, max_norm=1.0)
    expected = math.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in GRADS))
    assert total.item() == pytest.approx(expected, rel=1e-6) and total.dtype == nl.float32
    coef = 1.0 / (expected + 1e-6)
    for p, g in zip(params, GRADS):
        np.testing.assert_allclose(p.grad.numpy(), g * coef, rtol=1e-6)


def test_clip_grad_norm_below_max_leaves_gradients():
    params = _params_with_grads(GRADS)
    clip_grad_norm_(params, max_norm=100.0)
    for p, g in zip(params, GRADS):
        np.testing.assert_allclose(p.grad.numpy(), g, rtol=1e-6)


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.0, float("inf"), 0.5, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 5.0, 1000.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    torch = pytest.importorskip("torch")
    params = _params_with_grads(GRADS)
    t_params = [torch.zeros(g.shape, requires_grad=True) for g in GRADS]
    for p, g in zip(t_params, GRADS):
        p.grad = torch.from_numpy(g.copy())
    ours = clip_grad_norm_(params, max_norm, norm_type=norm_type, foreach=None)
    theirs = torch.nn.utils.clip_grad_norm_(t_params, max_norm, norm_type=norm_type)
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-6)
    for p, t in zip(params, t_params):
        np.testing.assert_allclose(p.grad.numpy(), t.grad.numpy(), rtol=1e-6, atol=1e-7)


def test_clip_grad_norm_skips_missing_grads_and_accepts_one_tensor():
    with_grad, without = _params_with_grads(GRADS[:1])[0], nn.Parameter(nl.ones(2))
    total = clip_grad_norm_([with_grad, without], 1.0, foreach=True)
    assert without.grad is None and total.item() == pytest.approx(
        math.sqrt(9 + 16 + 0.25 + 1), rel=1e-6
    )
    single = _params_with_grads(GRADS[1:])[0]
    assert clip_grad_norm_(single, 1.0).item() == pytest.approx(
        math.sqrt(144 + 0.0625 + 4), rel=1e-6
    )
    assert clip_grad_norm_([without], 1.0).item() == 0.0
    with pytest.warns(UserWarning, match="empty generator"):
        clip_grad_norm_((p for p in []), 1.0)


def test_clip_grad_norm_nonfinite():
    torch = pytest.importorskip("torch")
    params = _params_with_grads([np.array([1.0, np.inf], np.float32)])
    with pytest.raises(RuntimeError) as ours:
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    t = torch.zeros(2, requires_grad=True)
    t.grad = torch.tensor([1.0, float("inf")])
    with pytest.raises(RuntimeError) as theirs:
        torch.nn.utils.clip_grad_norm_([t], 1.0, error_if_nonfinite=True)
    assert str(ours.value) == str(theirs.value)
    assert params[0].grad.tolist() == [1.0, float("inf")]  # nothing was changed
    assert math.isinf(clip_grad_norm_(params, 1.0).item())  # without the flag: scaled, as PyTorch


def test_get_total_norm():
    assert get_total_norm([nl.tensor([3.0]), nl.tensor([4.0])]).item() == pytest.approx(5.0)
    assert get_total_norm([]).item() == 0.0


def test_clip_grad_value():
    params = _params_with_grads(GRADS)
    clip_grad_value_(params, clip_value=1.0)
    for p, g in zip(params, GRADS):
        assert p.grad.tolist() == np.clip(g, -1.0, 1.0).tolist()


def test_clip_in_a_training_step():
    nl.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
    loss = (model(nl.randn(16, 4) * 100) ** 2).mean()
    loss.backward()
    clip_grad_norm_(model.parameters(), max_norm=0.5)
    total = math.sqrt(
        sum(float((p.grad.numpy().astype(np.float64) ** 2).sum()) for p in model.parameters())
    )
    assert total == pytest.approx(0.5, rel=1e-4)


def test_parameters_to_vector_and_back():
    model = nn.Linear(3, 2)
    vec = parameters_to_vector(model.parameters())
    assert vec.shape == (8,)
    assert vec.tolist() == model.weight.reshape(-1).tolist() + model.bias.tolist()
    new = nl.arange(8, dtype=nl.float32)
    vector_to_parameters(new, model.parameters())
    assert model.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and model.bias.tolist() == [
        6.0,
        7.0,
    ]
    with pytest.raises(TypeError, match="^expected nnlite.Tensor, but got: list$"):
        vector_to_parameters([1.0] * 8, model.parameters())


def test_parameters_to_vector_is_differentiable():
    model = nn.Linear(2, 1)
    (parameters_to_vector(model.parameters()) * nl.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert model.weight.grad.tolist() == [[1.0, 2.0]] and model.bias.grad.tolist() == [3.0]


def test_nn_utils_reached_as_pytorch_scripts_reach_it():
    assert nn.utils.clip_grad_norm_ is clip_grad_norm_
    import nnlite.nn.utils as utils

    assert utils.parameters_to_vector is parameters_to_vector


def test_data_parallel_function():
    nl.manual_seed(0)
    model = nn.Linear(3, 2)
    x = nl.randn(5, 3)
    out = nn.parallel.data_parallel(model, x)
    assert out.tolist() == model(x).tolist()
    out = nn.parallel.data_parallel(_Two(), (x, x), device_ids=[0, 1], output_device=0)
    assert out.shape[0] == 5
    out.sum().backward()
    with pytest.raises(RuntimeError, match="nnlite runs on the CPU only"):
        nn.parallel.data_parallel(model, x, device_ids=["cuda:0"])
    from nnlite.nn.parallel.data_parallel import DataParallel

    assert (
        nn.parallel.DataParallel is DataParallel
        and nn.parallel._data_parallel.DataParallel is DataParallel
    )


class _Two(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, a, b):
        return self.fc(a) + self.fc(b)
