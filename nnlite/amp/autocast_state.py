"""The autocast state behind ``nl.autocast``: per device type, whether a region is active and the
dtype it asks for, and whether the cast cache is on (``torch.is_autocast_enabled``,
``torch.get_autocast_dtype``, ...).

``autocast`` sets and restores this state as PyTorch's does; nnlite computes in its inputs' dtypes
regardless (see ``autocast``). The CPU default dtype is PyTorch's, bfloat16: a name nnlite has but
cannot compute in (``nl.bfloat16``), which is harmless here since the region casts nothing.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = [
    "get_autocast_cpu_dtype",
    "get_autocast_dtype",
    "is_autocast_cache_enabled",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype",
    "set_autocast_cpu_enabled",
    "set_autocast_dtype",
    "set_autocast_enabled",
]

_DEVICES = (
    "cpu cuda ipu xpu mkldnn opengl opencl ideep hip ve fpga maia xla lazy vulkan mps meta hpu "
    "mtia privateuseone"
).split()
_enabled: dict[str, bool] = {}
_dtypes: dict[str, Any] = {}
_cache = [True]


def _device(device_type: str) -> str:
    if not isinstance(device_type, str) or device_type.split(":")[0] not in _DEVICES:
        raise RuntimeError(
            f"Expected one of {', '.join(_DEVICES)} device type at start of device string: "
            f"{device_type}"
        )
    return device_type.split(":")[0]


def _default_dtype(device: str) -> Any:
    from ..autograd import dtypes
    from ..autograd.bfloat16 import bfloat16

    # PyTorch's defaults; bfloat16 is a name nnlite cannot compute in (the region never casts)
    return bfloat16 if device == "cpu" else dtypes.float16


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old} is deprecated. Please use {new} instead.", DeprecationWarning, stacklevel=3
    )


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an autocast region is active for ``device_type`` (CUDA's when not given).

    Args:
        device_type (str, optional): ``"cpu"``, ``"cuda"``, ... Default: ``"cuda"``.

    Returns:
        bool: the state.

    Examples:
        >>> nl.is_autocast_enabled("cpu")
        False
    """
    return _enabled.get(_device(device_type or "cuda"), False)


def set_autocast_enabled(device_type: Any, enabled: Any = None) -> None:
    """Switch the autocast state of ``device_type`` (``set_autocast_enabled(bool)``, the old form,
    switches CUDA's).

    Args:
        device_type (str or bool): the device type, or the state for CUDA.
        enabled (bool): the state.

    Examples:
        >>> nl.set_autocast_enabled("cpu", True)
        >>> nl.is_autocast_enabled("cpu")
        True
        >>> nl.set_autocast_enabled("cpu", False)
    """
    if enabled is None and isinstance(device_type, bool):
        device_type, enabled = "cuda", device_type
    _enabled[_device(device_type)] = bool(enabled)


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast regions of ``device_type`` ask for.

    Args:
        device_type (str): ``"cpu"``, ``"cuda"``, ...

    Returns:
        nl.dtype: the dtype (by default PyTorch's: bfloat16 on the CPU, float16 elsewhere).

    Examples:
        >>> nl.get_autocast_dtype("cuda")
        nnlite.float16
    """
    device = _device(device_type)
    return _dtypes.get(device) or _default_dtype(device)


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Set the dtype autocast regions of ``device_type`` ask for.

    Args:
        device_type (str): ``"cpu"``, ``"cuda"``, ...
        dtype (nl.dtype): the dtype.

    Examples:
        >>> nl.set_autocast_dtype("cpu", nl.float16)
        >>> nl.get_autocast_dtype("cpu")
        nnlite.float16
    """
    _dtypes[_device(device_type)] = dtype


def is_autocast_cpu_enabled() -> bool:
    """``is_autocast_enabled("cpu")`` (deprecated by PyTorch; warns).

    Returns:
        bool: the CPU state.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.is_autocast_cpu_enabled()
        False
    """
    _deprecated("torch.is_autocast_cpu_enabled()", "torch.is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """``set_autocast_enabled("cpu", enabled)`` (deprecated by PyTorch; warns).

    Args:
        enabled (bool): the state.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.set_autocast_cpu_enabled(False)
    """
    _deprecated(
        "torch.set_autocast_cpu_enabled(enabled)", "torch.set_autocast_enabled('cpu', enabled)"
    )
    set_autocast_enabled("cpu", enabled)


def get_autocast_cpu_dtype() -> Any:
    """``get_autocast_dtype("cpu")`` (deprecated by PyTorch; warns).

    Returns:
        nl.dtype: the CPU autocast dtype.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.get_autocast_cpu_dtype() is nl.get_autocast_dtype("cpu")
        True
    """
    _deprecated("torch.get_autocast_cpu_dtype()", "torch.get_autocast_dtype('cpu')")
    return get_autocast_dtype("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """``set_autocast_dtype("cpu", dtype)`` (deprecated by PyTorch; warns).

    Args:
        dtype (nl.dtype): the dtype.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.set_autocast_cpu_dtype(nl.float16)
    """
    _deprecated("torch.set_autocast_cpu_dtype(dtype)", "torch.set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def is_autocast_cache_enabled() -> bool:
    """Whether autocast caches its casts (on by default; nnlite casts nothing).

    Returns:
        bool: the state.

    Examples:
        >>> nl.is_autocast_cache_enabled()
        True
    """
    return _cache[0]


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Switch autocast's cast cache.

    Args:
        enabled (bool): the state.

    Examples:
        >>> nl.set_autocast_cache_enabled(True)
    """
    _cache[0] = bool(enabled)


def enter(
    device_type: str, enabled: bool, dtype: Any, cache_enabled: bool | None
) -> tuple[Any, ...]:
    """Set the state of an autocast region; returns what ``leave`` restores."""
    device = _device(device_type)
    saved = (device, _enabled.get(device), _dtypes.get(device), _cache[0])
    _enabled[device] = enabled
    if dtype is not None:
        _dtypes[device] = dtype
    if cache_enabled is not None:
        _cache[0] = bool(cache_enabled)
    return saved


def leave(saved: tuple[Any, ...]) -> None:
    """Restore the state ``enter`` replaced."""
    device, enabled, dtype, cache = saved
    for store, value in ((_enabled, enabled), (_dtypes, dtype)):
        if value is None:
            store.pop(device, None)
        else:
            store[device] = value
    _cache[0] = cache
