"""nnlite's random number generator (``nl.manual_seed``), separate from numpy's global one."""

from typing import Any

import numpy as np

# PyTorch's default seed, so that unseeded programs are reproducible as they are in PyTorch
_DEFAULT_SEED = 67280421310721

default_generator = np.random.default_rng(_DEFAULT_SEED)
_seed = [_DEFAULT_SEED]


def manual_seed(seed: int) -> np.random.Generator:
    """Seed nnlite's generator (used by ``rand``, ``randn``, initialisers and dropout).

    Args:
        seed (int): the seed.

    Returns:
        numpy.random.Generator: the generator, now seeded.

    Examples:
        >>> _ = nl.manual_seed(0)
        >>> a = nl.rand(2)
        >>> _ = nl.manual_seed(0)
        >>> bool((nl.rand(2) == a).all())
        True
    """
    seed = int(seed)
    _seed[0] = seed
    default_generator.bit_generator.state = np.random.default_rng(
        seed & (2**64 - 1)
    ).bit_generator.state
    return default_generator


def initial_seed() -> int:
    """The seed nnlite's generator was last seeded with.

    Returns:
        int: the seed.

    Examples:
        >>> _ = nl.manual_seed(7)
        >>> nl.initial_seed()
        7
    """
    return _seed[0]


def get_rng_state() -> dict[str, Any]:
    """The generator's state, to restore later with ``set_rng_state`` (checkpoints save it).

    Returns:
        dict: the state, JSON-able.

    Examples:
        >>> state = nl.get_rng_state()
        >>> a = nl.rand(2)
        >>> nl.set_rng_state(state)
        >>> bool((nl.rand(2) == a).all())
        True
    """
    return dict(default_generator.bit_generator.state)


def set_rng_state(new_state: dict[str, Any]) -> None:
    """Restore the generator state that ``get_rng_state`` returned.

    Args:
        new_state (dict): a state from ``get_rng_state``.

    Examples:
        >>> state = nl.get_rng_state()
        >>> a = nl.randn(3)
        >>> nl.set_rng_state(state)
        >>> bool((nl.randn(3) == a).all())
        True
    """
    default_generator.bit_generator.state = new_state
