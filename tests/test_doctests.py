"""The ``>>>`` examples in nnlite's docstrings run, so the reference documentation cannot rot.

Every module under ``nnlite/`` is imported and its docstrings (module, classes, methods,
functions) run under ``doctest`` with ``nl``, ``nn``, ``F`` and ``np`` already imported and the
generators seeded, in a fresh temporary working folder (examples that save files leave nothing).
"""

import doctest
import importlib
import pkgutil

import numpy as np
import pytest

import nnlite as nl

# Modules that run a program when imported, not a library.
NOT_IMPORTABLE = ("nnlite.report.__main__",)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def nnlite_modules():
    names = ["nnlite"]
    for info in pkgutil.walk_packages(nl.__path__, prefix="nnlite."):
        if info.name not in NOT_IMPORTABLE:
            names.append(info.name)
    return sorted(names)


def doctest_namespace():
    from nnlite import nn
    from nnlite.nn import functional

    return {"nl": nl, "nn": nn, "F": functional, "np": np}


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
    output = []
    for test in finder.find(module, module_name, extraglobs=doctest_namespace()):
        nl.manual_seed(0)
        np.random.seed(0)  # noqa: NPY002  (transforms draw from numpy's global generator)
        runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
