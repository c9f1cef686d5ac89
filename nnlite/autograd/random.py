"""nnlite's random number generator (``nl.manual_seed``), separate from numpy's global one."""

import numpy as np

# PyTorch's default seed, so that unseeded programs are reproducible as they are in PyTorch
_DEFAULT_SEED = 67280421310721

default_generator = np.random.default_rng(_DEFAULT_SEED)
_seed = [_DEFAULT_SEED]


def manual_seed(seed):
    """Seed nnlite's generator (used by ``rand``, ``randn``, initialisers and dropout).

    Example:
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


def initial_seed():
    return _seed[0]


def get_rng_state():
    """The generator state as a JSON-able dict (saved in checkpoints)."""
    return default_generator.bit_generator.state


def set_rng_state(state):
    default_generator.bit_generator.state = state
