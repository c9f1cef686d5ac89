"""Rprop (Riedmiller and Braun, 1993: resilient backpropagation) with PyTorch's update rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["Rprop", "rprop"]


def rprop(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    etas: tuple[float, float],
    step_sizes: tuple[float, float],
    maximize: bool,
) -> None:
    """One Rprop step on numpy arrays, in place (``step``, ``prev``, ``step_size`` in each state).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the initial step size.
        etas (tuple): the step size's factors after a sign change and after none.
        step_sizes (tuple): the smallest and largest step sizes.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0])], [np.array([0.5])], [{}]
        >>> rprop(p, g, s, lr=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50), maximize=False)
        >>> p[0]
        array([0.9])
    """
    eta_minus, eta_plus = etas
    smallest, largest = step_sizes
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["prev"] = np.zeros_like(p)
            state["step_size"] = np.full_like(g, lr)
        if maximize:
            g = -g
        state["step"] += 1
        prev, step_size = state["prev"], state["step_size"]
        sign = np.sign(g * prev)
        factor = np.where(sign > 0, eta_plus, np.where(sign < 0, eta_minus, 1.0))
        step_size *= factor.astype(step_size.dtype)
        np.clip(step_size, smallest, largest, out=step_size)
        g = np.where(sign < 0, 0, g).astype(p.dtype)
        p -= np.sign(g) * step_size
        prev[...] = g


class Rprop(Optimizer):
    r"""Rprop: each weight moves by its own step size in the direction of its gradient's sign;
    the step grows (``etas[1]``) while the sign holds and shrinks (``etas[0]``) when it flips.

    Args:
        params: tensors or param groups to optimize.
        lr (float): the initial step size (default 1e-2).
        etas (tuple): the (decrease, increase) factors (default (0.5, 1.2)).
        step_sizes (tuple): the smallest and largest step sizes (default (1e-6, 50)).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, capturable: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.Rprop(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
    """

    _update = staticmethod(rprop)
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
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_options(lr, differentiable)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)
