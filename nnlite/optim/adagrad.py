"""Adagrad (Duchi et al., 2011) with PyTorch's update rule: ``adagrad`` is the update,
``Adagrad`` the optimizer around it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .optimizer import ArrayState, Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT


__all__ = ["Adagrad", "adagrad"]


def adagrad(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    lr_decay: float,
    weight_decay: float,
    initial_accumulator_value: float,
    eps: float,
    maximize: bool,
) -> None:
    """One Adagrad step on numpy arrays, in place. ``states[i]`` holds ``step`` and ``sum``
    (the accumulated g²).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        lr_decay (float): the learning rate's decay per step.
        weight_decay (float): L2 penalty.
        initial_accumulator_value (float): the starting sum of squares.
        eps (float): added to the denominator.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1., 2.])], [np.array([0.5, -1.])], [{}]
        >>> adagrad(p, g, s, lr=0.1, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
        ...         eps=1e-10, maximize=False)
        >>> p[0]
        array([0.9, 2.1])
    """
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:  # a parameter added after construction
            _init_state(state, p, initial_accumulator_value)
        step = state["step"]
        step += 1
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + weight_decay * p
        clr = lr / (1 + (float(step) - 1) * lr_decay)
        total = state["sum"]
        total += g * g
        p -= clr * (g / (np.sqrt(total) + eps))


def _init_state(state: Any, p: Any, initial_accumulator_value: float) -> None:
    state["step"] = np.zeros((), np.float32)
    state["sum"] = np.full_like(p, initial_accumulator_value)


class Adagrad(Optimizer):
    r"""Adagrad: a per-coordinate learning rate that shrinks with the sum of past squared
    gradients::

        g = -g                                  if maximize
        g = g + weight_decay * p                if weight_decay != 0
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g
        p = p - clr * g / (sqrt(s) + eps)

    State per parameter (made for every parameter at construction, as PyTorch does): ``step``
    (t) and ``sum`` (s, starting at ``initial_accumulator_value``).

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-2).
        lr_decay (float): learning-rate decay (default 0).
        weight_decay (float): L2 penalty (default 0).
        initial_accumulator_value (float): start of the sums (default 0).
        eps (float): added to the denominator (default 1e-10).
        maximize (bool): maximize the objective instead of minimizing it.
        foreach, fused: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(4, 2)
        >>> x, y = nl.randn(8, 4), nl.randn(8, 2)
        >>> opt = nl.optim.Adagrad(model.parameters(), lr=0.01)
        >>> opt.zero_grad()
        >>> F.mse_loss(model(x), y).backward()
        >>> opt.step()
    """

    _update = staticmethod(adagrad)
    _load_defaults = {"foreach": None, "maximize": False, "differentiable": False, "fused": None}

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        check_options(
            lr,
            differentiable,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                _init_state(ArrayState(self.state, p), p._data, initial_accumulator_value)
