"""The optimizers beyond the first ones (Adamax, NAdam, RAdam, ASGD, Rprop) and the remaining
schedulers against PyTorch: the same parameters after several steps, the same state dict, and
PyTorch's argument errors."""

import numpy as np
import pytest

import nnlite as nl

torch = pytest.importorskip("torch")

OPTIMIZERS = [
    ("Adamax", {}),
    ("Adamax", {"lr": 0.05, "weight_decay": 0.1, "maximize": True}),
    ("NAdam", {}),
    ("NAdam", {"lr": 0.05, "weight_decay": 0.1, "momentum_decay": 0.01}),
    ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.05}),
    ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True, "betas": (0.8, 0.9)}),
    ("ASGD", {"lr": 0.05}),
    ("ASGD", {"lr": 0.05, "lambd": 0.01, "t0": 2, "weight_decay": 0.1}),
    ("Rprop", {}),
    ("Rprop", {"lr": 0.05, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.2)}),
]


def _target_gradients(step):
    rng = np.random.default_rng(step)
    return rng.standard_normal((3, 2)), rng.standard_normal(2)


def _run(lib, name, options, steps=12):
    start = np.linspace(-1.0, 1.0, 6).reshape(3, 2)
    weight = lib.tensor(start.copy(), requires_grad=True)
    bias = lib.tensor(np.array([0.5, -0.25]), requires_grad=True)
    groups = [{"params": [weight]}, {"params": [bias], "lr": 0.03}]
    optimizer = getattr(lib.optim, name)(groups, **options)
    for step in range(steps):
        a, b = _target_gradients(step)
        optimizer.zero_grad()
        loss = ((weight - lib.tensor(a)) ** 2).sum() + (bias * lib.tensor(b)).sum() ** 2
        loss.backward()
        optimizer.step()
    return weight, bias, optimizer


@pytest.mark.parametrize(
    "name,options", OPTIMIZERS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIMIZERS)]
)
def test_optimizer_matches_torch(name, options):
    ours, theirs = _run(nl, name, options), _run(torch, name, options)
    for a, b in zip(ours[:2], theirs[:2]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-9)
    state_a, state_b = ours[2].state_dict(), theirs[2].state_dict()
    assert state_a["param_groups"] == state_b["param_groups"]
    for index, entries in state_b["state"].items():
        assert list(state_a["state"][index]) == list(entries)
        for key, value in entries.items():
            np.testing.assert_allclose(
                np.asarray(
                    state_a["state"][index][key].numpy()
                    if hasattr(state_a["state"][index][key], "numpy")
                    else state_a["state"][index][key],
                    dtype=float,
                ),
                value.numpy().astype(float),
                rtol=1e-6,
                atol=1e-9,
                err_msg=f"state {index} {key}",
            )


def test_optimizer_state_loads_from_torch():
    _, _, theirs = _run(torch, "NAdam", {})
    _, _, ours = _run(nl, "NAdam", {}, steps=1)
    ours.load_state_dict(
        {
            "state": {
                k: {n: nl.tensor(v.numpy()) for n, v in s.items()}
                for k, s in theirs.state_dict()["state"].items()
            },
            "param_groups": theirs.state_dict()["param_groups"],
        }
    )
    assert float(ours.state_dict()["state"][0]["step"]) == 12.0


@pytest.mark.parametrize(
    "name,options",
    [
        ("Adamax", {"betas": (1.0, 0.9)}),
        ("NAdam", {"momentum_decay": -1.0}),
        ("RAdam", {"eps": -1.0}),
        ("Rprop", {"etas": (1.5, 1.2)}),
        ("ASGD", {"lr": -1.0}),
    ],
)
def test_invalid_options_raise_pytorchs_errors(name, options):
    with pytest.raises(ValueError) as theirs:
        getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **options)
    with pytest.raises(ValueError) as ours:
        getattr(nl.optim, name)([nl.zeros(1, requires_grad=True)], **options)
    assert str(ours.value) == str(theirs.value)


SCHEDULERS = [
    ("ConstantLR", {"factor": 0.5, "total_iters": 3}, None),
    ("MultiplicativeLR", {"lr_lambda": lambda epoch: 0.9}, None),
    ("CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}, None),
    ("CosineAnnealingWarmRestarts", {"T_0": 2}, [0.5, 1.25, 2.0, 3.7, 5.0, 6.1]),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.2, "step_size_up": 3, "step_size_down": 2}, None),
    ("CyclicLR", {"base_lr": 0.01, "max_lr": 0.2, "step_size_up": 2, "mode": "triangular2"}, None),
    (
        "CyclicLR",
        {"base_lr": 0.01, "max_lr": 0.2, "step_size_up": 2, "mode": "exp_range", "gamma": 0.9},
        None,
    ),
]


@pytest.mark.parametrize(
    "name,options,epochs", SCHEDULERS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(SCHEDULERS)]
)
def test_scheduler_matches_torch(name, options, epochs):
    import warnings

    rates = []
    for lib in (nl, torch):
        param = lib.zeros(1, requires_grad=True)
        optimizer = lib.optim.SGD([param], lr=0.2, momentum=0.5)
        scheduler = getattr(lib.optim.lr_scheduler, name)(optimizer, **options)
        seen = []
        for step in epochs or range(12):
            seen.append((scheduler.get_last_lr()[0], optimizer.param_groups[0]["momentum"]))
            optimizer.step()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # step(epoch) is deprecated in both
                scheduler.step(None if epochs is None else step)
        rates.append(seen)
    np.testing.assert_allclose(rates[0], rates[1], rtol=1e-12)
