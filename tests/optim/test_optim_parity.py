"""nnlite's optimizers against torch.optim: the same parameters and gradients, 20 steps, the same
parameters and state (within float32 rounding); state dicts in PyTorch's layout."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim

torch = pytest.importorskip("torch")

SHAPES = [(4, 3), (5,), (2, 3, 2), ()]
STEPS = 20

# (optimizer name, options); every row runs against torch.optim.<name> with the same options.
CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.5, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01, maximize=True)),
    ("SGD", dict(lr=0.05, weight_decay=0.2, maximize=True)),
    ("SGD", dict(lr=0.05, maximize=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.5, weight_decay=0.05)),
    ("Adam", dict()),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=0.01, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, amsgrad=True)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.05, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.3, 0.9))),  # lerp weight >= 0.5
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict()),
    ("AdamW", dict(lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("AdamW", dict(lr=0.01, maximize=True, betas=(0.5, 0.9))),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.1)),
    ("Adadelta", dict(maximize=True, weight_decay=0.05)),
    ("RMSprop", dict()),
    ("RMSprop", dict(lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.9)),
    ("RMSprop", dict(lr=0.01, centered=True)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.5, maximize=True, weight_decay=0.05)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
    ("Adagrad", dict(lr=0.1, eps=1e-6, maximize=True)),
]
IDS = [
    name + "-" + ("-".join(f"{k}={v}" for k, v in kw.items()) or "defaults") for name, kw in CONFIGS
]

RTOL, ATOL = 1e-5, 1e-6


def make_pair(rng, shapes=SHAPES, dtype=np.float32):
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    nl_params = [nl.tensor(a, requires_grad=True) for a in arrays]
    torch_params = [torch.tensor(a, requires_grad=True) for a in arrays]
    return nl_params, torch_params


def set_grads(rng, nl_params, torch_params, skip=()):
    for i, (p, q) in enumerate(zip(nl_params, torch_params)):
        if i in skip:
            p.grad = None
            q.grad = None
            continue
        g = rng.standard_normal(p.shape).astype(p._data.dtype)
        p.grad = nl.tensor(g)
        q.grad = torch.tensor(g)


def assert_params_close(nl_params, torch_params, rtol=RTOL, atol=ATOL):
    for p, q in zip(nl_params, torch_params):
        np.testing.assert_allclose(p._data, q.detach().numpy(), rtol=rtol, atol=atol)


def assert_state_matches(nl_opt, torch_opt):
    nsd, tsd = nl_opt.state_dict(), torch_opt.state_dict()
    assert nsd["param_groups"] == tsd["param_groups"]
    assert list(nsd["state"]) == list(tsd["state"])
    for idx, tstate in tsd["state"].items():
        nstate = nsd["state"][idx]
        assert list(nstate) == list(tstate)
        for key, tval in tstate.items():
            nval = nstate[key]
            assert isinstance(nval, nl.Tensor)
            if key == "step":
                assert nval._data.dtype == np.float32 and nval._data.shape == ()
                assert float(nval._data) == float(tval)
            else:
                np.testing.assert_allclose(nval._data, tval.numpy(), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_twenty_steps_match_torch(name, kwargs):
    rng = np.random.default_rng(0)
    nl_params, torch_params = make_pair(rng)
    nl_opt = getattr(optim, name)(nl_params, **kwargs)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    for step in range(STEPS):
        # parameter 1 has no gradient on some steps: it is skipped then (Adam's step count too)
        set_grads(rng, nl_params, torch_params, skip=(1,) if step % 3 == 1 else ())
        nl_opt.step()
        torch_opt.step()
        assert_params_close(nl_params, torch_params)
    assert_state_matches(nl_opt, torch_opt)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_float64_params_match_torch(name, kwargs):
    rng = np.random.default_rng(1)
    nl_params, torch_params = make_pair(rng, dtype=np.float64)
    nl_opt = getattr(optim, name)(nl_params, **kwargs)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    for _ in range(5):
        set_grads(rng, nl_params, torch_params)
        nl_opt.step()
        torch_opt.step()
    for p in nl_params:
        assert p._data.dtype == np.float64
    assert_params_close(nl_params, torch_params, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_twenty_float64_steps_match_torch(name, kwargs):
    rng = np.random.default_rng(7)
    nl_params, torch_params = make_pair(rng, dtype=np.float64)
    nl_opt = getattr(optim, name)(nl_params, **kwargs)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    for step in range(STEPS):
        set_grads(rng, nl_params, torch_params, skip=(1,) if step % 3 == 1 else ())
        nl_opt.step()
        torch_opt.step()
        assert_params_close(nl_params, torch_params, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_repr_matches_torch(name, kwargs):
    rng = np.random.default_rng(2)
    nl_params, torch_params = make_pair(rng)
    assert repr(getattr(optim, name)(nl_params, **kwargs)) == repr(
        getattr(torch.optim, name)(torch_params, **kwargs)
    )


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_state_dict_round_trip_mid_run(name, kwargs, tmp_path):
    """Save after 10 steps, load into a fresh optimizer over copies of the parameters, continue:
    the result equals 20 uninterrupted steps bit for bit."""
    rng = np.random.default_rng(3)
    grads = [[rng.standard_normal(s).astype(np.float32) for s in SHAPES] for _ in range(STEPS)]
    start = [rng.standard_normal(s).astype(np.float32) for s in SHAPES]

    def run(params, opt, steps):
        for gs in steps:
            for p, g in zip(params, gs):
                p.grad = nl.tensor(g)
            opt.step()

    straight = [nl.tensor(a, requires_grad=True) for a in start]
    opt = getattr(optim, name)(straight, **kwargs)
    run(straight, opt, grads)

    first = [nl.tensor(a, requires_grad=True) for a in start]
    opt1 = getattr(optim, name)(first, **kwargs)
    run(first, opt1, grads[:10])
    nl.save(
        {"params": [p.detach() for p in first], "optim": opt1.state_dict()}, tmp_path / "ckpt.npz"
    )
    del opt1

    ckpt = nl.load(tmp_path / "ckpt.npz")
    second = [nl.tensor(p._data, requires_grad=True) for p in ckpt["params"]]
    opt2 = getattr(optim, name)(second, lr=123.0)  # options come from the state dict
    opt2.load_state_dict(ckpt["optim"])
    assert opt2.param_groups[0]["lr"] == kwargs.get("lr", opt.defaults["lr"])
    run(second, opt2, grads[10:])

    for a, b in zip(straight, second):
        np.testing.assert_array_equal(a._data, b._data)
    sd_a, sd_b = opt.state_dict(), opt2.state_dict()
    assert sd_a["param_groups"] == sd_b["param_groups"]
    for idx in sd_a["state"]:
        for key in sd_a["state"][idx]:
            np.testing.assert_array_equal(
                sd_a["state"][idx][key]._data, sd_b["state"][idx][key]._data
            )


@pytest.mark.parametrize("name,kwargs", CONFIGS, ids=IDS)
def test_loads_torch_state_dict(name, kwargs):
    """A torch.optim state dict (tensors converted to nnlite) loads and continues like torch."""
    rng = np.random.default_rng(4)
    nl_params, torch_params = make_pair(rng)
    torch_opt = getattr(torch.optim, name)(torch_params, **kwargs)
    for _ in range(5):
        set_grads(rng, nl_params, torch_params)
        torch_opt.step()
    tsd = torch_opt.state_dict()
    converted = {
        "state": {
            i: {k: nl.tensor(v.numpy().copy()) for k, v in s.items()}
            for i, s in tsd["state"].items()
        },
        "param_groups": tsd["param_groups"],
    }
    for p, q in zip(nl_params, torch_params):
        p._data[...] = q.detach().numpy()
    nl_opt = getattr(optim, name)(nl_params, **kwargs)
    nl_opt.load_state_dict(converted)
    for _ in range(5):
        set_grads(rng, nl_params, torch_params)
        nl_opt.step()
        torch_opt.step()
    assert_params_close(nl_params, torch_params)
    assert_state_matches(nl_opt, torch_opt)


@pytest.mark.parametrize("name", ["SGD", "Adam", "AdamW"])
def test_param_groups_with_own_options_match_torch(name):
    rng = np.random.default_rng(5)
    nl_params, torch_params = make_pair(rng)
    extra = {
        "SGD": dict(momentum=0.9, nesterov=True),
        "Adam": dict(amsgrad=True),
        "AdamW": dict(betas=(0.5, 0.6)),
    }[name]

    def groups(ps):
        return [{"params": ps[:2]}, {"params": ps[2:3], "lr": 0.5, **extra}]

    nl_opt = getattr(optim, name)(groups(nl_params), lr=0.01)
    torch_opt = getattr(torch.optim, name)(groups(torch_params), lr=0.01)
    # a group added later, as when unfreezing layers
    nl_opt.add_param_group({"params": [nl_params[3]], "weight_decay": 0.1})
    torch_opt.add_param_group({"params": [torch_params[3]], "weight_decay": 0.1})
    assert repr(nl_opt) == repr(torch_opt)
    for _ in range(STEPS):
        set_grads(rng, nl_params, torch_params)
        nl_opt.step()
        torch_opt.step()
    assert_params_close(nl_params, torch_params)
    assert_state_matches(nl_opt, torch_opt)


def test_lr_changed_between_steps_is_used():
    rng = np.random.default_rng(6)
    nl_params, torch_params = make_pair(rng)
    nl_opt = optim.SGD(nl_params, lr=0.1, momentum=0.9)
    torch_opt = torch.optim.SGD(torch_params, lr=0.1, momentum=0.9)
    for step in range(6):
        for o in (nl_opt, torch_opt):
            o.param_groups[0]["lr"] = 0.1 / (step + 1)
        set_grads(rng, nl_params, torch_params)
        nl_opt.step()
        torch_opt.step()
    assert_params_close(nl_params, torch_params)
