"""Stochastic gradient descent, optionally with momentum, dampening, Nesterov momentum and
weight decay; PyTorch's update rule. ``sgd`` is the update, ``SGD`` the optimizer around it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._fused import SGD_MIN_ELEMENTS, fusable, sgd_momentum_
from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT


__all__ = ["SGD", "sgd"]


def sgd(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    momentum: float,
    dampening: float,
    weight_decay: float,
    nesterov: bool,
    maximize: bool,
) -> None:
    """One SGD step on numpy arrays, in place: ``params[i] -= lr * (effective gradient)``.

    ``states[i]`` holds the momentum buffer (created on the first step with momentum).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        momentum (float): the momentum factor.
        dampening (float): the momentum's dampening.
        weight_decay (float): L2 penalty.
        nesterov (bool): Nesterov momentum.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1., 2.])], [np.array([0.5, -1.])], [{}]
        >>> sgd(p, g, s, lr=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False,
        ...     maximize=False)
        >>> p[0]
        array([0.95, 2.1 ])
    """
    for p, g, state in zip(params, grads, states):
        buf = state.get("momentum_buffer") if momentum != 0 else None
        if buf is not None and p.size >= SGD_MIN_ELEMENTS and fusable(p, g, buf):
            sgd_momentum_(
                p,
                g,
                buf,
                lr=lr,
                momentum=momentum,
                dampening=dampening,
                weight_decay=weight_decay,
                nesterov=nesterov,
                maximize=maximize,
            )
            continue
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = np.array(g)  # a copy (an array even for 0-d g)
            else:
                buf *= momentum
                buf += g if dampening == 0 else (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p -= lr * g


class SGD(Optimizer):
    r"""Stochastic gradient descent (optionally with momentum).

    For each parameter with a gradient :math:`g` (parameters whose ``.grad`` is ``None`` are
    skipped and get no state)::

        g = -g                      if maximize
        g = g + weight_decay * p    if weight_decay != 0
        if momentum != 0:
            b = g (a copy)                            on the first step
            b = momentum * b + (1 - dampening) * g    afterwards
            g = g + momentum * b    if nesterov, else g = b
        p = p - lr * g

    The momentum buffer ``b`` is ``state[p]["momentum_buffer"]``.

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-3).
        momentum (float): momentum factor (default 0).
        dampening (float): dampening for momentum (default 0).
        weight_decay (float): L2 penalty (default 0).
        nesterov (bool): Nesterov momentum; needs ``momentum > 0`` and ``dampening == 0``.
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, fused: accepted for compatibility with PyTorch; nnlite has one implementation.
        differentiable: must be ``False``; nnlite's optimizer steps are not recorded.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> x, y = nl.randn(8, 4), nl.randn(8, 2)
        >>> opt = nl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        >>> opt.zero_grad()
        >>> F.mse_loss(model(x), y).backward()
        >>> opt.step()
    """

    _update = staticmethod(sgd)
    _load_defaults = {
        "nesterov": False,
        "maximize": False,
        "foreach": None,
        "differentiable": False,
        "fused": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_options(lr, differentiable, momentum=momentum, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
