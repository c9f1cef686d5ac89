"""Optimizers driving a real model: nnlite and PyTorch train the same MLP from the same weights
and stay together; a checkpoint (model + optimizer + scheduler) resumes exactly."""

import numpy as np
import pytest

import nnlite as nl

torch = pytest.importorskip("torch")
nn = pytest.importorskip("nnlite.nn")
if not hasattr(nn, "Linear"):
    pytest.skip("nnlite.nn layers are not available", allow_module_level=True)


def models(seed=0):
    torch.manual_seed(seed)
    tmodel = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    model.load_state_dict(
        {k: nl.tensor(v.detach().numpy().copy()) for k, v in tmodel.state_dict().items()}
    )
    return model, tmodel


def batches(n, seed=1):
    rng = np.random.default_rng(seed)
    return [
        (rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 4, 8)) for _ in range(n)
    ]


def train_step(model, opt, x, y, lib):
    opt.zero_grad()
    if lib is torch:
        loss = torch.nn.functional.cross_entropy(model(torch.tensor(x)), torch.tensor(y))
    else:
        loss = nn.functional.cross_entropy(model(nl.tensor(x)), nl.tensor(y))
    loss.backward()
    opt.step()
    return loss.item()


OPTIMIZERS = [
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)),
    ("Adam", dict(lr=1e-2)),
    ("AdamW", dict(lr=1e-2, amsgrad=True)),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_training_matches_torch(name, kwargs):
    model, tmodel = models()
    opt = getattr(nl.optim, name)(model.parameters(), **kwargs)
    topt = getattr(torch.optim, name)(tmodel.parameters(), **kwargs)
    for x, y in batches(20):
        loss = train_step(model, opt, x, y, nl)
        tloss = train_step(tmodel, topt, x, y, torch)
        assert loss == pytest.approx(tloss, rel=1e-4, abs=1e-5)
    for (k, v), (tk, tv) in zip(model.state_dict().items(), tmodel.state_dict().items()):
        assert k == tk
        np.testing.assert_allclose(v._data, tv.numpy(), rtol=1e-4, atol=1e-5)


def test_frozen_layer_keeps_its_weights_and_gets_no_state():
    model, _ = models()
    model[0].requires_grad_(False)
    before = model[0].weight._data.copy()
    opt = nl.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for x, y in batches(3):
        train_step(model, opt, x, y, nl)
    np.testing.assert_array_equal(model[0].weight._data, before)
    assert model[0].weight.grad is None
    assert list(opt.state_dict()["state"]) == [2, 3]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_checkpoint_resume_is_exact(name, kwargs, tmp_path):
    data = batches(12)

    def fresh():
        model, _ = models()
        opt = getattr(nl.optim, name)(model.parameters(), **kwargs)
        sched = nl.optim.lr_scheduler.StepLR(opt, step_size=4, gamma=0.5)
        return model, opt, sched

    def run(model, opt, sched, part):
        for x, y in part:
            train_step(model, opt, x, y, nl)
            sched.step()

    model, opt, sched = fresh()
    run(model, opt, sched, data)

    model1, opt1, sched1 = fresh()
    run(model1, opt1, sched1, data[:5])
    nl.save(
        {
            "model": model1.state_dict(),
            "optim": opt1.state_dict(),
            "sched": sched1.state_dict(),
            "step": 5,
        },
        tmp_path / "ckpt.npz",
    )

    model2, opt2, sched2 = fresh()
    ckpt = nl.load(tmp_path / "ckpt.npz")
    model2.load_state_dict(ckpt["model"])
    opt2.load_state_dict(ckpt["optim"])
    sched2.load_state_dict(ckpt["sched"])
    run(model2, opt2, sched2, data[ckpt["step"] :])

    for (k, v), v2 in zip(model.state_dict().items(), model2.state_dict().values()):
        np.testing.assert_array_equal(v._data, v2._data, err_msg=k)
    assert sched.get_last_lr() == sched2.get_last_lr()
