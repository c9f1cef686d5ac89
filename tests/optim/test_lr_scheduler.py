"""Learning-rate schedulers against torch.optim.lr_scheduler: identical values (==, not close)
over many steps, state dicts, warnings."""

import math
import warnings

import numpy as np
import pytest

import nnlite as nl
from nnlite import optim
from nnlite.optim import lr_scheduler

torch = pytest.importorskip("torch")


def lam(epoch):
    return 0.95**epoch


def lam2(epoch):
    return 1.0 / (1 + epoch)


# (scheduler name, arguments, number of steps)
SCHEDULERS = [
    ("StepLR", dict(step_size=3), 40),
    ("StepLR", dict(step_size=7, gamma=0.5), 60),
    ("MultiStepLR", dict(milestones=[5, 12, 12, 30]), 50),
    ("MultiStepLR", dict(milestones=[2, 4], gamma=0.3), 20),
    ("ExponentialLR", dict(gamma=0.9), 50),
    ("CosineAnnealingLR", dict(T_max=10), 30),
    ("CosineAnnealingLR", dict(T_max=10, eta_min=0.001), 30),
    ("CosineAnnealingLR", dict(T_max=7, eta_min=1e-4), 3 * 7 + 5),
    ("CosineAnnealingLR", dict(T_max=1), 6),
    ("LambdaLR", dict(lr_lambda=lam), 30),
    ("LambdaLR", dict(lr_lambda=[lam, lam2]), 30),
    ("LinearLR", dict(), 20),
    ("LinearLR", dict(start_factor=0.1, end_factor=0.7, total_iters=8), 20),
    ("LinearLR", dict(start_factor=1.0, end_factor=0.0, total_iters=4), 20),
    ("PolynomialLR", dict(), 20),
    ("PolynomialLR", dict(total_iters=12, power=2.0), 20),
    ("PolynomialLR", dict(total_iters=7, power=0.5), 20),
]


def _label(value):
    # by name, never by repr: a function's repr holds its address, which differs between the
    # processes pytest-xdist collects in
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(str(_label(v)) for v in value) + "]"
    return getattr(value, "__name__", value)


IDS = [n + "-" + "-".join(f"{k}={_label(v)}" for k, v in kw.items()) for n, kw, _ in SCHEDULERS]


def optimizers(lrs=(0.1, 0.02), momentum=0.9):
    a = nl.tensor(np.ones(3, np.float32), requires_grad=True)
    b = nl.tensor(np.ones(2, np.float32), requires_grad=True)
    ta = torch.ones(3, requires_grad=True)
    tb = torch.ones(2, requires_grad=True)
    opt = optim.SGD(
        [{"params": [a], "lr": lrs[0]}, {"params": [b], "lr": lrs[1]}], lr=lrs[0], momentum=momentum
    )
    topt = torch.optim.SGD(
        [{"params": [ta], "lr": lrs[0]}, {"params": [tb], "lr": lrs[1]}],
        lr=lrs[0],
        momentum=momentum,
    )
    return opt, topt


def make(name, kwargs, opt, module):
    return getattr(module, name)(opt, **kwargs)


@pytest.mark.parametrize("name,kwargs,steps", SCHEDULERS, ids=IDS)
def test_values_equal_torch(name, kwargs, steps):
    opt, topt = optimizers()
    sched = make(name, kwargs, opt, lr_scheduler)
    tsched = make(name, kwargs, topt, torch.optim.lr_scheduler)
    assert sched.get_last_lr() == tsched.get_last_lr()
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]
    assert [g["initial_lr"] for g in opt.param_groups] == [0.1, 0.02]
    for _ in range(steps):
        opt.step()
        topt.step()
        sched.step()
        tsched.step()
        assert sched.last_epoch == tsched.last_epoch
        assert sched.get_last_lr() == tsched.get_last_lr()
        assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in topt.param_groups]


@pytest.mark.parametrize("name,kwargs,steps", SCHEDULERS, ids=IDS)
def test_state_dict_matches_torch_and_round_trips(name, kwargs, steps, tmp_path):
    opt, topt = optimizers()
    sched = make(name, kwargs, opt, lr_scheduler)
    tsched = make(name, kwargs, topt, torch.optim.lr_scheduler)
    half = steps // 2
    for _ in range(half):
        opt.step(), topt.step(), sched.step(), tsched.step()
    sd, tsd = sched.state_dict(), tsched.state_dict()
    assert sd == tsd
    assert list(sd) == list(tsd)

    # save both the optimizer and the scheduler, resume in fresh objects, continue
    nl.save({"optim": opt.state_dict(), "sched": sd}, tmp_path / "ckpt.npz")
    ckpt = nl.load(tmp_path / "ckpt.npz")
    opt2, _ = optimizers(lrs=(5.0, 5.0))
    sched2 = make(name, kwargs, opt2, lr_scheduler)
    opt2.load_state_dict(ckpt["optim"])
    sched2.load_state_dict(ckpt["sched"])
    for _ in range(steps - half):
        opt2.step(), topt.step(), sched2.step(), tsched.step()
        assert sched2.get_last_lr() == tsched.get_last_lr()
        assert [g["lr"] for g in opt2.param_groups] == [g["lr"] for g in topt.param_groups]


def test_cosine_annealing_follows_the_closed_form_within_rounding():
    opt, _ = optimizers(lrs=(0.1, 0.1))
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10, eta_min=0.01)
    for epoch in range(1, 31):
        opt.step()
        sched.step()
        expected = 0.01 + (0.1 - 0.01) * (1 + math.cos(math.pi * epoch / 10)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    "name,kwargs",
    [
        ("StepLR", dict(step_size=3)),
        ("MultiStepLR", dict(milestones=[2, 5])),
        ("ExponentialLR", dict(gamma=0.8)),
        ("CosineAnnealingLR", dict(T_max=6)),
    ],
)
def test_step_with_epoch_uses_the_closed_form(name, kwargs):
    opt, topt = optimizers()
    sched = make(name, kwargs, opt, lr_scheduler)
    tsched = make(name, kwargs, topt, torch.optim.lr_scheduler)
    opt.step(), topt.step()
    for epoch in (4, 1, 9):
        with pytest.warns(UserWarning, match="epoch parameter"):
            sched.step(epoch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tsched.step(epoch)
        assert sched.get_last_lr() == tsched.get_last_lr()


def test_scheduler_before_optimizer_step_warns():
    opt, _ = optimizers()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(
        UserWarning,
        match=r"Detected call of `lr_scheduler.step\(\)` before "
        r"`optimizer.step\(\)`",
    ):
        sched.step()


def test_no_warning_in_the_right_order():
    opt, _ = optimizers()
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(12):
            opt.step()
            sched.step()


def test_get_lr_outside_step_warns():
    opt, _ = optimizers()
    sched = lr_scheduler.StepLR(opt, step_size=2)
    with pytest.warns(UserWarning, match="get_last_lr"):
        sched.get_lr()


def test_resume_without_initial_lr():
    opt, topt = optimizers()
    with pytest.raises(KeyError) as info:
        lr_scheduler.StepLR(opt, step_size=2, last_epoch=3)
    with pytest.raises(KeyError) as tinfo:
        torch.optim.lr_scheduler.StepLR(topt, step_size=2, last_epoch=3)
    assert str(info.value) == str(tinfo.value)


def test_resume_with_last_epoch_matches_torch():
    opt, topt = optimizers()
    for o in (opt, topt):
        for g in o.param_groups:
            g["initial_lr"] = g["lr"]
    sched = lr_scheduler.CosineAnnealingLR(opt, T_max=10, last_epoch=4)
    tsched = torch.optim.lr_scheduler.CosineAnnealingLR(topt, T_max=10, last_epoch=4)
    assert sched.get_last_lr() == tsched.get_last_lr()
    for _ in range(8):
        opt.step(), topt.step(), sched.step(), tsched.step()
        assert sched.get_last_lr() == tsched.get_last_lr()


def test_not_an_optimizer():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        lr_scheduler.StepLR([], step_size=2)


def test_lambda_count_mismatch():
    opt, _ = optimizers()
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        lr_scheduler.LambdaLR(opt, [lam])


def test_lambda_state_dict_stores_callable_object_state():
    class Warmup:
        def __init__(self, n):
            self.n = n

        def __call__(self, epoch):
            return min(1.0, (epoch + 1) / self.n)

    opt, _ = optimizers()
    sched = lr_scheduler.LambdaLR(opt, [Warmup(4), lam])
    sd = sched.state_dict()
    assert sd["lr_lambdas"] == [{"n": 4}, None]
    sched2 = lr_scheduler.LambdaLR(optimizers()[0], [Warmup(9), lam])
    sched2.load_state_dict(sd)
    assert sched2.lr_lambdas[0].n == 4


def test_optimizer_step_still_works_after_wrapping():
    opt, _ = optimizers()
    p = opt.param_groups[0]["params"][0]
    lr_scheduler.StepLR(opt, step_size=1)
    lr_scheduler.ExponentialLR(opt, gamma=0.5)  # a second scheduler does not wrap again
    p.grad = nl.ones(3)
    opt.step()
    assert opt._opt_called
    assert not np.array_equal(p._data, np.ones(3, np.float32))
