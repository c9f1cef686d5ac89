"""Process-wide settings of PyTorch's top level that nnlite has too: ``default_generator`` (the
generator behind ``nl.manual_seed``, as an ``nl.Generator``), ``set_default_tensor_type``,
``init_num_threads`` and ``is_distributed``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import random as _random
from .generator import Generator

__all__ = ["default_generator", "init_num_threads", "is_distributed", "set_default_tensor_type"]


class _DefaultGenerator(Generator):
    """``nl.default_generator``: the generator of ``nl.manual_seed``, ``nl.rand`` and friends; its
    state is theirs (seeding one seeds the other)."""

    def __init__(self) -> None:
        from ..device import device as _device

        np.random.Generator.__init__(self, _random.default_generator.bit_generator)
        self._device = _device("cpu")

    def manual_seed(self, seed: int) -> Generator:
        _random.manual_seed(seed)
        return self

    def initial_seed(self) -> int:
        return int(_random.initial_seed())


#: the default generator (``torch.default_generator``): ``nl.manual_seed`` seeds it
default_generator = _DefaultGenerator()


def init_num_threads() -> None:
    """Make the current thread use the number of threads set by ``nl.set_num_threads`` (PyTorch
    calls it in new threads; nnlite's setting is process-wide already, so nothing changes).

    Examples:
        >>> nl.init_num_threads()
    """


def is_distributed(input: Any) -> bool:
    """Whether ``input`` is spread over processes (a dense CPU tensor never is).

    Args:
        input (Tensor): the tensor.

    Returns:
        bool: False.

    Examples:
        >>> nl.is_distributed(nl.zeros(2))
        False
    """
    from .tensor import Tensor

    if not isinstance(input, Tensor):
        raise TypeError(
            f"is_distributed(): argument 'input' (position 1) must be Tensor, not "
            f"{type(input).__name__}"
        )
    return False


_FLOAT_TYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16"}


def set_default_tensor_type(t: Any, /) -> None:
    """Set the default floating tensor type (deprecated by PyTorch in favour of
    ``set_default_dtype``; warns as PyTorch does).

    Args:
        t (type or str): ``nl.FloatTensor``, ``nl.DoubleTensor``, ``nl.HalfTensor`` or their names
            (``"torch.DoubleTensor"`` is accepted too).

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nl.set_default_tensor_type(nl.DoubleTensor)
        ...     nl.tensor([1.]).dtype
        nnlite.float64
        >>> nl.set_default_dtype(nl.float32)
    """
    from . import dtypes
    from .promotion import set_default_dtype

    warnings.warn(
        "torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
        "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
        UserWarning,
        stacklevel=2,
    )
    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "nnlite", ""):
            raise ModuleNotFoundError(f"No module named '{module}'")
    else:
        name = getattr(t, "__name__", "")
        if not isinstance(t, type):
            raise TypeError(
                "invalid type object: only floating-point types are supported as the default type"
            )
    if name not in _FLOAT_TYPES:
        raise TypeError("only floating-point types are supported as the default type")
    set_default_dtype(getattr(dtypes, _FLOAT_TYPES[name]))
