"""numpy's floating-point warnings silenced where PyTorch prints none.

``log(0)`` is ``-inf``, ``1 / 0`` is ``inf``, ``sqrt(-1)`` is ``nan``: PyTorch returns these
quietly, numpy prints a ``RuntimeWarning`` for each. Ops that can meet them set
``silence_fp_errors = True`` (their ``forward`` then runs under :func:`silenced`); the engine
runs each whole backward pass so. With numpy 2 the floating-point state is a context variable, set and reset
here directly (a fraction of a microsecond; ``np.errstate`` costs several); older numpy uses
``np.errstate``.
"""

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

__all__ = ["silenced"]

F = TypeVar("F", bound=Callable[..., Any])

try:  # numpy >= 2: the error state lives in a context variable
    # private to numpy (hence unknown to its stubs); the except below falls back on np.errstate
    from numpy._core._ufunc_config import (  # type: ignore[attr-defined]
        _extobj_contextvar,
        _make_extobj,
    )

    _IGNORE = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):  # numpy 1.x
    _extobj_contextvar = None


def silenced(fn: F) -> F:
    """``fn`` running with numpy's floating-point warnings off."""
    if _extobj_contextvar is None:
        return np.errstate(all="ignore")(fn)

    @functools.wraps(fn)
    def run_quietly(*args: Any, **kwargs: Any) -> Any:
        token = _extobj_contextvar.set(_IGNORE)
        try:
            return fn(*args, **kwargs)
        finally:
            _extobj_contextvar.reset(token)

    return run_quietly  # type: ignore[return-value]  # wraps() keeps fn's signature
