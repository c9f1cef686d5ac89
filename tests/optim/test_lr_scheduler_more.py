"""OneCycleLR, SequentialLR, ChainedScheduler and ReduceLROnPlateau against torch: identical
learning rates (and momentum) step for step, state dicts equal to torch's, and a save/load round
trip that continues identically."""

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim
from nnlite.optim import lr_scheduler

torch = pytest.importorskip("torch")

STEPS = 20


def optimizer_pair(kind="SGD", dtype=np.float64):
    a = np.ones(3, dtype)
    b = np.ones(2, dtype)
    extra = {"SGD": dict(momentum=0.9), "Adam": dict()}[kind]
    nl_opt = getattr(optim, kind)(
        [
            {"params": [nl.tensor(a, requires_grad=True)], "lr": 0.1},
            {"params": [nl.tensor(b, requires_grad=True)], "lr": 0.02},
        ],
        lr=0.1,
        **extra,
    )
    t_opt = getattr(torch.optim, kind)(
        [
            {"params": [torch.tensor(a, requires_grad=True)], "lr": 0.1},
            {"params": [torch.tensor(b, requires_grad=True)], "lr": 0.02},
        ],
        lr=0.1,
        **extra,
    )
    return nl_opt, t_opt


def groups_of(opt):
    """Every group option but the parameters (lr, momentum/betas, initial_lr, ...)."""
    return [{k: v for k, v in g.items() if k != "params"} for g in opt.param_groups]


def one_cycle(lib, opt, **kw):
    return lib.OneCycleLR(opt, **kw)


def sequential(lib, opt):
    warm = lib.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = lib.ExponentialLR(opt, gamma=0.8)
    cosine = lib.CosineAnnealingLR(opt, T_max=4)
    return lib.SequentialLR(opt, [warm, decay, cosine], milestones=[3, 9])


def chained(lib, opt):
    return lib.ChainedScheduler(
        [
            lib.LinearLR(opt, start_factor=0.5, total_iters=4),
            lib.StepLR(opt, step_size=3, gamma=0.5),
            lib.PolynomialLR(opt, total_iters=15, power=1.5),
        ]
    )


CASES = {
    "onecycle-cos": lambda lib, opt: one_cycle(lib, opt, max_lr=[1.0, 0.5], total_steps=STEPS),
    "onecycle-linear-3phase": lambda lib, opt: one_cycle(
        lib,
        opt,
        max_lr=0.4,
        epochs=4,
        steps_per_epoch=5,
        anneal_strategy="linear",
        three_phase=True,
        pct_start=0.25,
    ),
    "onecycle-no-momentum": lambda lib, opt: one_cycle(
        lib,
        opt,
        max_lr=0.3,
        total_steps=STEPS + 5,
        cycle_momentum=False,
        div_factor=10.0,
        final_div_factor=100.0,
    ),
    "sequential": sequential,
    "chained": chained,
}


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("case", list(CASES))
def test_equal_to_torch_step_for_step(case, kind):
    nl_opt, t_opt = optimizer_pair(kind)
    make = CASES[case]
    sched, tsched = make(lr_scheduler, nl_opt), make(torch.optim.lr_scheduler, t_opt)
    assert groups_of(nl_opt) == groups_of(t_opt)
    for _ in range(STEPS):
        nl_opt.step()
        t_opt.step()
        sched.step()
        tsched.step()
        assert sched.get_last_lr() == tsched.get_last_lr()
        assert groups_of(nl_opt) == groups_of(t_opt)


@pytest.mark.parametrize("case", list(CASES))
def test_state_dict_equals_torch_and_round_trips(case, tmp_path):
    nl_opt, t_opt = optimizer_pair()
    make = CASES[case]
    sched, tsched = make(lr_scheduler, nl_opt), make(torch.optim.lr_scheduler, t_opt)
    for _ in range(STEPS // 2):
        nl_opt.step(), t_opt.step(), sched.step(), tsched.step()
    sd = sched.state_dict()
    assert sd == tsched.state_dict()
    nl.save({"optim": nl_opt.state_dict(), "sched": sd}, tmp_path / "ckpt.npz")
    ckpt = nl.load(tmp_path / "ckpt.npz")
    opt2, _ = optimizer_pair()
    sched2 = make(lr_scheduler, opt2)
    opt2.load_state_dict(ckpt["optim"])
    sched2.load_state_dict(ckpt["sched"])
    for _ in range(STEPS - STEPS // 2):
        opt2.step(), t_opt.step(), sched2.step(), tsched.step()
        assert sched2.get_last_lr() == tsched.get_last_lr()
        assert groups_of(opt2) == groups_of(t_opt)


PLATEAU = [
    dict(),
    dict(patience=2, factor=0.5),
    dict(mode="max", patience=1, threshold=0.05, cooldown=2),
    dict(patience=0, threshold_mode="abs", threshold=0.01, min_lr=[0.01, 0.005]),
    dict(patience=1, factor=0.2, min_lr=1e-3, eps=1e-4),
]
# a metric that improves, stalls, improves a little, gets worse
METRICS = [
    1.0,
    0.8,
    0.7,
    0.7,
    0.71,
    0.69,
    0.69,
    0.7,
    0.5,
    0.5,
    0.52,
    0.53,
    0.49,
    0.6,
    0.6,
    0.6,
    0.48,
    0.48,
    0.47,
    0.9,
]


@pytest.mark.parametrize("kwargs", PLATEAU, ids=[str(k) for k in PLATEAU])
def test_reduce_on_plateau_equals_torch(kwargs, tmp_path):
    nl_opt, t_opt = optimizer_pair()
    sched = lr_scheduler.ReduceLROnPlateau(nl_opt, **kwargs)
    tsched = torch.optim.lr_scheduler.ReduceLROnPlateau(t_opt, **kwargs)
    for i, metric in enumerate(METRICS):
        if i == len(METRICS) // 2:  # save, load into a fresh scheduler, continue
            sd = sched.state_dict()
            assert sd == tsched.state_dict()
            nl.save({"optim": nl_opt.state_dict(), "sched": sd}, tmp_path / "p.npz")
            ckpt = nl.load(tmp_path / "p.npz")
            nl_opt, _ = optimizer_pair()
            nl_opt.load_state_dict(ckpt["optim"])
            sched = lr_scheduler.ReduceLROnPlateau(nl_opt)
            sched.load_state_dict(ckpt["sched"])
        nl_opt.step()
        t_opt.step()
        sched.step(nl.tensor(metric))
        tsched.step(torch.tensor(metric))
        assert sched.get_last_lr() == tsched.get_last_lr()
        assert [g["lr"] for g in nl_opt.param_groups] == [g["lr"] for g in t_opt.param_groups]
        assert (sched.num_bad_epochs, sched.cooldown_counter, sched.best) == (
            tsched.num_bad_epochs,
            tsched.cooldown_counter,
            tsched.best,
        )


def same_error(nl_fn, torch_fn):
    with pytest.raises(Exception) as expected:
        torch_fn()
    with pytest.raises(expected.type) as got:
        nl_fn()
    assert str(got.value) == str(expected.value)


ERROR_CASES = [
    lambda lib, opt: lib.LinearLR(opt, start_factor=0),
    lambda lib, opt: lib.LinearLR(opt, end_factor=1.5),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=0.1),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=0.1, total_steps=0),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=-1),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=0.1, total_steps=5, pct_start=1.5),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=0.1, total_steps=5, anneal_strategy="exp"),
    lambda lib, opt: lib.OneCycleLR(opt, max_lr=[0.1], total_steps=5),
    lambda lib, opt: lib.SequentialLR(opt, [], milestones=[]),
    lambda lib, opt: lib.SequentialLR(opt, [lib.StepLR(opt, 2)], milestones=[1]),
    lambda lib, opt: lib.SequentialLR(opt, [lib.ReduceLROnPlateau(opt)], milestones=[]),
    lambda lib, opt: lib.ChainedScheduler([]),
    lambda lib, opt: lib.ReduceLROnPlateau(opt, factor=1.0),
    lambda lib, opt: lib.ReduceLROnPlateau(opt, mode="best"),
    lambda lib, opt: lib.ReduceLROnPlateau(opt, threshold_mode="pct"),
    lambda lib, opt: lib.ReduceLROnPlateau(opt, min_lr=[0.1]),
]


@pytest.mark.parametrize("build", ERROR_CASES, ids=[f"case{i}" for i in range(len(ERROR_CASES))])
def test_errors_like_torch(build):
    nl_opt, t_opt = optimizer_pair()
    same_error(lambda: build(lr_scheduler, nl_opt), lambda: build(torch.optim.lr_scheduler, t_opt))


def test_one_cycle_past_its_steps_raises_like_torch():
    nl_opt, t_opt = optimizer_pair()
    sched = lr_scheduler.OneCycleLR(nl_opt, max_lr=0.1, total_steps=2)
    tsched = torch.optim.lr_scheduler.OneCycleLR(t_opt, max_lr=0.1, total_steps=2)
    for _ in range(2):
        nl_opt.step(), t_opt.step(), sched.step(), tsched.step()
    same_error(sched.step, tsched.step)
