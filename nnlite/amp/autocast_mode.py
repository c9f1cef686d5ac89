"""``autocast``: a context manager and decorator accepting PyTorch's arguments; it changes no
dtype, since nnlite has no reduced-precision compute."""

from __future__ import annotations

import functools
import warnings
from typing import Any

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]

_warned: set[str] = set()


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can lower precision on ``device_type``: ``False`` (nnlite computes in
    float32/float64 only).

    Args:
        device_type (str): ``"cpu"``, ``"cuda"``, ...

    Returns:
        bool: ``False``.

    Examples:
        >>> nl.amp.is_autocast_available("cpu")
        False
    """
    return False


class autocast:
    """Mixed-precision region (PyTorch's ``torch.autocast``): in nnlite, a no-op.

    Inside, every op computes in its inputs' dtype. Asking for a lower precision on the CPU warns
    once that the region runs in full precision; ``device_type="cuda"`` warns and disables itself,
    as PyTorch does on a machine without CUDA.

    Args:
        device_type (str): ``"cpu"`` or ``"cuda"``.
        dtype (nl.dtype, optional): the requested lower precision (e.g. bfloat16).
        enabled (bool): whether autocast is asked for. Default: True.
        cache_enabled (bool, optional): accepted for PyTorch's signature.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     with nl.amp.autocast("cpu"):
        ...         y = nl.ones(2) * 2
        >>> y.dtype
        nnlite.float32
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        self._cache_enabled = cache_enabled
        if enabled and device_type == "cuda":
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.",
                stacklevel=2,
            )
            self._enabled = False
        elif enabled and device_type not in _warned:
            _warned.add(device_type)
            warnings.warn(
                f"nnlite.amp.autocast(device_type={device_type!r}): nnlite computes in float32 "
                "and float64 only, so this region runs in its inputs' dtypes",
                stacklevel=2,
            )

    def __enter__(self) -> autocast:
        from . import autocast_state

        # the region's state, for nl.is_autocast_enabled and nl.get_autocast_dtype
        self._saved = getattr(self, "_saved", [])
        self._saved.append(
            autocast_state.enter(self.device, self._enabled, self.fast_dtype, self._cache_enabled)
        )
        return self

    def __exit__(self, *exc: Any) -> None:
        from . import autocast_state

        autocast_state.leave(self._saved.pop())

    def __call__(self, fn: Any) -> Any:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return run


def custom_fwd(fwd: Any = None, *, device_type: str = "cpu", cast_inputs: Any = None) -> Any:
    """PyTorch's decorator for a custom ``Function.forward`` under autocast: returns it unchanged.

    Args:
        fwd (callable): the forward.
        device_type (str): accepted for PyTorch's signature.
        cast_inputs (nl.dtype, optional): accepted; nnlite casts nothing.

    Returns:
        callable: ``fwd``.
    """
    if fwd is None:
        return lambda f: f
    return fwd


def custom_bwd(bwd: Any = None, *, device_type: str = "cpu") -> Any:
    """PyTorch's decorator for a custom ``Function.backward`` under autocast: returns it unchanged.

    Args:
        bwd (callable): the backward.
        device_type (str): accepted for PyTorch's signature.

    Returns:
        callable: ``bwd``.
    """
    if bwd is None:
        return lambda f: f
    return bwd
