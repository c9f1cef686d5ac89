"""RMSprop (Hinton's lecture 6e; centered form of Graves, 2013) with PyTorch's update rule:
``rmsprop`` is the update, ``RMSprop`` the optimizer around it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .adam import _lerp_
from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT


__all__ = ["RMSprop", "rmsprop"]


def rmsprop(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    alpha: float,
    eps: float,
    weight_decay: float,
    momentum: float,
    centered: bool,
    maximize: bool,
) -> None:
    """One RMSprop step on numpy arrays, in place. ``states[i]`` holds ``step``,
    ``square_avg``, and ``momentum_buffer`` / ``grad_avg`` when momentum / centered.

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        alpha (float): the running average's decay rate.
        eps (float): added to the denominator.
        weight_decay (float): L2 penalty.
        momentum (float): the momentum factor.
        centered (bool): divide by the estimated variance instead of the second moment.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1., 2.])], [np.array([0.5, -1.])], [{}]
        >>> rmsprop(p, g, s, lr=0.01, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
        ...         maximize=False)
        >>> np.round(p[0], 4)
        array([0.9, 2.1])
    """
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["square_avg"] = np.zeros_like(p)
            if momentum > 0:
                state["momentum_buffer"] = np.zeros_like(p)
            if centered:
                state["grad_avg"] = np.zeros_like(p)
        if maximize:
            g = -g
        step = state["step"]
        step += 1
        if weight_decay != 0:
            g = g + weight_decay * p
        square_avg = state["square_avg"]
        square_avg *= alpha
        square_avg += (1 - alpha) * g * g
        if centered:
            grad_avg = state["grad_avg"]
            _lerp_(grad_avg, g, 1 - alpha)
            avg = np.sqrt(square_avg - grad_avg * grad_avg)
        else:
            avg = np.sqrt(square_avg)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]
            buf *= momentum
            buf += g / avg
            p -= lr * buf
        else:
            p -= lr * (g / avg)


class RMSprop(Optimizer):
    r"""RMSprop: divide the gradient by a running root mean square of recent gradients::

        g = -g                                  if maximize
        g = g + weight_decay * p                if weight_decay != 0
        v = alpha * v + (1 - alpha) * g * g
        avg = sqrt(v - m * m) + eps             if centered, with m = alpha * m + (1 - alpha) * g
        avg = sqrt(v) + eps                     otherwise
        b = momentum * b + g / avg; p = p - lr * b    if momentum > 0
        p = p - lr * g / avg                          otherwise

    State per parameter: ``step``, ``square_avg`` (v), ``momentum_buffer`` (b) with momentum,
    ``grad_avg`` (m) when centered.

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-2).
        alpha (float): smoothing constant (default 0.99).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        momentum (float): momentum factor (default 0).
        centered (bool): normalize by an estimate of the gradient's variance.
        maximize (bool): maximize the objective instead of minimizing it.
        capturable, foreach: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> x, y = nl.randn(8, 4), nl.randn(8, 2)
        >>> opt = nl.optim.RMSprop(model.parameters(), lr=0.01, momentum=0.9)
        >>> opt.zero_grad()
        >>> F.mse_loss(model(x), y).backward()
        >>> opt.step()
    """

    _update = staticmethod(rmsprop)
    _load_defaults = {
        "momentum": 0,
        "centered": False,
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(
            lr, differentiable, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha
        )
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
