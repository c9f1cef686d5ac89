"""MNIST-format IDX files with a learnable pattern, and a runner for the example scripts."""

import os
import runpy
import struct
import sys

import numpy as np
import pytest

SCRIPTS = os.path.join(os.path.dirname(__file__), "scripts")


def _write_idx(path, array):
    array = np.ascontiguousarray(array, dtype=np.uint8)
    with open(path, "wb") as f:
        f.write(
            struct.pack(">HBB", 0, 0x08, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
        )
        f.write(array.tobytes())


@pytest.fixture(scope="session")
def mnist_root(tmp_path_factory):
    """``root/MNIST/raw`` with the four IDX files: 256 training and 64 test images in which a
    bright bar's height gives the class, so that a few steps of training visibly lower the loss."""
    root = tmp_path_factory.mktemp("mnist")
    raw = root / "MNIST" / "raw"
    raw.mkdir(parents=True)
    rng = np.random.default_rng(0)
    for prefix, count in (("train", 256), ("t10k", 64)):
        labels = rng.integers(0, 10, count).astype(np.uint8)
        images = (rng.random((count, 28, 28)) * 60).astype(np.uint8)
        for i, c in enumerate(labels):
            images[i, 2 + 2 * c : 5 + 2 * c, 4:24] = 250
        _write_idx(raw / f"{prefix}-images-idx3-ubyte", images)
        _write_idx(raw / f"{prefix}-labels-idx1-ubyte", labels)
    return root


@pytest.fixture
def run_script(tmp_path, monkeypatch, capsys):
    """Run ``scripts/<name>.py`` as ``python <name>.py ARGS`` in a fresh working directory; returns
    the printed lines."""
    import nnlite

    for flag in ("benchmark", "deterministic"):  # scripts set these process-wide switches
        monkeypatch.setattr(nnlite.backends.cudnn, flag, getattr(nnlite.backends.cudnn, flag))

    def run(name, *args):
        monkeypatch.chdir(tmp_path)
        monkeypatch.syspath_prepend(SCRIPTS)  # as `python name.py`: its folder's modules import
        monkeypatch.setattr(sys, "argv", [f"{name}.py", *map(str, args)])
        runpy.run_path(os.path.join(SCRIPTS, f"{name}.py"), run_name="__main__")
        return capsys.readouterr().out.splitlines()

    return run
