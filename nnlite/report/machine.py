"""The machine and the versions a run used (``machine.json``, written once by the training process).

Versions come from the installed packages' metadata: importing a package to ask its version cost
seconds (tensorboardX imports PyTorch) and could crash the process on a signal. The facts that do
not change are read once per process.
"""

import functools
import os
import platform
import sys
from importlib import metadata
from typing import Any

__all__ = ["machine_info"]

PACKAGES = ("numpy", "numba", "matplotlib", "tensorboardX")


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or None, without importing it."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


@functools.cache
def _fixed_facts() -> dict[str, Any]:
    import nnlite as nl

    info = {
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "python": sys.version.split()[0],
        "nnlite": nl.__version__,
    }
    for name in PACKAGES:
        v = _version(name)
        if v is not None:
            info[name] = v
    return info


def machine_info() -> dict[str, Any]:
    """A dict: host OS, CPU, CPU count, nnlite's thread count, Python and package versions."""
    from .._runtime.threads import get_num_threads

    info = dict(_fixed_facts())
    info["threads"] = get_num_threads()
    return {k: info[k] for k in ("os", "cpu", "cpus", "threads")} | info
