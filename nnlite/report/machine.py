"""The machine and the versions a run used (``machine.json``, written once by the training process)."""

import os
import platform
import sys

__all__ = ["machine_info"]


def _cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(module_name):
    try:
        module = __import__(module_name)
    except Exception:  # noqa: BLE001 an optional package that is absent or broken
        return None
    return getattr(module, "__version__", "?")


def machine_info():
    """A dict: host OS, CPU, CPU count, nnlite's thread count, Python and package versions."""
    import nnlite as nl

    info = {
        "os": platform.platform(),
        "cpu": _cpu_model(),
        "cpus": os.cpu_count(),
        "threads": nl.get_num_threads(),
        "python": sys.version.split()[0],
        "nnlite": nl.__version__,
    }
    for name in ("numpy", "numba", "matplotlib", "tensorboardX"):
        v = _version(name)
        if v is not None:
            info[name] = v
    return info
