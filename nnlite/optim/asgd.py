"""ASGD (Polyak and Juditsky, 1992: averaged stochastic gradient descent) with PyTorch's update rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["ASGD", "asgd"]


def asgd(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    lambd: float,
    alpha: float,
    t0: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """One ASGD step on numpy arrays, in place (``step``, ``eta``, ``mu`` (float32 scalars, as
    PyTorch's) and the average ``ax``).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        lambd (float): the decay term.
        alpha (float): the power of the learning rate's decay.
        t0 (float): the step at which averaging starts.
        weight_decay (float): L2 penalty.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0])], [np.array([0.5])], [{}]
        >>> asgd(p, g, s, lr=0.1, lambd=0.0, alpha=0.75, t0=1e6, weight_decay=0, maximize=False)
        >>> np.round(p[0], 4)
        array([0.95])
    """
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["eta"] = np.asarray(lr, np.float32)
            state["mu"] = np.ones((), np.float32)
            state["ax"] = np.zeros_like(p)
        if maximize:
            g = -g
        step_t = state["step"]
        step_t += 1
        if weight_decay != 0:
            g = g + weight_decay * p
        eta = float(state["eta"])
        p *= 1 - lambd * eta
        p -= eta * g
        ax, mu = state["ax"], float(state["mu"])
        if mu != 1:
            ax += (p - ax) * mu
        else:
            ax[...] = p
        step = float(step_t)
        state["eta"][...] = lr / ((1 + lambd * lr * step) ** alpha)
        state["mu"][...] = 1 / max(1, step - t0)


class ASGD(Optimizer):
    r"""Averaged SGD: SGD with a decaying step size, keeping the running average of the
    parameters (``state["ax"]``) from step ``t0`` on.

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-2).
        lambd (float): decay term (default 1e-4).
        alpha (float): power for the step size's update (default 0.75).
        t0 (float): the step at which averaging starts (default 1e6).
        weight_decay (float): L2 penalty (default 0).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.ASGD(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
    """

    _update = staticmethod(asgd)
    _load_defaults = {
        "foreach": None,
        "maximize": False,
        "differentiable": False,
        "capturable": False,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_options(lr, differentiable, weight_decay=weight_decay)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)
