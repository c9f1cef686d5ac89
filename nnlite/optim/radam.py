"""RAdam (Liu et al., 2020: Adam with a rectified adaptive learning rate) with PyTorch's update rule."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from .adamax import check_betas
from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["RAdam", "radam"]


def radam(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    decoupled_weight_decay: bool,
    maximize: bool,
) -> None:
    """One RAdam step on numpy arrays, in place (``step``, ``exp_avg``, ``exp_avg_sq``).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        betas (tuple): the moments' decay rates.
        eps (float): added to the denominator.
        weight_decay (float): the weight decay.
        decoupled_weight_decay (bool): decay the weights directly (as AdamW).
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0])], [np.array([0.5])], [{}]
        >>> radam(p, g, s, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
        ...       decoupled_weight_decay=False, maximize=False)
        >>> np.round(p[0], 4)  # the first steps are plain momentum steps
        array([0.95])
    """
    beta1, beta2 = betas
    rho_inf = 2 / (1 - beta2) - 1
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["exp_avg"] = np.zeros_like(p)
            state["exp_avg_sq"] = np.zeros_like(p)
        if maximize:
            g = -g
        step_t = state["step"]
        step_t += 1
        step = float(step_t)
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg += (g - exp_avg) * (1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * g * g
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected = exp_avg / bias_correction1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
        if rho_t > 5.0:
            rect = math.sqrt(
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            )
            adaptive = math.sqrt(bias_correction2) / (np.sqrt(exp_avg_sq) + eps)
            p -= corrected * lr * adaptive * rect
        else:
            p -= corrected * lr


class RAdam(Optimizer):
    r"""RAdam: Adam whose adaptive step is rectified by the variance of its estimate, falling
    back to momentum SGD while that variance is intractable (the first steps).

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-3).
        betas (tuple): decay rates of the moments (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): weight decay (default 0).
        decoupled_weight_decay (bool): AdamW-style decay (default False).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.RAdam(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
    """

    _update = staticmethod(radam)
    _load_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
        "decoupled_weight_decay": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_betas(betas)
        check_options(lr, differentiable, eps=eps, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
