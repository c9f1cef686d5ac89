"""``Container``: PyTorch's deprecated module holding the children given as keywords."""

from __future__ import annotations

import warnings
from typing import Any

from .module import Module

__all__ = ["Container"]


class Container(Module):
    """Deprecated: a ``Module`` whose children are the keyword arguments (subclass ``Module``).

    Creating one warns with PyTorch's ``FutureWarning``.

    Args:
        **kwargs (Module): the children, by name.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     c = nn.Container(fc=nn.Linear(2, 3))
        >>> c
        Container(
          (fc): Linear(in_features=2, out_features=3, bias=True)
        )
    """

    def __init__(self, **kwargs: Any) -> None:
        warnings.warn(
            "`nn.Container` is deprecated. All of its functionality is now implemented in "
            "`nn.Module`. Subclass that instead.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__()
        for key, value in kwargs.items():
            self.add_module(key, value)
