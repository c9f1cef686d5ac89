"""``nl.Generator``: a random number generator object, as ``torch.Generator``.

It is a numpy ``Generator`` too, so every ``generator=`` argument of nnlite (``rand``, ``randn``,
``multinomial``, ``randperm``, samplers, ``random_split``) takes it as it is.
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from .random import _DEFAULT_SEED


class Generator(np.random.Generator):
    """A random number generator with its own state, as ``torch.Generator``.

    Args:
        device (str or nnlite.device): ``"cpu"`` (nnlite runs on the CPU only). Default: ``"cpu"``.

    Examples:
        >>> g = nl.Generator().manual_seed(2147483647)
        >>> a = nl.rand(3, generator=g)
        >>> g.initial_seed()
        2147483647
    """

    def __init__(self, device: Any = "cpu") -> None:
        from ..device import device as _device

        self._device = _device(device)
        if self._device.type != "cpu":
            raise RuntimeError(
                f"nnlite runs on the CPU only; device '{self._device}' is not available"
            )
        super().__init__(np.random.PCG64(_DEFAULT_SEED))
        self._initial_seed = _DEFAULT_SEED

    @property
    def device(self) -> Any:
        """The device of the generator (always the CPU).

        Examples:
            >>> nl.Generator().device
            device(type='cpu')
        """
        return self._device

    def manual_seed(self, seed: int) -> Generator:
        """Seed the generator and return it.

        Args:
            seed (int): the seed.

        Returns:
            Generator: this generator.

        Examples:
            >>> g = nl.Generator().manual_seed(3)
            >>> bool((nl.rand(2, generator=g) == nl.rand(2, generator=g.manual_seed(3))).all())
            True
        """
        seed = int(seed)
        self.bit_generator.state = np.random.PCG64(seed & (2**64 - 1)).state
        self._initial_seed = seed
        return self

    def seed(self) -> int:
        """Seed the generator from the operating system's randomness.

        Returns:
            int: the seed chosen.

        Examples:
            >>> g = nl.Generator()
            >>> g.seed() == g.initial_seed()
            True
        """
        seed = secrets.randbits(63)
        self.manual_seed(seed)
        return seed

    def initial_seed(self) -> int:
        """The seed the generator was last seeded with.

        Returns:
            int: the seed.

        Examples:
            >>> nl.Generator().manual_seed(5).initial_seed()
            5
        """
        return self._initial_seed

    def get_state(self) -> dict[str, Any]:
        """The generator's state, for ``set_state`` (a dict where PyTorch gives a byte tensor).

        Returns:
            dict: the state.

        Examples:
            >>> g = nl.Generator()
            >>> state = g.get_state()
            >>> a = nl.rand(2, generator=g)
            >>> bool((nl.rand(2, generator=g.set_state(state)) == a).all())
            True
        """
        return dict(self.bit_generator.state)

    def set_state(self, new_state: dict[str, Any]) -> Generator:
        """Restore a state from ``get_state``.

        Args:
            new_state (dict): a state from ``get_state``.

        Returns:
            Generator: this generator.

        Examples:
            >>> g = nl.Generator()
            >>> g.set_state(g.get_state()) is g
            True
        """
        self.bit_generator.state = new_state
        return self
