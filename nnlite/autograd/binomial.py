"""``nl.binomial``: draws from binomial distributions, as ``torch.binomial``."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["binomial"]


def binomial(count: Any, prob: Any, generator: Any = None) -> Any:
    """A draw from Binomial(``count``, ``prob``) per element (not differentiable).

    Args:
        count (Tensor): floating, the numbers of trials.
        prob (Tensor): floating, the success probabilities, broadcast with ``count``.
        generator (nl.Generator, optional): the generator. Default: nnlite's.

    Returns:
        Tensor: the successes, in ``count``'s dtype.

    Examples:
        >>> nl.binomial(nl.tensor([10., 0.]), nl.tensor([1., 0.5]))
        tensor([10.,  0.])
    """
    from .creation import tensor
    from .random import default_generator

    if not count.is_floating_point() or not prob.is_floating_point():
        raise RuntimeError(
            f"\"binomial_cpu\" not implemented for '{str(count.dtype).split('.')[-1].capitalize()}'"
        )
    if count.dtype != prob.dtype:
        raise RuntimeError(
            f"binomial(): expected count and prob to have the same dtype, got {count.dtype} and {prob.dtype}"
        )
    rng = generator if generator is not None else default_generator
    n = np.asarray(count._data)
    p = np.asarray(prob._data)
    if np.any((p < 0) | (p > 1)):
        raise RuntimeError("binomial(): prob must be in [0, 1]")
    draws = rng.binomial(n.astype(np.int64), p)
    return tensor(np.asarray(draws, dtype=n.dtype), dtype=count.dtype)
