"""``GradScaler``: PyTorch's loss-scaling interface with the behaviour of its disabled scaler
(nnlite's float32 gradients do not underflow, so nothing is scaled)."""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["GradScaler"]


class GradScaler:
    """Loss scaling for mixed precision, disabled: ``scale(loss)`` returns ``loss``,
    ``step(optimizer)`` runs ``optimizer.step()``, ``update()`` and ``unscale_`` do nothing,
    ``get_scale()`` is 1.0 and ``state_dict()`` is empty, as PyTorch's scaler with
    ``enabled=False``. Scripts written for CUDA's mixed precision run unchanged.

    Args:
        device (str): accepted for PyTorch's signature. Default: ``"cuda"``.
        init_scale, growth_factor, backoff_factor, growth_interval: accepted and ignored.
        enabled (bool): accepted; the scaler is always disabled.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> optimizer = nl.optim.SGD(model.parameters(), lr=0.1)
        >>> scaler = nl.amp.GradScaler("cpu")
        >>> loss = model(nl.ones(1, 2)).sum()
        >>> scaler.scale(loss).backward()
        >>> scaler.step(optimizer)
        >>> scaler.update()
        >>> scaler.get_scale()
        1.0
    """

    def __init__(
        self,
        device: str = "cuda",
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        self._device = device
        self._enabled = False
        if enabled and device == "cuda":
            warnings.warn(
                "torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                stacklevel=2,
            )

    def is_enabled(self) -> bool:
        """Whether the scaler scales: ``False``.

        Returns:
            bool: False.

        Examples:
            >>> nl.amp.GradScaler("cpu").is_enabled()
            False
        """
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        """``outputs`` unchanged (a tensor or a nest of tensors).

        Args:
            outputs (Tensor or nest of Tensors): the losses.

        Returns:
            ``outputs``.

        Examples:
            >>> nl.amp.GradScaler("cpu").scale(nl.ones(1))
            tensor([1.])
        """
        return outputs

    def unscale_(self, optimizer: Any) -> None:
        """Nothing to undo.

        Args:
            optimizer (Optimizer): the optimizer whose gradients PyTorch would unscale.

        Examples:
            >>> nl.amp.GradScaler("cpu").unscale_(nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1))
        """
        return None

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)``, its return value passed on.

        Args:
            optimizer (Optimizer): the optimizer.
            *args: passed to ``optimizer.step``.
            **kwargs: passed to ``optimizer.step``.

        Returns:
            what ``optimizer.step`` returns.

        Examples:
            >>> nl.amp.GradScaler("cpu").step(nl.optim.SGD([nl.zeros(1, requires_grad=True)], lr=0.1)) is None
            True
        """
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: Any = None) -> None:
        """Nothing to update.

        Args:
            new_scale (float or Tensor, optional): accepted and ignored.

        Examples:
            >>> nl.amp.GradScaler("cpu").update()
        """
        return None

    def get_scale(self) -> float:
        """The scale factor: 1.0 (PyTorch's disabled scaler's).

        Returns:
            float: 1.0.

        Examples:
            >>> nl.amp.GradScaler("cpu").get_scale()
            1.0
        """
        return 1.0

    def get_growth_factor(self) -> float:
        """Accepted for PyTorch's interface: 2.0.

        Returns:
            float: 2.0.

        Examples:
            >>> nl.amp.GradScaler("cpu").get_growth_factor()
            2.0
        """
        return 2.0

    def get_backoff_factor(self) -> float:
        """Accepted for PyTorch's interface: 0.5.

        Returns:
            float: 0.5.

        Examples:
            >>> nl.amp.GradScaler("cpu").get_backoff_factor()
            0.5
        """
        return 0.5

    def get_growth_interval(self) -> int:
        """Accepted for PyTorch's interface: 2000.

        Returns:
            int: 2000.

        Examples:
            >>> nl.amp.GradScaler("cpu").get_growth_interval()
            2000
        """
        return 2000

    def state_dict(self) -> dict[str, Any]:
        """An empty dict (PyTorch's disabled scaler's).

        Returns:
            dict: empty.

        Examples:
            >>> nl.amp.GradScaler("cpu").state_dict()
            {}
        """
        return {}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Accepts a scaler's state (PyTorch's or nnlite's) and keeps nothing of it.

        Args:
            state_dict (dict): a scaler's state.

        Examples:
            >>> nl.amp.GradScaler("cpu").load_state_dict({})
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"state_dict must be a dict, got {type(state_dict).__name__}")
