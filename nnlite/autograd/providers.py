"""The functions of higher modules that Tensor's methods call, found by name.

``Tensor.new_zeros`` is ``nl.zeros``, ``Tensor.det`` is ``nl.linalg.det``, ``Tensor.mvlgamma`` is
``nl.special.multigammaln`` and ``nl.conv2d`` is ``nn.functional.conv2d``; all of those modules
import Tensor, so Tensor's modules may not import them back. Each of them registers its functions
here when it is imported (``provide("linalg", {...})`` at its end), and a Tensor method looks its
function up when it runs: ``implementation("linalg.det")(self)``. A module that is not imported yet
(``nl.linalg`` and ``nl.nn`` load on first use) is imported by the first lookup, from ``PROVIDERS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

# who provides what: the prefix of a lookup -> the module that registers it
PROVIDERS = {
    "tensor": "nnlite.autograd.tensor",
    "creation": "nnlite.autograd.creation",
    "surface_functions": "nnlite.autograd.surface_functions",
    "linalg": "nnlite.linalg",
    "special": "nnlite.special",
    "nn.functional": "nnlite.nn.functional",
}

_TABLE: dict[str, Callable[..., Any]] = {}


def provide(provider: str, functions: Mapping[str, Callable[..., Any]]) -> None:
    """Register ``functions`` as ``<provider>.<name>`` (``provider`` is a key of ``PROVIDERS``)."""
    if provider not in PROVIDERS:
        raise ValueError(f"{provider!r} is not one of the providers {sorted(PROVIDERS)}")
    for name, function in functions.items():
        _TABLE[f"{provider}.{name}"] = function


def implementation(name: str) -> Callable[..., Any]:
    """The function registered as ``name`` (``"linalg.det"``), its module imported if need be."""
    function = _TABLE.get(name)
    if function is None:
        provider = name.rpartition(".")[0]
        if provider not in PROVIDERS:
            raise KeyError(f"no provider registers {name!r}: the providers are {sorted(PROVIDERS)}")
        importlib.import_module(PROVIDERS[provider])
        function = _TABLE.get(name)
        if function is None:
            raise KeyError(f"{PROVIDERS[provider]} registers no function {name!r}")
    return function
