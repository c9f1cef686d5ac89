"""The optional modules the tests use, by import name, and what installs each: an extra of
pyproject.toml, or a package that only the tests need as an oracle.

``tests/conftest.py`` skips a test marked ``@pytest.mark.needs("matplotlib")`` when matplotlib cannot
be imported, and gives every skip for a missing optional module (``pytest.importorskip`` included)
the reason ``matplotlib is not installed: pip install -e ".[report]"``.
"""

import functools
import importlib
import re

EXTRAS = {
    "vision": ("PIL",),
    "report": ("matplotlib",),
    "safetensors": ("safetensors",),
    "onnx": ("onnx",),
    "graph": ("graphviz",),
    "tensorboard": ("tensorboardX",),
    "mpi": ("mpi4py",),
    "torchvision": ("torchvision",),
    "docs": ("mkdocs", "mkdocstrings", "material"),
}
ORACLES = {"torch": "torch==2.13.0", "onnxruntime": "onnxruntime"}
OPTIONAL = {
    **{module: f'pip install -e ".[{extra}]"' for extra, mods in EXTRAS.items() for module in mods},
    **{module: f"pip install {spec}" for module, spec in ORACLES.items()},
}
# pytest.importorskip's reason when the module is absent (not when importing it fails otherwise)
_IMPORTORSKIP_ABSENT = re.compile(r"could not import '([\w.]+)': No module named")


def missing_reason(module):
    """The skip reason for a test of ``module`` (an import name) when it is not installed."""
    top = module.split(".")[0]
    hint = OPTIONAL.get(top)
    return f"{top} is not installed" + (f": {hint}" if hint else "")


@functools.cache
def importable(module):
    """Whether ``module`` imports (as ``pytest.importorskip`` would try it)."""
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def explained(longrepr):
    """A skip's ``(path, line, reason)``, ``importorskip``'s reason for an absent optional module
    replaced by ``missing_reason``; anything else as it is."""
    if not (isinstance(longrepr, tuple) and len(longrepr) == 3):
        return longrepr
    path, line, reason = longrepr
    found = _IMPORTORSKIP_ABSENT.search(reason)
    if found is None or found.group(1).split(".")[0] not in OPTIONAL:
        return longrepr
    return path, line, "Skipped: " + missing_reason(found.group(1))
