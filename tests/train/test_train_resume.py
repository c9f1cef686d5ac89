"""Resume (after a kill, bit for bit) and finetuning (frozen layers stay bit-identical)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from interrupts import default_sigint
from train_helpers import (
    ROOT,
    TRAIN_PY,
    fashion_sections,
    make_config,
    run_dirs,
    run_train,
    write_idx_dataset,
)

import nnlite as nl
from nnlite.train import ConfigError, Trainer, load_config


def model_arrays(path):
    return {k: v.numpy() for k, v in nl.load(path)["model"].items()}


def assert_bitwise_equal(a, b):
    assert list(a) == list(b)
    for k in a:
        assert a[k].dtype == b[k].dtype and a[k].shape == b[k].shape, k
        assert a[k].tobytes() == b[k].tobytes(), f"{k} differs"


def metrics_without_times(run):
    out = []
    for line in (run / "metrics.jsonl").read_text().splitlines():
        r = json.loads(line)
        out.append({k: v for k, v in r.items() if "seconds" not in k and k != "images_per_second"})
    return out


AUGMENTED = [
    {"name": "random_crop", "size": 28, "padding": 2},
    {"name": "random_horizontal_flip"},
    {"name": "to_tensor"},
    {"name": "normalize", "mean": [0.5], "std": [0.5]},
]


def resume_config(tmp_path, output, epochs=3, model=None):
    secs = fashion_sections(tmp_path, batch_size=4, train_transforms=AUGMENTED)
    if model is not None:
        secs["model"] = model
    # one thread: the in-process and the subprocess halves sum in the same order whatever thread
    # count earlier tests in this process left behind
    return make_config(
        tmp_path,
        name=output,
        output_dir=str(tmp_path / output),
        epochs=epochs,
        log_every=1000,
        threads=1,
        optimizer={"name": "sgd", "lr": 0.01, "momentum": 0.9, "weight_decay": 1e-4},
        scheduler={"name": "step", "step_size": 1, "gamma": 0.7},
        **secs,
    )


MLP = {"name": "mlp", "args": {"in_features": 784, "hidden": [32], "num_classes": 10}}


def test_resume_after_kill_is_bit_exact(tmp_path):
    # a small MLP keeps this quick; the in-process test below checks LeNet's convolutions
    write_idx_dataset(tmp_path / "fm", n_train=2400, n_test=20)
    Trainer(load_config(resume_config(tmp_path, "full", model=MLP)), progress=False).fit()
    (full,) = run_dirs(tmp_path / "full")

    cfg = resume_config(tmp_path, "killed", model=MLP)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(TRAIN_PY), str(cfg)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    last = None
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            found = list((tmp_path / "killed").glob("*/checkpoints/last.npz"))
            if found:
                last = found[0]
                proc.send_signal(signal.SIGKILL)
                break
            time.sleep(0.005)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert last is not None, "the run ended before its first checkpoint appeared"
    run = last.parent.parent
    assert proc.returncode == -signal.SIGKILL
    assert not (run / "report.json").exists(), "the run finished before it could be killed"
    assert nl.load(last)["epoch"] < 3

    proc = run_train("--resume", run, cwd=tmp_path, check=0)
    assert "Resuming" in proc.stdout
    assert_bitwise_equal(
        model_arrays(full / "checkpoints" / "last.npz"),
        model_arrays(run / "checkpoints" / "last.npz"),
    )
    assert metrics_without_times(full) == metrics_without_times(run)
    a, b = nl.load(full / "checkpoints" / "last.npz"), nl.load(run / "checkpoints" / "last.npz")
    assert a["global_step"] == b["global_step"] and a["epoch"] == b["epoch"] == 3
    for k in a["optimizer"]["state"]:
        assert (
            a["optimizer"]["state"][k]["momentum_buffer"].numpy().tobytes()
            == b["optimizer"]["state"][k]["momentum_buffer"].numpy().tobytes()
        )
    report = json.loads((run / "report.json").read_text())
    assert report["epochs"] == 3


def test_resume_in_process_and_with_config(tmp_path):
    write_idx_dataset(tmp_path / "fm", n_train=48, n_test=16)
    full_cfg = load_config(resume_config(tmp_path, "full", epochs=2))
    Trainer(full_cfg, progress=False).fit()
    (full,) = run_dirs(tmp_path / "full")

    one_path = resume_config(tmp_path, "part", epochs=1)
    Trainer(load_config(one_path), progress=False).fit()
    (part,) = run_dirs(tmp_path / "part")
    # a mismatching config is refused, naming the key
    proc = run_train(one_path, "--set", "optimizer.lr=0.5", "--resume", part, cwd=tmp_path)
    assert (
        proc.returncode == 2
        and "optimizer.lr" in proc.stderr
        and "only epochs may change" in proc.stderr
    )
    # the same CONFIG (more epochs) continues the run
    run_train(one_path, "--set", "epochs=2", "--resume", part, cwd=tmp_path, check=0)
    assert_bitwise_equal(
        model_arrays(full / "checkpoints" / "last.npz"),
        model_arrays(part / "checkpoints" / "last.npz"),
    )
    assert metrics_without_times(full) == metrics_without_times(part)
    # resuming a finished run only re-evaluates and writes the report
    proc = run_train("--resume", part, cwd=tmp_path, check=0)
    assert "Accuracy of the network on the 16 test images" in proc.stdout
    assert len(metrics_without_times(part)) == 2


# ----------------------------------------------------------------------------------- finetune


@pytest.fixture
def source_checkpoint(tmp_path):
    write_idx_dataset(tmp_path / "fm", n_train=48, n_test=16)
    cfg = load_config(
        make_config(
            tmp_path,
            name="source",
            output_dir=str(tmp_path / "source"),
            **fashion_sections(tmp_path),
        )
    )
    Trainer(cfg, progress=False).fit()
    (run,) = run_dirs(tmp_path / "source")
    return run / "checkpoints" / "best.npz"


def finetune_config(tmp_path, source, **finetune):
    ft = {
        "from": str(source),
        "freeze": ["conv1", "conv2"],
        "head": {"module": "fc3", "num_classes": 10},
    }
    ft.update(finetune)
    return make_config(
        tmp_path,
        name="ft",
        output_dir=str(tmp_path / "ft"),
        finetune=ft,
        epochs=2,
        **fashion_sections(tmp_path),
    )


def test_finetune_frozen_layers_bit_identical(tmp_path, source_checkpoint):
    src = model_arrays(source_checkpoint)
    proc = run_train(finetune_config(tmp_path, source_checkpoint), cwd=tmp_path, check=0)
    assert "finetune: loaded" in proc.stdout and "frozen conv1, conv2" in proc.stdout
    (run,) = run_dirs(tmp_path / "ft")
    out = model_arrays(run / "checkpoints" / "last.npz")
    assert list(out) == list(src)
    for k in src:
        if k.startswith(("conv1.", "conv2.")):
            assert out[k].tobytes() == src[k].tobytes(), f"frozen {k} changed"
        else:
            assert not np.array_equal(out[k], src[k]), f"{k} did not train"
    assert out["fc3.weight"].shape == (10, 84)


def test_finetune_optimizer_gets_trainable_only_and_head_is_fresh(tmp_path, source_checkpoint):
    cfg = load_config(finetune_config(tmp_path, source_checkpoint, freeze="all_but_head"))
    trainer = Trainer(cfg, progress=False)
    trainer._setup()
    try:
        model = trainer.model
        trainable = [n for n, p in model.named_parameters() if p.requires_grad]
        assert trainable == ["fc3.weight", "fc3.bias"]
        in_optimizer = {id(p) for g in trainer.optimizer.param_groups for p in g["params"]}
        assert in_optimizer == {id(p) for p in model.parameters() if p.requires_grad}
        src = model_arrays(source_checkpoint)
        now = {k: v.numpy() for k, v in model.state_dict().items()}
        assert all(np.array_equal(now[k], src[k]) for k in src if not k.startswith("fc3."))
        assert not np.array_equal(now["fc3.weight"], src["fc3.weight"])  # a fresh layer
    finally:
        trainer._close_net()
    Trainer(cfg, progress=False).fit()
    run = run_dirs(tmp_path / "ft")[-1]
    out = model_arrays(run / "checkpoints" / "last.npz")
    src = model_arrays(source_checkpoint)
    for k in src:
        if not k.startswith("fc3."):
            assert out[k].tobytes() == src[k].tobytes(), k


@pytest.mark.parametrize(
    "finetune, key, words",
    [
        (
            {"head": {"module": "fc3", "num_classes": 5}},
            "finetune.head.num_classes",
            ["expected 10", "got 5"],
        ),
        (
            {"head": {"module": "fc4", "num_classes": 10}},
            "finetune.head.module",
            ["no module 'fc4'", "did you mean"],
        ),
        (
            {"freeze": ["conv1", "convv2"]},
            "finetune.freeze[1]",
            ["no module 'convv2'", "did you mean 'conv2'"],
        ),
        ({"from": "missing.npz"}, "finetune.from", ["file not found: missing.npz"]),
    ],
)
def test_finetune_errors(tmp_path, source_checkpoint, finetune, key, words):
    with pytest.raises(ConfigError) as info:
        Trainer(
            load_config(finetune_config(tmp_path, source_checkpoint, **finetune)), progress=False
        ).fit()
    assert info.value.key == key
    for w in words:
        assert w in str(info.value), str(info.value)


def test_finetune_from_mismatching_checkpoint(tmp_path, source_checkpoint):
    other = tmp_path / "other.npz"
    model = nl.models.get_model("lenet", in_channels=3, num_classes=10)
    nl.save(model.state_dict(), other)
    with pytest.raises(ConfigError) as info:
        Trainer(load_config(finetune_config(tmp_path, other)), progress=False).fit()
    assert info.value.key == "finetune.from" and "conv1.weight has shape" in str(info.value)


def test_ctrl_c_says_how_to_resume(tmp_path):
    write_idx_dataset(tmp_path / "fm", n_train=2400, n_test=20)
    cfg = resume_config(tmp_path, "interrupted", model=MLP, epochs=50)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [sys.executable, str(TRAIN_PY), str(cfg)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=default_sigint,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not list(
            (tmp_path / "interrupted").glob("*/checkpoints/last.npz")
        ):
            time.sleep(0.01)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    (run,) = run_dirs(tmp_path / "interrupted")
    assert f"train.py: interrupted; continue with: python train.py --resume {run}" in err
    assert "Traceback" not in err
