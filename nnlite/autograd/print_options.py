"""``nl.set_printoptions``: how tensors print (digits, summarisation, line width, notation), as
``torch.set_printoptions``. ``repr`` reads ``OPTIONS`` each time it formats a tensor."""

from __future__ import annotations

import math
from types import SimpleNamespace

__all__ = ["set_printoptions"]

_PROFILES: dict[str, dict[str, float]] = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}

#: the current options (``sci_mode`` None: chosen per tensor)
OPTIONS = SimpleNamespace(**_PROFILES["default"], sci_mode=None)


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print, as ``torch.set_printoptions``.

    Args:
        precision (int, optional): digits after the point of floating values. Default: 4.
        threshold (float, optional): tensors with more elements print summarised. Default: 1000.
        edgeitems (int, optional): the items kept at each end of a summarised dimension. Default: 3.
        linewidth (int, optional): the characters per line. Default: 80.
        profile (str, optional): ``"default"``, ``"short"`` (2 digits, 2 edge items) or ``"full"``
            (never summarise), applied before the other arguments.
        sci_mode (bool, optional): always (True) or never (False) scientific notation; None lets
            each tensor choose. Unlike the others, it is set on every call.

    Examples:
        >>> nl.set_printoptions(precision=2)
        >>> nl.tensor([1.12345])
        tensor([1.12])
        >>> nl.set_printoptions(profile="default")
        >>> nl.tensor([1.12345])
        tensor([1.1235])
    """
    chosen = _PROFILES.get(profile) if profile is not None else None
    if chosen is not None:
        for key, value in chosen.items():
            setattr(OPTIONS, key, value)
    for key, value in (
        ("precision", precision),
        ("threshold", threshold),
        ("edgeitems", edgeitems),
        ("linewidth", linewidth),
    ):
        if value is not None:
            setattr(OPTIONS, key, value)
    OPTIONS.sci_mode = sci_mode
