"""PyTorch's creation keywords (``layout``, ``pin_memory``, ``memory_format``, ``out``), in one place.

nnlite's tensors are dense CPU arrays: ``layout`` accepts only the strided layout, ``pin_memory``
only False (True raises PyTorch's error of a build without an accelerator), and ``memory_format``
is accepted and has no effect, as for ``Tensor.contiguous``. ``out=`` writes the result into the
given tensor (:func:`~nnlite.autograd.out_arg.write_out`).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from .out_arg import write_out

F = TypeVar("F", bound=Callable[..., Any])

_DEFAULTS: dict[str, Any] = {
    "out": None,
    "layout": None,
    "pin_memory": False,
    "memory_format": None,
}


def check_creation_keywords(name: str, layout: Any = None, pin_memory: Any = False) -> None:
    """Refuse a ``layout`` other than strided and ``pin_memory=True``, as a CPU-only PyTorch does."""
    if layout is not None:
        if isinstance(layout, str):
            raise TypeError(f"{name}(): argument 'layout' must be torch.layout, not str")
        if str(layout) not in ("strided", "torch.strided"):
            raise RuntimeError(
                f"{name}(): layout {layout} is not supported; nnlite tensors are strided"
            )
    if pin_memory:
        raise RuntimeError(
            "pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
            "allocator is available on this system."
        )


def creation_keywords(*names: str, name: str | None = None) -> Callable[[F], F]:
    """Give a creation function PyTorch's keyword-only ``names`` (from ``out``, ``layout``,
    ``pin_memory``, ``memory_format``), checked or applied here; ``name`` is the one errors use."""

    def wrap(fn: F) -> F:
        label = name or fn.__name__
        sig = inspect.signature(fn)
        added = [
            inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=_DEFAULTS[n])
            for n in names
        ]

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            given = {n: kwargs.pop(n, _DEFAULTS[n]) for n in names}
            check_creation_keywords(label, given.get("layout"), given.get("pin_memory", False))
            result = fn(*args, **kwargs)
            out = given.get("out")
            return result if out is None else write_out(label, result, out)

        call.__signature__ = sig.replace(  # type: ignore[attr-defined]
            parameters=[*sig.parameters.values(), *added]
        )
        return call  # type: ignore[return-value]

    return wrap


def from_keyword(name: str, from_: Any, keywords: dict[str, Any]) -> Any:
    """``from_``, or the ``from`` keyword PyTorch's random fills take (``x.uniform_(**{"from": 0})``),
    which a Python signature cannot name; any other keyword is refused as Python would."""
    unexpected = set(keywords) - {"from"}
    if unexpected:
        raise TypeError(f"{name}() got an unexpected keyword argument '{sorted(unexpected)[0]}'")
    return keywords.get("from", from_)
