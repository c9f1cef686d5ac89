"""Adamax (Kingma and Ba, 2015: Adam with the infinity norm) with PyTorch's update rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["Adamax", "adamax"]


def adamax(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """One Adamax step on numpy arrays, in place (``step``, ``exp_avg``, ``exp_inf`` in each state).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        betas (tuple): the decay of the first moment and of the infinity norm.
        eps (float): added to the norm.
        weight_decay (float): L2 penalty.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0])], [np.array([0.5])], [{}]
        >>> adamax(p, g, s, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, maximize=False)
        >>> np.round(p[0], 4)
        array([0.9])
    """
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["exp_avg"] = np.zeros_like(p)
            state["exp_inf"] = np.zeros_like(p)
        if maximize:
            g = -g
        step = state["step"]
        step += 1
        if weight_decay != 0:
            g = g + weight_decay * p
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        exp_avg += (g - exp_avg) * (1 - beta1)
        np.maximum(exp_inf * beta2, np.abs(g) + eps, out=exp_inf)
        clr = lr / (1 - beta1 ** float(step))
        p -= clr * exp_avg / exp_inf


class Adamax(Optimizer):
    r"""Adamax: Adam's update with the running infinity norm of the gradients as denominator::

        m = beta1 * m + (1 - beta1) * g
        u = max(beta2 * u, |g| + eps)
        p = p - lr / (1 - beta1^t) * m / u

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 2e-3).
        betas (tuple): decay rates of the moment and the norm (default (0.9, 0.999)).
        eps (float): added to the norm (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.Adamax(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
    """

    _update = staticmethod(adamax)
    _load_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_betas(betas)
        check_options(lr, differentiable, eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)


def check_betas(betas: tuple[float, float]) -> None:
    """PyTorch's check of ``betas``: each in [0, 1)."""
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
