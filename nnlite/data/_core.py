"""Access to nnlite's Tensor core, imported on first use.

``nnlite.data`` sits above ``nnlite.autograd`` but must stay importable on its own (worker
processes and dataset readers do not need the core until a tensor is built), so the core is
looked up lazily and cached here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from .._typing import Array
    from ..autograd.tensor import Tensor

_Tensor: type[Tensor] | None = None
_wrap: Callable[[Array], Tensor] | None = None


def _load() -> tuple[type[Tensor], Callable[[Array], Tensor]]:
    global _Tensor, _wrap
    from ..autograd.tensor import Tensor

    wrap: Callable[[Array], Tensor] | None = None
    try:  # the core's no-copy constructor, when it has one
        from ..autograd.tensor import _make

        wrap = _make
    except ImportError:
        pass
    if wrap is None:
        from ..autograd.creation import from_numpy

        wrap = from_numpy
    _Tensor, _wrap = Tensor, wrap
    return Tensor, wrap


def tensor_type() -> type[Tensor]:
    """The ``nnlite.Tensor`` class."""
    if _Tensor is None:
        return _load()[0]
    return _Tensor


def is_tensor(x: object) -> TypeIs[Tensor]:
    if _Tensor is None:
        return isinstance(x, _load()[0])
    return isinstance(x, _Tensor)


def from_numpy(a: Any) -> Tensor:
    """Wrap a numpy array in a Tensor without copying (anything else is made an array first)."""
    wrap = _wrap if _wrap is not None else _load()[1]
    if type(a) is not np.ndarray:
        a = np.asarray(a)
    return wrap(a)


def array_of(t: Tensor) -> Array:
    """The numpy array behind a Tensor (no copy, no autograd check)."""
    return t._data


def stack_with_grad(tensors: Iterable[Tensor]) -> Tensor:
    """Stack tensors along a new first dimension through the autograd core (keeps the graph)."""
    from ..autograd.creation import stack

    return stack(list(tensors))


def draw_seed() -> int:
    """A fresh seed from nnlite's default generator (the one ``nl.manual_seed`` seeds), as PyTorch
    draws from its default generator when no generator is given."""
    try:
        from ..autograd.random import default_generator
    except ImportError:  # core without its own generator: numpy's global one
        # numpy's global generator, so that np.random.seed still makes it reproducible
        return int(np.random.randint(0, 2**62, dtype=np.int64))  # noqa: NPY002
    return int(default_generator.integers(0, 2**62))
