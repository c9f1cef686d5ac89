"""The ``>>>`` examples in nnlite's docstrings run, so the reference documentation cannot rot.

Every module under ``nnlite/`` is imported and its docstrings (module, classes, methods,
functions) run under ``doctest`` with ``nl``, ``nn``, ``F`` and ``np`` already imported and the
generators seeded, in a fresh temporary working folder (examples that save files leave nothing).
``write_fake_mnist(root, train, test)`` writes tiny MNIST files for the examples that train or
read a data set.
The examples of an optional package run when it is installed; without it, the module's other
examples run and the test then skips, naming the package and the examples left out.
"""

import doctest
import importlib
import pkgutil
import struct
from pathlib import Path

import numpy as np
import pytest
from optional_modules import importable, missing_reason

import nnlite as nl

# Modules that run a program when imported, not a library.
NOT_IMPORTABLE = ("nnlite.report.__main__",)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
# Docstrings whose examples use an optional package (import names), by name or a prefix of names.
NEEDS = {
    "nnlite.autograd.graph_drawing.to_dot": ("graphviz",),
    "nnlite.data.datasets.image_folder.ImageFolder": ("PIL",),
    "nnlite.data.transforms.ToPILImage": ("PIL",),
    "nnlite.onnx": ("onnx",),
    "nnlite.serialization.load_file": ("safetensors",),
    "nnlite.serialization.save_file": ("safetensors",),
    "nnlite.utils.image_grid.save_image": ("PIL",),
}


def nnlite_modules():
    names = ["nnlite"]
    for info in pkgutil.walk_packages(nl.__path__, prefix="nnlite."):
        if info.name not in NOT_IMPORTABLE:
            names.append(info.name)
    return sorted(names)


def write_fake_mnist(root, train=8, test=4):
    """MNIST's four IDX files under ``root`` with ``train`` and ``test`` blank 28x28 images, all
    labelled 0: the examples' stand-in for the real data set."""
    folder = Path(root)
    folder.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", train), ("t10k", test)):
        images = struct.pack(">IIII", 0x803, n, 28, 28) + bytes(n * 784)
        (folder / f"{prefix}-images-idx3-ubyte").write_bytes(images)
        (folder / f"{prefix}-labels-idx1-ubyte").write_bytes(
            struct.pack(">II", 0x801, n) + bytes(n)
        )


def needs(name):
    """The optional modules that the examples of docstring ``name`` use."""
    return [
        m for key, mods in NEEDS.items() if name == key or name.startswith(key + ".") for m in mods
    ]


def doctest_namespace():
    from nnlite import nn
    from nnlite.nn import functional

    return {
        "nl": nl,
        "nn": nn,
        "F": functional,
        "np": np,
        "write_fake_mnist": write_fake_mnist,
    }


def test_runner_reports_a_wrong_example():
    def wrong():
        """
        >>> 1 + 1
        3
        """

    test = doctest.DocTestFinder().find(wrong, "wrong", globs={})[0]
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test, out=lambda _text: None)
    assert runner.failures == 1


@pytest.mark.parametrize("module_name", nnlite_modules())
def test_docstring_examples_run(module_name, tmp_path, monkeypatch):
    module = importlib.import_module(module_name)
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    output, left_out = [], set()
    for test in finder.find(module, module_name, extraglobs=doctest_namespace()):
        missing = [m for m in needs(test.name) if not importable(m)]
        if missing:
            left_out.add(missing_reason(missing[0]))
            continue
        nl.manual_seed(0)
        np.random.seed(0)  # noqa: NPY002  (transforms draw from numpy's global generator)
        runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
    if left_out:  # the module's other examples ran and passed
        pytest.skip("; ".join(sorted(left_out)))
