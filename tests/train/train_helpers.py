"""Helpers of the trainer tests: small datasets in the real file formats, configs, and running
``train.py`` as a subprocess."""

import gzip
import os
import pickle
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import yaml

ROOT = Path(__file__).resolve().parents[2]
TRAIN_PY = ROOT / "train.py"

CIFAR_NAMES = [
    "airplane",
    "automobile",
    "bird",
    "cat",
    "deer",
    "dog",
    "frog",
    "horse",
    "ship",
    "truck",
]


def _learnable_images(rng, labels, shape):
    """Random images whose mean brightness depends on the label (so a model can learn a bit)."""
    base = rng.integers(0, 128, size=(len(labels),) + shape)
    return np.clip(base + labels.reshape((-1,) + (1,) * len(shape)) * 12, 0, 255).astype(np.uint8)


def write_cifar10(root, per_batch=8, n_test=10, seed=0):
    """``root/cifar-10-batches-py`` as the real archive has it: five training batches, a test
    batch and ``batches.meta``, each a pickled dict with bytes keys (``b'data'``: uint8
    (N, 3072), ``b'labels'``: list of ints)."""
    rng = np.random.default_rng(seed)
    folder = Path(root) / "cifar-10-batches-py"
    folder.mkdir(parents=True, exist_ok=True)
    for name, n in [(f"data_batch_{i}", per_batch) for i in range(1, 6)] + [("test_batch", n_test)]:
        labels = rng.integers(0, 10, size=n)
        data = _learnable_images(rng, labels, (3072,))
        entry = {
            b"batch_label": name.encode(),
            b"labels": [int(x) for x in labels],
            b"data": data,
            b"filenames": [f"{name}_{i}.png".encode() for i in range(n)],
        }
        with open(folder / name, "wb") as f:
            pickle.dump(entry, f, protocol=2)
    meta = {
        b"num_cases_per_batch": per_batch,
        b"label_names": [c.encode() for c in CIFAR_NAMES],
        b"num_vis": 3072,
    }
    with open(folder / "batches.meta", "wb") as f:
        pickle.dump(meta, f, protocol=2)
    return Path(root)


def _write_idx(path, array, gz):
    array = np.ascontiguousarray(array, dtype=np.uint8)
    raw = (
        struct.pack(">HBB", 0, 0x08, array.ndim)
        + struct.pack(f">{array.ndim}I", *array.shape)
        + array.tobytes()
    )
    with open(path, "wb") as f:
        f.write(gzip.compress(raw) if gz else raw)


def write_idx_dataset(root, n_train=64, n_test=20, seed=0, gz=True, classes=10):
    """The four MNIST/Fashion-MNIST IDX files directly in ``root``."""
    rng = np.random.default_rng(seed)
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    suffix = ".gz" if gz else ""
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, classes, size=n)
        _write_idx(
            root / f"{prefix}-images-idx3-ubyte{suffix}",
            _learnable_images(rng, labels, (28, 28)),
            gz,
        )
        _write_idx(root / f"{prefix}-labels-idx1-ubyte{suffix}", labels, gz)
    return root


def make_config(tmp_path, name="cfg", **sections):
    """Write a config (a small LeNet run on the CIFAR-format files by default) to
    ``tmp_path/<name>.yaml``; keyword arguments replace top-level keys."""
    cfg = {
        "name": "t",
        "seed": 0,
        "model": {"name": "lenet", "args": {"in_channels": 3, "num_classes": 10}},
        "data": {
            "dataset": "cifar10",
            "root": str(tmp_path / "data"),
            "download": False,
            "batch_size": 4,
            "test_batch_size": 8,
            "num_workers": 0,
            "train_transforms": [
                {"name": "to_tensor"},
                {"name": "normalize", "mean": [0.5] * 3, "std": [0.5] * 3},
            ],
            "test_transforms": [
                {"name": "to_tensor"},
                {"name": "normalize", "mean": [0.5] * 3, "std": [0.5] * 3},
            ],
        },
        "optimizer": {"name": "sgd", "lr": 0.01, "momentum": 0.9},
        "epochs": 1,
        "log_every": 2,
        "output_dir": str(tmp_path / "runs"),
    }
    cfg.update(sections)
    path = Path(tmp_path) / f"{name}.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


def fashion_sections(tmp_path, **data):
    d = {
        "dataset": "fashion_mnist",
        "root": str(tmp_path / "fm"),
        "download": False,
        "batch_size": 8,
        "test_batch_size": 16,
        "num_workers": 0,
        "train_transforms": [
            {"name": "to_tensor"},
            {"name": "normalize", "mean": [0.5], "std": [0.5]},
        ],
        "test_transforms": [
            {"name": "to_tensor"},
            {"name": "normalize", "mean": [0.5], "std": [0.5]},
        ],
    }
    d.update(data)
    return {
        "model": {"name": "lenet", "args": {"in_channels": 1, "num_classes": 10, "input_size": 28}},
        "data": d,
    }


def run_train(*args, cwd=None, timeout=300, check=None):
    """``python train.py ARGS`` in ``cwd``; returns the CompletedProcess (text output)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, str(TRAIN_PY), *map(str, args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check is not None and proc.returncode != check:
        raise AssertionError(
            f"train.py exited with {proc.returncode}, expected {check}\nstdout:\n{proc.stdout}\n"
            f"stderr:\n{proc.stderr}"
        )
    return proc


def run_dirs(output_dir):
    return sorted(p for p in Path(output_dir).iterdir() if p.is_dir() and not p.is_symlink())
