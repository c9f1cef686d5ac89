"""Config validation: every kind of bad config gives one clear line naming the key."""

import sys
from pathlib import Path

import pytest
from train_helpers import ROOT, make_config, run_train

from nnlite.train.config import (
    Component,
    ConfigError,
    FinetuneConfig,
    ParallelConfig,
    load_config,
    parse_override,
    reference,
    validate,
)

CONFIGS = sorted((ROOT / "configs").glob("*.yaml"))


def good(**changes):
    cfg = {
        "model": {"name": "lenet"},
        "data": {"dataset": "cifar10", "batch_size": 4},
        "optimizer": {"name": "sgd", "lr": 0.1},
        "epochs": 1,
    }
    cfg.update(changes)
    return cfg


def error_of(raw=None, overrides=(), path=None):
    with pytest.raises(ConfigError) as info:
        load_config(path, list(overrides), raw=raw)
    return info.value


@pytest.mark.parametrize("path", CONFIGS, ids=[p.name for p in CONFIGS])
def test_shipped_configs_are_valid(path):
    cfg = load_config(path)
    assert cfg.name == path.stem
    assert cfg.epochs >= 1


def test_tutorial_recipe():
    cfg = load_config(ROOT / "configs" / "lenet_cifar10.yaml")
    assert cfg.data.batch_size == 4 and cfg.data.num_workers == 2
    assert cfg.to_dict()["optimizer"] == {
        "name": "sgd",
        "lr": 0.001,
        "momentum": 0.9,
        "dampening": 0.0,
        "weight_decay": 0.0,
        "nesterov": False,
    }
    assert cfg.epochs == 2 and cfg.log_every == 2000
    assert cfg.data.train_transforms[1] == Component(
        "normalize", {"mean": [0.5] * 3, "std": [0.5] * 3}
    )
    fm = load_config(ROOT / "configs" / "lenet_fashion_mnist.yaml")
    assert fm.data.batch_size == 64 and fm.optimizer.args["lr"] == 0.01
    assert fm.optimizer.args["momentum"] == 0.9
    assert fm.model.args["in_channels"] == 1 and fm.epochs == 2


def test_defaults_filled_in():
    cfg = validate(good(), default_name="x")
    assert cfg.name == "x" and cfg.seed == 0
    assert cfg.data.test_batch_size == 1000 and cfg.data.num_workers == 0
    assert cfg.data.root == "./data" and cfg.data.download is True
    assert cfg.loss == Component("cross_entropy", {"label_smoothing": 0.0, "weight": None})
    assert cfg.scheduler is None and cfg.finetune is None
    assert cfg.log_every == 2000 and cfg.output_dir == "runs"
    assert cfg.parallel == ParallelConfig(workers=1, backend=None, timeout_seconds=1800.0)
    assert cfg.model.args == {}
    assert cfg.optimizer.args["momentum"] == 0.0


def test_floats_in_exponent_notation_and_shorthands():
    cfg = validate(
        good(optimizer={"name": "adam", "lr": 1}, scheduler={"name": "cosine"}, loss="nll")
    )
    assert cfg.optimizer.args["lr"] == 1.0 and isinstance(cfg.optimizer.args["lr"], float)
    assert cfg.scheduler == Component("cosine", {"T_max": 1, "eta_min": 0.0})
    assert cfg.loss.name == "nll"
    cfg = load_config(ROOT / "configs" / "lenet_cifar10.yaml", ["optimizer.lr=1e-3"])
    assert cfg.optimizer.args["lr"] == 0.001


@pytest.mark.parametrize(
    "raw, key, words",
    [
        (good(epoch=3), "epoch", ["did you mean 'epochs'"]),
        (good(optimiser={"name": "sgd"}), "optimiser", ["did you mean 'optimizer'"]),
        (good(batch_size=3), "batch_size", ["did you mean 'data.batch_size'"]),
        (
            good(optimizer={"name": "sgd", "lr": 0.1, "momentun": 0.9}),
            "optimizer.momentun",
            ["did you mean 'optimizer.momentum'"],
        ),
        (
            good(optimizer={"name": "adam", "lr": 0.1, "momentum": 0.9}),
            "optimizer.momentum",
            ["optimizer 'adam'", "betas"],
        ),
        (
            good(data={"dataset": "cifar10", "batch_size": 4, "shuffle": True}),
            "data.shuffle",
            ["valid keys in data"],
        ),
        (good(model={"name": "lenet", "arg": {}}), "model.arg", ["did you mean 'model.args'"]),
        (
            good(
                data={
                    "dataset": "cifar10",
                    "batch_size": 4,
                    "train_transforms": [
                        {"name": "to_tensor"},
                        {"name": "normalize", "mean": [0.5], "stdev": [0.5]},
                    ],
                }
            ),
            "data.train_transforms[1].stdev",
            ["did you mean 'data.train_transforms[1].std'"],
        ),
    ],
)
def test_unknown_keys_named_with_suggestion(raw, key, words):
    e = error_of(raw)
    assert e.key == key
    assert f"unknown key '{key}'" in str(e)
    for w in words:
        assert w in str(e)


@pytest.mark.parametrize(
    "changes, key, words",
    [
        ({"epochs": "two"}, "epochs", ["an integer >= 1", "'two'", "a string"]),
        ({"epochs": 2.5}, "epochs", ["an integer", "2.5"]),
        ({"epochs": 0}, "epochs", [">= 1", "got 0"]),
        ({"epochs": True}, "epochs", ["an integer", "a boolean"]),
        ({"seed": -1}, "seed", [">= 0"]),
        (
            {"optimizer": {"name": "sgd", "lr": "fast"}},
            "optimizer.lr",
            ["a number >= 0.0", "'fast'"],
        ),
        ({"optimizer": {"name": "sgd", "lr": -0.1}}, "optimizer.lr", [">= 0.0", "-0.1"]),
        (
            {"optimizer": {"name": "sgd", "lr": 0.1, "nesterov": "yes please"}},
            "optimizer.nesterov",
            ["true or false"],
        ),
        ({"optimizer": {"name": "nadam", "lr": 0.1}}, "optimizer.name", ["sgd, adam, adamw"]),
        ({"optimizer": {"lr": 0.1}}, "optimizer.name", ["missing required key"]),
        (
            {"optimizer": {"name": "adam", "lr": 0.1, "betas": [0.9]}},
            "optimizer.betas",
            ["a list of 2 numbers"],
        ),
        (
            {"optimizer": {"name": "adam", "lr": 0.1, "betas": [0.9, 1.5]}},
            "optimizer.betas",
            ["[0.0, 1.0)"],
        ),
        (
            {"data": {"dataset": "cifar100", "batch_size": 4}},
            "data.dataset",
            ["cifar10, fashion_mnist, mnist", "did you mean 'cifar10'"],
        ),
        (
            {"data": {"dataset": "cifar10"}},
            "data.batch_size",
            ["missing required key 'data.batch_size'"],
        ),
        (
            {"data": {"dataset": "cifar10", "batch_size": 4, "num_workers": -1}},
            "data.num_workers",
            [">= 0"],
        ),
        (
            {"data": {"dataset": "cifar10", "batch_size": 4, "train_transforms": "to_tensor"}},
            "data.train_transforms",
            ["a list"],
        ),
        (
            {
                "data": {
                    "dataset": "cifar10",
                    "batch_size": 4,
                    "train_transforms": [
                        {"name": "to_tensor"},
                        {"name": "normalize", "mean": [0.5, 0.5], "std": [1]},
                    ],
                }
            },
            "data.train_transforms[1].mean",
            ["1 or 3 values"],
        ),
        (
            {
                "data": {
                    "dataset": "cifar10",
                    "batch_size": 4,
                    "train_transforms": [
                        {"name": "normalize", "mean": 0.5, "std": 0.5},
                        {"name": "to_tensor"},
                    ],
                }
            },
            "data.train_transforms[0]",
            ["to_tensor must come before normalize"],
        ),
        (
            {
                "data": {
                    "dataset": "cifar10",
                    "batch_size": 4,
                    "train_transforms": [{"name": "flip"}],
                }
            },
            "data.train_transforms[0].name",
            ["unknown transform 'flip'"],
        ),
        (
            {
                "data": {
                    "dataset": "cifar10",
                    "batch_size": 4,
                    "train_transforms": [
                        {"name": "to_tensor"},
                        {"name": "random_horizontal_flip", "p": 2},
                    ],
                }
            },
            "data.train_transforms[1].p",
            ["in [0.0, 1.0]"],
        ),
        ({"scheduler": {"name": "step"}}, "scheduler.step_size", ["missing required key"]),
        (
            {"scheduler": {"name": "multistep", "milestones": [3, 2]}},
            "scheduler.milestones",
            ["increasing"],
        ),
        (
            {"loss": {"name": "cross_entropy", "label_smoothing": 1.5}},
            "loss.label_smoothing",
            ["in [0.0, 1.0]"],
        ),
        ({"parallel": {"workers": 0}}, "parallel.workers", [">= 1"]),
        ({"parallel": {"backend": "nccl"}}, "parallel.backend", ["mpi"]),
        ({"parallel": {"backend": "mpi", "workers": 2}}, "parallel.workers", ["backend: mpi"]),
        ({"model": {"name": "lenet", "args": [1, 2]}}, "model.args", ["a mapping"]),
        ({"model": {"args": {}}}, "model.name", ["missing required key 'model.name'"]),
        ({"name": "a b"}, "name", ["run directory"]),
        ({"finetune": {"from": 3, "freeze": ["conv1"]}}, "finetune.from", ["string"]),
        ({"finetune": {"from": "a.npz", "freeze": 3}}, "finetune.freeze", ["all_but_head"]),
        (
            {"finetune": {"from": "a.npz", "freeze": "all_but_head"}},
            "finetune.freeze",
            ["finetune.head"],
        ),
        (
            {"finetune": {"from": "a.npz", "head": {"module": "fc3", "num_classes": 0}}},
            "finetune.head.num_classes",
            [">= 1"],
        ),
        ({"log_every": None}, "log_every", ["got null"]),
        ({"threads": 0}, "threads", [">= 1"]),
        ({"threads": "many"}, "threads", ["an integer"]),
    ],
)
def test_wrong_types_and_values_named(changes, key, words):
    e = error_of(good(**changes))
    assert e.key == key, str(e)
    assert str(e).startswith(key) or f"'{key}'" in str(e), str(e)
    for w in words:
        assert w in str(e), str(e)


def test_set_overrides():
    cfg = load_config(
        ROOT / "configs" / "lenet_cifar10.yaml",
        [
            "data.batch_size=64",
            "optimizer.lr=0.01",
            "scheduler={name: step, step_size: 1}",
            "data.train_transforms[1].mean=[0.4, 0.4, 0.4]",
            "model.args.num_classes=10",
            "finetune.from=x.npz",
        ],
    )
    assert cfg.data.batch_size == 64 and cfg.optimizer.args["lr"] == 0.01
    assert cfg.scheduler is not None and cfg.scheduler.args["step_size"] == 1
    assert cfg.data.train_transforms[1].args["mean"] == [0.4, 0.4, 0.4]
    assert cfg.finetune == FinetuneConfig(from_="x.npz", freeze=[], head=None)
    assert parse_override("a.b[2].c=[1, 2]") == (["a", "b", 2, "c"], [1, 2])


@pytest.mark.parametrize(
    "override, key, words",
    [
        (
            "optimizer.lrr=0.1",
            "optimizer.lrr",
            ["--set optimizer.lrr=0.1", "did you mean 'optimizer.lr'"],
        ),
        ("dat.batch_size=3", "dat", ["did you mean 'data'"]),
        (
            "data.batch_size=big",
            "data.batch_size",
            ["an integer >= 1", "'big'", "from --set data.batch_size=big"],
        ),
        ("epochs", None, ["expected key.path=value"]),
        ("epochs=[1,", None, ["not valid YAML"]),
        ("seed.value=1", "seed", ["single value"]),
        ("data.train_transforms[7].p=1", "data.train_transforms[7]", ["does not exist"]),
    ],
)
def test_bad_overrides(override, key, words):
    e = error_of(overrides=[override], path=ROOT / "configs" / "lenet_cifar10.yaml")
    assert e.key == key
    for w in words:
        assert w in str(e), str(e)


def test_yaml_problems(tmp_path):
    missing = error_of(path=tmp_path / "nope.yaml")
    assert "config file not found" in str(missing) and "nope.yaml" in str(missing)
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nmodel:\n  name: lenet\n   args: {}\n")
    e = error_of(path=bad)
    assert "invalid YAML in" in str(e) and "bad.yaml" in str(e) and "line 4" in str(e)
    dup = tmp_path / "dup.yaml"
    dup.write_text("epochs: 1\nseed: 1\nepochs: 2\n")
    e = error_of(path=dup)
    assert "duplicate key 'epochs'" in str(e) and "line 3" in str(e)
    lst = tmp_path / "list.yaml"
    lst.write_text("- 1\n- 2\n")
    assert "must hold a mapping" in str(error_of(path=lst))
    empty = tmp_path / "empty.yaml"
    empty.write_text("# nothing\n")
    assert "is empty" in str(error_of(path=empty))


def test_file_name_is_in_file_errors(tmp_path):
    path = make_config(tmp_path, epochs="x")
    e = error_of(path=path)
    assert str(e).startswith(str(path)) and "epochs" in str(e)


def test_reference_table_lists_every_key():
    table = reference()
    for key in (
        "name",
        "seed",
        "model.name",
        "model.args",
        "data.dataset",
        "data.root",
        "data.download",
        "data.batch_size",
        "data.test_batch_size",
        "data.num_workers",
        "data.train_transforms",
        "data.test_transforms",
        "loss",
        "optimizer",
        "scheduler",
        "epochs",
        "log_every",
        "threads",
        "parallel.workers",
        "parallel.backend",
        "output_dir",
        "finetune.from",
        "finetune.freeze",
        "finetune.head.module",
        "finetune.head.num_classes",
    ):
        assert f"| `{key}` |" in table, key


def test_model_args_are_checked_against_the_constructor_annotations():
    from nnlite.train.builders import build_model
    from nnlite.train.config import ModelConfig

    with pytest.raises(
        ConfigError, match=r"model.args.num_classes: expected an integer, got 'ten'"
    ):
        build_model(ModelConfig(name="lenet", args={"num_classes": "ten"}))
    # a union annotation (hidden: int | Sequence[int]) is left to the model
    assert build_model(ModelConfig(name="mlp", args={"in_features": 4, "hidden": [3]}))


def test_trainer_guide_holds_the_generated_reference():
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "config_reference", ROOT / "tools" / "config_reference.py"
    )
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    page = tool.PAGE.read_text(encoding="utf-8")
    assert tool.updated(page) == page, "run python tools/config_reference.py"
    assert "| `parallel.backend` | `mpi` or null | `null` |" in page


# ------------------------------------------------------------------------- the command line


@pytest.mark.parametrize(
    "setup, words",
    [
        (
            lambda p: [make_config(p, optimizer={"name": "sgd", "lr": 0.1, "momentun": 0.9})],
            ["unknown key 'optimizer.momentun'", "did you mean 'optimizer.momentum'"],
        ),
        (lambda p: [make_config(p, epochs="2")], ["epochs: expected an integer >= 1, got '2'"]),
        (
            lambda p: [make_config(p), "--set", "optimizer.lr=-1"],
            ["optimizer.lr", ">= 0.0", "-1.0"],
        ),
        (
            lambda p: [make_config(p), "--set", "optimizer"],
            ["--set optimizer: expected key.path=value"],
        ),
        (lambda p: [make_config(p), "--set", "trainer.epochs=3"], ["unknown key 'trainer'"]),
        (lambda p: [p / "missing.yaml"], ["config file not found", "missing.yaml"]),
        (
            lambda p: [Path(p / "bad.yaml").write_text("a: [1, 2\n") and p / "bad.yaml"],
            ["invalid YAML", "line 2"],
        ),
        (lambda p: ["--resume", p / "no_run"], ["--resume: no such run directory"]),
        (
            lambda p: [make_config(p, model={"name": "lenett"})],
            ["model.name", "did you mean 'lenet'"],
        ),
        (
            lambda p: [make_config(p, model={"name": "lenet", "args": {"num_clases": 10}})],
            ["model.args.num_clases", "did you mean 'num_classes'"],
        ),
        (
            lambda p: [make_config(p, model={"name": "no_such_pkg.models:Net"})],
            ["model.name", "cannot import"],
        ),
        (
            lambda p: [make_config(p, optimizer={"name": "sgd", "lr": 0.1, "nesterov": True})],
            ["optimizer: ", "esterov"],
        ),
        (
            lambda p: [make_config(p, loss={"name": "cross_entropy", "weight": [1.0, 2.0]})],
            ["loss.weight: expected 10 values"],
        ),
    ],
)
def test_cli_config_errors_are_one_line(tmp_path, setup, words, monkeypatch, capsys):
    # in this process (a train.py process per case cost 2-6 s each); the next test runs one
    from train_helpers import write_cifar10

    from nnlite.train.cli import main

    write_cifar10(tmp_path / "data", per_batch=2, n_test=2)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # the CLI puts the working folder on it
    try:
        code = main([str(a) for a in setup(tmp_path)])
    except SystemExit as exit_info:  # argparse's own errors
        code = exit_info.code
    stderr = capsys.readouterr().err
    assert code == 2, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("train.py: error: ")
    for w in words:
        assert w in lines[0], lines[0]
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


@pytest.mark.parametrize("value", [0, -5, "inf", "nan", "soon", 10**9])
def test_parallel_timeout_seconds_is_checked(value):
    with pytest.raises(ConfigError, match=r"parallel.timeout_seconds: expected a number in \(0, "):
        validate(good(parallel={"timeout_seconds": value}), default_name="x")


def test_parallel_timeout_seconds_reaches_distributed_data_parallel(tmp_path, monkeypatch):
    # an MPI job of one rank, faked: what matters is the timeout the trainer hands over
    from train_helpers import write_cifar10

    import nnlite.nn.parallel as parallel
    from nnlite.train import Trainer
    from nnlite.train import trainer as trainer_module

    class OneRank:
        def __init__(self, backend):
            self.rank, self.size, self.is_main = 0, 1, True
            self.comm = object()

        def bcast(self, obj):
            return obj

    given = {}

    def ddp(module, **kwargs):
        given.update(kwargs)
        return module

    monkeypatch.setattr(trainer_module, "_Distributed", OneRank)
    monkeypatch.setattr(parallel, "DistributedDataParallel", ddp)
    write_cifar10(tmp_path / "data")
    cfg = load_config(
        make_config(tmp_path), ["parallel.backend=mpi", "parallel.timeout_seconds=7.5"]
    )
    Trainer(cfg, progress=False)._setup()
    assert given["timeout"] == 7.5


def test_cli_config_error_exits_the_process_with_one_line(tmp_path):
    from train_helpers import write_cifar10

    write_cifar10(tmp_path / "data", per_batch=2, n_test=2)
    proc = run_train(make_config(tmp_path, epochs="2"), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("train.py: error: "), proc.stderr
    assert "epochs: expected an integer >= 1, got '2'" in lines[0]
    assert "Traceback" not in proc.stderr
