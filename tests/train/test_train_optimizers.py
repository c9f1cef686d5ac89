"""Every registered optimizer and scheduler through the config: the section's keys and defaults
are the class's own, the trainer builds and steps them (``plateau`` on the test loss, ``onecycle``
after every batch, nested ``sequential``/``chained``), and the learning rates it records equal
PyTorch's schedulers fed the same figures."""

import inspect
import json

import pytest
from train_helpers import make_config, run_dirs

from nnlite import optim
from nnlite.optim import lr_scheduler
from nnlite.train import Trainer, load_config
from nnlite.train.config import ConfigError, reference, validate
from nnlite.train.registries import OPTIMIZERS, SCHEDULERS


def good(**changes):
    cfg = {
        "model": {"name": "lenet"},
        "data": {"dataset": "cifar10", "batch_size": 4},
        "optimizer": {"name": "sgd", "lr": 0.1},
        "epochs": 4,
    }
    cfg.update(changes)
    return cfg


def read_metrics(run):
    """The per-epoch lines of ``metrics.jsonl`` (the per-step ones carry a ``step`` key)."""
    lines = [json.loads(line) for line in (run / "metrics.jsonl").read_text().splitlines()]
    return [r for r in lines if "step" not in r]


@pytest.mark.parametrize(
    "name", ["sgd", "adam", "adamw", "adadelta", "rmsprop", "adagrad", "lbfgs"]
)
def test_optimizer_sections_take_keys_and_defaults_from_the_signature(name):
    cls = OPTIMIZERS[name]
    resolved = validate(good(optimizer={"name": name})).to_dict()["optimizer"]
    params = inspect.signature(cls).parameters
    expected = {
        k: p.default
        for k, p in params.items()
        if p.kind is p.POSITIONAL_OR_KEYWORD
        and k not in ("params", "foreach", "capturable", "differentiable")
    }
    assert set(resolved) == {"name", *expected}
    for key, default in expected.items():
        assert resolved[key] == (list(default) if isinstance(default, tuple) else default), key


def test_every_optimizer_and_scheduler_is_in_the_reference():
    table = reference()
    for name in OPTIMIZERS:
        assert f"`optimizer.name: {name}`" in table
    for name in SCHEDULERS:
        assert f"`scheduler.name: {name}`" in table


@pytest.mark.parametrize(
    "section, key, words",
    [
        (
            {"name": "rmsprop", "lr": 0.01, "alpah": 0.9},
            "optimizer.alpah",
            ["did you mean 'optimizer.alpha'"],
        ),
        (
            {"name": "lbfgs", "line_search_fn": "wolfe"},
            "optimizer.line_search_fn",
            ["strong_wolfe"],
        ),
        ({"name": "adadelta", "rho": 1.5}, "optimizer.rho", ["in [0.0, 1.0]"]),
        ({"name": "adagrad", "lr_decay": -1}, "optimizer.lr_decay", [">= 0.0"]),
    ],
)
def test_new_optimizer_keys_are_checked(section, key, words):
    with pytest.raises(ConfigError) as info:
        validate(good(optimizer=section))
    assert info.value.key == key
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize(
    "section, key, words",
    [
        ({"name": "plateau", "mode": "best"}, "scheduler.mode", ["one of min, max"]),
        ({"name": "plateau", "factor": 1.5}, "scheduler.factor", ["1.0)"]),
        ({"name": "onecycle"}, "scheduler.max_lr", ["missing required key"]),
        (
            {
                "name": "sequential",
                "schedulers": [{"name": "linear"}, {"name": "stepp"}],
                "milestones": [2],
            },
            "scheduler.schedulers[1].name",
            ["did you mean 'step'"],
        ),
        ({"name": "chained", "schedulers": []}, "scheduler.schedulers", ["a non-empty list"]),
        ({"name": "linear", "total_iters": 0}, "scheduler.total_iters", [">= 1"]),
    ],
)
def test_new_scheduler_keys_are_checked(section, key, words):
    with pytest.raises(ConfigError) as info:
        validate(good(scheduler=section))
    assert info.value.key == key, str(info.value)
    for w in words:
        assert w in str(info.value)


def test_nested_schedulers_resolve_with_defaults_and_epochs():
    cfg = validate(
        good(
            scheduler={
                "name": "sequential",
                "milestones": [2],
                "schedulers": [{"name": "linear", "start_factor": 0.5}, {"name": "cosine"}],
            }
        )
    )
    inner = cfg.to_dict()["scheduler"]["schedulers"]
    assert inner[0] == {"name": "linear", "start_factor": 0.5, "end_factor": 1.0, "total_iters": 5}
    assert inner[1] == {"name": "cosine", "T_max": 4, "eta_min": 0.0}


def test_set_override_reaches_a_nested_scheduler(tmp_path):
    path = make_config(
        tmp_path, scheduler={"name": "chained", "schedulers": [{"name": "step", "step_size": 2}]}
    )
    cfg = load_config(path, ["scheduler.schedulers[0].gamma=0.5"])
    assert cfg.scheduler is not None and cfg.scheduler.args["schedulers"][0].args["gamma"] == 0.5
    with pytest.raises(ConfigError, match="did you mean 'scheduler.schedulers\\[0\\].gamma'"):
        load_config(path, ["scheduler.schedulers[0].gama=0.5"])


def fit(tmp_path, **sections):
    cfg = load_config(make_config(tmp_path, **sections))
    Trainer(cfg, progress=False).fit()
    (run,) = run_dirs(tmp_path / "runs")
    return read_metrics(run)


def test_plateau_steps_on_the_test_loss_like_torch(tmp_path, cifar_root):
    torch = pytest.importorskip("torch")
    metrics = fit(
        tmp_path,
        epochs=4,
        optimizer={"name": "sgd", "lr": 0.05},
        scheduler={"name": "plateau", "patience": 0, "factor": 0.5, "threshold": 0.5},
    )
    param = torch.zeros(1, requires_grad=True)
    reference_opt = torch.optim.SGD([param], lr=0.05)
    reference_sched = torch.optim.lr_scheduler.ReduceLROnPlateau(
        reference_opt, patience=0, factor=0.5, threshold=0.5
    )
    expected = []
    for record in metrics:
        expected.append(reference_opt.param_groups[0]["lr"])
        reference_sched.step(record["test_loss"])
    assert [r["lr"] for r in metrics] == expected
    assert expected[-1] < expected[0]  # the threshold makes every epoch a bad one: the rate fell


def test_onecycle_steps_after_every_batch(tmp_path, cifar_root):
    metrics = fit(
        tmp_path,
        epochs=2,
        optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9},
        scheduler={"name": "onecycle", "max_lr": 0.1},
    )
    # 10 batches an epoch: the rate recorded at the start of epoch 2 is the cycle's 11th value
    opt = optim.SGD([optim_param()], lr=0.01, momentum=0.9)
    sched = lr_scheduler.OneCycleLR(opt, max_lr=0.1, total_steps=20)
    first = opt.param_groups[0]["lr"]
    for _ in range(10):
        opt.step()
        sched.step()
    assert [r["lr"] for r in metrics] == [first, opt.param_groups[0]["lr"]]


def optim_param():
    import nnlite as nl

    return nl.zeros(1, requires_grad=True)


@pytest.mark.parametrize(
    "optimizer",
    [
        {"name": "adadelta"},
        {"name": "rmsprop", "lr": 0.001, "momentum": 0.5},
        {"name": "adagrad", "lr": 0.01},
        {"name": "lbfgs", "lr": 0.1, "max_iter": 2, "history_size": 5},
        {"name": "lbfgs", "lr": 0.5, "max_iter": 2, "line_search_fn": "strong_wolfe"},
    ],
)
def test_new_optimizers_train_from_the_config(tmp_path, cifar_root, optimizer):
    metrics = fit(
        tmp_path,
        epochs=1,
        optimizer=optimizer,
        scheduler={
            "name": "sequential",
            "milestones": [1],
            "schedulers": [
                {"name": "linear", "total_iters": 1},
                {"name": "exponential", "gamma": 0.9},
            ],
        },
    )
    assert len(metrics) == 1 and metrics[0]["global_step"] == 10
    assert metrics[0]["train_loss"] == pytest.approx(metrics[0]["train_loss"])  # a finite number
