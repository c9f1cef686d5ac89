"""Adadelta (Zeiler, 2012) with PyTorch's update rule: ``adadelta`` is the update, ``Adadelta``
the optimizer around it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT


__all__ = ["Adadelta", "adadelta"]


def adadelta(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    rho: float,
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """One Adadelta step on numpy arrays, in place. ``states[i]`` holds ``step``,
    ``square_avg`` (running mean of g²) and ``acc_delta`` (running mean of the updates²).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the scale of the update.
        rho (float): the running averages' decay rate.
        eps (float): added inside the square roots.
        weight_decay (float): L2 penalty.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1., 2.])], [np.array([0.5, -1.])], [{}]
        >>> adadelta(p, g, s, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, maximize=False)
        >>> sorted(s[0])
        ['acc_delta', 'square_avg', 'step']
    """
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["square_avg"] = np.zeros_like(p)
            state["acc_delta"] = np.zeros_like(p)
        step = state["step"]
        step += 1
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        square_avg *= rho
        square_avg += (1 - rho) * g * g
        delta = np.sqrt(acc_delta + eps) / np.sqrt(square_avg + eps) * g
        acc_delta *= rho
        acc_delta += (1 - rho) * delta * delta
        p -= lr * delta


class Adadelta(Optimizer):
    r"""Adadelta: a per-coordinate step size from running averages of squared gradients and
    squared updates, so that ``lr`` (default 1.0) needs little tuning::

        g = -g                                   if maximize
        g = g + weight_decay * p                 if weight_decay != 0
        v = rho * v + (1 - rho) * g * g
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta

    State per parameter: ``step``, ``square_avg`` (v), ``acc_delta`` (u).

    Args:
        params: tensors or param groups to optimize.
        lr (float): scale of the update (default 1.0).
        rho (float): decay of the running averages, in [0, 1] (default 0.9).
        eps (float): added inside the square roots (default 1e-6).
        weight_decay (float): L2 penalty (default 0).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> x, y = nl.randn(8, 4), nl.randn(8, 2)
        >>> opt = nl.optim.Adadelta(model.parameters(), lr=1.0)
        >>> opt.zero_grad()
        >>> F.mse_loss(model(x), y).backward()
        >>> opt.step()
    """

    _update = staticmethod(adadelta)
    _load_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_options(lr, differentiable, eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
