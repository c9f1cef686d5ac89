"""NAdam (Dozat, 2016: Adam with Nesterov momentum) with PyTorch's update rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .adamax import check_betas
from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["NAdam", "nadam"]


def nadam(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    momentum_decay: float,
    decoupled_weight_decay: bool,
    maximize: bool,
) -> None:
    """One NAdam step on numpy arrays, in place (``step``, ``mu_product``, ``exp_avg``,
    ``exp_avg_sq`` in each state; ``step`` and ``mu_product`` float32, as PyTorch's).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        betas (tuple): the moments' decay rates.
        eps (float): added to the denominator.
        weight_decay (float): the weight decay.
        momentum_decay (float): the momentum schedule's decay.
        decoupled_weight_decay (bool): decay the weights directly (as AdamW) instead of the gradient.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0])], [np.array([0.5])], [{}]
        >>> nadam(p, g, s, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
        ...       momentum_decay=4e-3, decoupled_weight_decay=False, maximize=False)
        >>> bool(p[0][0] < 1.0)
        True
    """
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["mu_product"] = np.ones((), np.float32)
            state["exp_avg"] = np.zeros_like(p)
            state["exp_avg_sq"] = np.zeros_like(p)
        if maximize:
            g = -g
        step_t = state["step"]
        step_t += 1
        step = float(step_t)
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * momentum_decay))
        mu_product = state["mu_product"]
        mu_product *= mu
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg += (g - exp_avg) * (1 - beta1)
        exp_avg_sq *= beta2
        exp_avg_sq += (1 - beta2) * g * g
        denom = np.sqrt(exp_avg_sq / bias_correction2) + eps
        product = float(mu_product)
        p -= lr * (1.0 - mu) / (1.0 - product) * g / denom
        p -= lr * mu_next / (1.0 - product * mu_next) * exp_avg / denom


class NAdam(Optimizer):
    r"""NAdam: Adam whose first moment looks one step ahead (Nesterov momentum), with the
    momentum schedule ``mu_t = beta1 * (1 - 0.5 * 0.96^(t * momentum_decay))``.

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 2e-3).
        betas (tuple): decay rates of the moments (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): weight decay (default 0).
        momentum_decay (float): the momentum schedule's decay (default 4e-3).
        decoupled_weight_decay (bool): AdamW-style decay (default False).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.NAdam(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
    """

    _update = staticmethod(nadam)
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
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_betas(betas)
        check_options(lr, differentiable, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)
