"""``nn.factory_kwargs``: the ``device``/``dtype`` keywords a layer passes on to tensor factories."""

from __future__ import annotations

from typing import Any

__all__ = ["factory_kwargs"]

_SIMPLE_KEYS = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs: dict[str, Any] | None) -> dict[str, Any]:
    """The factory keywords of ``kwargs`` as one dict, checked as PyTorch checks them.

    ``kwargs`` may hold ``device``, ``dtype`` and ``memory_format``, and a ``factory_kwargs`` dict
    for those whose name a signature already uses for something else.

    Args:
        kwargs (dict or None): the keywords a layer received.

    Returns:
        dict: the keywords to pass on to ``nl.empty``, ``nl.zeros``, ...

    Raises:
        TypeError: for any other keyword, or one given twice.

    Examples:
        >>> nn.factory_kwargs({"dtype": nl.float64})
        {'dtype': nnlite.float64}
    """
    if kwargs is None:
        return {}
    expected = set(_SIMPLE_KEYS) | {"factory_kwargs"}
    if not kwargs.keys() <= expected:
        raise TypeError(f"unexpected kwargs {kwargs.keys() - expected}")
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE_KEYS:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
