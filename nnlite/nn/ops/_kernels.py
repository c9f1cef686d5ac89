"""Lazy access to the numba kernels: importing numba costs most of a second, so it waits for
the first convolution or pooling call."""

from types import ModuleType

_loaded: list[ModuleType] = []


def kernels() -> ModuleType:
    """The ``nnlite.nn.kernels`` module, imported on first use."""
    if not _loaded:
        from .. import kernels as k

        _loaded.append(k)
    return _loaded[0]
