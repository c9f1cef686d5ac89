"""Muon (momentum, orthogonalized by Newton-Schulz) for 2-D parameters, with PyTorch's update rule.

The momentum (Nesterov's by default) of a weight matrix is replaced by an approximately orthogonal
matrix with the same singular vectors, computed by a few quintic Newton-Schulz iterations. PyTorch
runs those iterations in bfloat16; numpy has no bfloat16, so they run here in float32 with every
intermediate rounded to bfloat16 (round to nearest even), which gives PyTorch's values.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ..autograd.tensor import Tensor
from .adam import _lerp_
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["Muon", "muon"]

# The quintic's coefficients and the stabilising epsilon of PyTorch's Muon.
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
EPS = 1e-7
DEFAULT_NS_STEPS = 5


def _to_bfloat16(x: np.ndarray) -> np.ndarray:
    """``x`` (float32) rounded to the nearest bfloat16 value (ties to even), kept as float32."""
    bits = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
    rounding = ((bits >> 16) & 1) + np.uint32(0x7FFF)
    rounded: np.ndarray = ((bits + rounding) & np.uint32(0xFFFF0000)).view(np.float32)
    return rounded


def zeropower_via_newtonschulz(
    grad: np.ndarray, ns_coefficients: tuple[float, float, float], ns_steps: int, eps: float
) -> np.ndarray:
    """An approximately orthogonal matrix with ``grad``'s singular vectors (singular values near
    1), by ``ns_steps`` quintic Newton-Schulz iterations in bfloat16 precision.

    Args:
        grad (numpy.ndarray): a 2-D array.
        ns_coefficients (tuple): the quintic's coefficients ``(a, b, c)``.
        ns_steps (int): the number of iterations (fewer than 100).
        eps (float): the floor of the norm ``grad`` is divided by.

    Returns:
        numpy.ndarray: float32 values on the bfloat16 grid, of ``grad``'s shape.

    Examples:
        >>> out = zeropower_via_newtonschulz(np.eye(2) * 3, (3.4445, -4.775, 2.0315), 5, 1e-7)
        >>> out.shape
        (2, 2)
    """
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = ns_coefficients
    x = _to_bfloat16(grad.astype(np.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:
        x = x.T
    # scale so that the spectral norm is at most 1
    x = _to_bfloat16(x / _to_bfloat16(np.float32(max(float(np.linalg.norm(x)), eps))))
    for _ in range(ns_steps):
        gram = _to_bfloat16(x @ x.T)
        gram_update = _to_bfloat16(b * gram + c * (gram @ gram))
        x = _to_bfloat16(a * x + gram_update @ x)
    return np.ascontiguousarray(x.T if tall else x)


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple[int, ...]) -> float:
    """The learning rate scaled for a ``shape[0] x shape[1]`` matrix: ``sqrt(max(1, A/B))``
    (``"original"``, the default) or ``0.2 * sqrt(max(A, B))`` (``"match_rms_adamw"``)."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


def muon(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    weight_decay: float,
    momentum: float,
    nesterov: bool,
    ns_coefficients: tuple[float, float, float],
    eps: float,
    ns_steps: int,
    adjust_lr_fn: str | None,
) -> None:
    """One Muon step on numpy arrays, in place (``momentum_buffer`` in each state).

    Args:
        params (list of numpy.ndarray): 2-D parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        weight_decay (float): decoupled weight decay.
        momentum (float): the momentum factor.
        nesterov (bool): Nesterov's momentum.
        ns_coefficients (tuple): the Newton-Schulz quintic's coefficients.
        eps (float): the floor of the norm the momentum is divided by.
        ns_steps (int): the Newton-Schulz iterations.
        adjust_lr_fn (str or None): ``"original"`` (None) or ``"match_rms_adamw"``.

    Examples:
        >>> p, g, s = [np.ones((2, 2), np.float32)], [np.eye(2, dtype=np.float32)], [{}]
        >>> muon(p, g, s, lr=0.1, weight_decay=0.0, momentum=0.95, nesterov=True,
        ...      ns_coefficients=(3.4445, -4.775, 2.0315), eps=1e-7, ns_steps=5, adjust_lr_fn=None)
        >>> bool((p[0] < 1).any())
        True
    """
    for p, g, state in zip(params, grads, states):
        if g.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        if "momentum_buffer" not in state:
            state["momentum_buffer"] = np.zeros_like(g)
        buf = state["momentum_buffer"]
        _lerp_(buf, g, 1 - momentum)
        update = buf
        if nesterov:
            update = g.copy()
            _lerp_(update, buf, momentum)
        ortho = zeropower_via_newtonschulz(update, ns_coefficients, ns_steps, eps)
        p *= 1 - lr * weight_decay
        p -= adjusted_lr(lr, adjust_lr_fn, p.shape) * ortho.astype(p.dtype, copy=False)


class Muon(Optimizer):
    r"""Muon: SGD with Nesterov momentum whose update is orthogonalized by Newton-Schulz
    iterations, for the 2-D weights of hidden layers (train biases and embeddings with AdamW)::

        B = momentum * B + (1 - momentum) * g          (PyTorch's lerp form)
        U = g + momentum * (B - g) if nesterov else B
        O = NewtonSchulz(U)  (approximately orthogonal, same singular vectors)
        p = p * (1 - lr * weight_decay) - adjusted_lr * O

    Args:
        params: 2-D tensors or param groups to optimize.
        lr (float or Tensor): learning rate (default 1e-3).
        weight_decay (float): decoupled weight decay (default 0.1).
        momentum (float): momentum factor (default 0.95).
        nesterov (bool): Nesterov momentum (default True).
        ns_coefficients (tuple): the Newton-Schulz quintic's ``(a, b, c)`` (default
            ``(3.4445, -4.775, 2.0315)``).
        eps (float): the floor of the norm in Newton-Schulz (default 1e-7).
        ns_steps (int): Newton-Schulz iterations (default 5).
        adjust_lr_fn (str, optional): ``"original"`` (``sqrt(max(1, A/B))``, the default) or
            ``"match_rms_adamw"`` (``0.2 * sqrt(max(A, B))``).

    Raises:
        ValueError: for a parameter that is not 2-D, or a bad option.

    Examples:
        >>> model = nn.Linear(3, 2)
        >>> opt = nl.optim.Muon([model.weight], lr=0.02)
        >>> model(nl.ones(1, 3)).sum().backward()
        >>> opt.step()
        >>> sorted(opt.state[model.weight])
        ['momentum_buffer']
    """

    _update = staticmethod(muon)

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        weight_decay: float = 0.1,
        momentum: float = 0.95,
        nesterov: bool = True,
        ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
        eps: float = EPS,
        ns_steps: int = DEFAULT_NS_STEPS,
        adjust_lr_fn: str | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ["original", "match_rms_adamw"]:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = {
            "lr": lr,
            "weight_decay": weight_decay,
            "momentum": momentum,
            "nesterov": nesterov,
            "ns_coefficients": ns_coefficients,
            "eps": eps,
            "ns_steps": ns_steps,
            "adjust_lr_fn": adjust_lr_fn,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(
                        "Muon only supports 2D parameters whereas we found a parameter with "
                        f"size: {p.size()}"
                    )
