"""Anomaly detection, as ``torch.autograd.detect_anomaly``: while it is on, every gradient a
backward node returns is checked and a NaN raises, naming the node."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

if TYPE_CHECKING:
    from .node import Node

F = TypeVar("F", bound=Callable[..., Any])

# _anomaly[0]: detection on; _anomaly[1]: whether NaN gradients raise
_anomaly = [False, True]


def check_gradients(node: Node, gradients: Iterable[Any]) -> None:
    """Raise PyTorch's error when ``check_nan`` is on and a gradient of ``node`` holds a NaN."""
    if not _anomaly[1]:
        return
    for k, g in enumerate(gradients):
        if g is None:
            continue
        data = getattr(g, "_data", g)
        if np.issubdtype(np.asarray(data).dtype, np.floating) and np.isnan(data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {k}th output.")


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on.

    Returns:
        bool: the setting.

    Examples:
        >>> nl.is_anomaly_enabled()
        False
    """
    return _anomaly[0]


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection raises on NaN gradients.

    Returns:
        bool: the setting.

    Examples:
        >>> nl.is_anomaly_check_nan_enabled()
        True
    """
    return _anomaly[1]


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly detection on or off.

    Args:
        enabled (bool): the setting.
        check_nan (bool): raise on NaN gradients. Default: True.

    Returns:
        None

    Examples:
        >>> nl.set_anomaly_enabled(False)
    """
    _anomaly[0], _anomaly[1] = bool(enabled), bool(check_nan)


class set_detect_anomaly:
    """Context manager and decorator setting anomaly detection on or off.

    Args:
        mode (bool): the setting inside.
        check_nan (bool): raise on NaN gradients. Default: True.

    Examples:
        >>> with nl.autograd.set_detect_anomaly(True):
        ...     nl.is_anomaly_enabled()
        True
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._setting = (bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        self._previous = tuple(_anomaly)
        _anomaly[0], _anomaly[1] = self._setting

    def __exit__(self, *exc: object) -> Literal[False]:
        _anomaly[0], _anomaly[1] = self._previous
        return False

    def __call__(self, fn: F) -> F:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with type(self)(*self._setting):
                return fn(*args, **kwargs)

        return wrapper  # type: ignore[return-value]  # wraps() keeps fn's signature


class detect_anomaly(set_detect_anomaly):
    """Context manager and decorator turning anomaly detection on: a NaN gradient raises
    ``RuntimeError: Function 'XBackward0' returned nan values in its 0th output.``

    Args:
        check_nan (bool): raise on NaN gradients. Default: True.

    Examples:
        >>> x = nl.tensor([0.], requires_grad=True)
        >>> with nl.autograd.detect_anomaly():
        ...     try:
        ...         (x.sqrt() * 0).sum().backward()
        ...     except RuntimeError as e:
        ...         print(e)
        Function 'SqrtBackward0' returned nan values in its 0th output.
    """

    def __init__(self, check_nan: bool = True) -> None:
        super().__init__(True, check_nan)
