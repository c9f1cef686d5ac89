"""Adafactor (Shazeer and Stern, 2018: factored second moments) with PyTorch's update rule.

A matrix's second moment is kept as a row factor and a column factor (``row_var`` and
``col_var``, each the running mean of the squared gradient over one of the last two dimensions),
so the state of an ``m x n`` weight costs ``m + n`` numbers instead of ``m * n``; vectors keep a
full ``variance``. As in PyTorch, ``lr`` caps the relative step size and scales the decoupled
weight decay, and ``eps[0]`` (machine epsilon of the parameter's dtype when None) stabilises the
variance estimate and the update.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..autograd.tensor import Tensor
from .adam import _lerp_
from .optimizer import Optimizer

if TYPE_CHECKING:
    from .optimizer import ParamsT

__all__ = ["Adafactor", "adafactor"]


def adafactor(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    beta2_decay: float,
    eps: tuple[float | None, float],
    d: float,
    weight_decay: float,
    maximize: bool,
) -> None:
    """One Adafactor step on numpy arrays, in place (``step`` and ``row_var``/``col_var`` for
    tensors of two or more dimensions, ``variance`` otherwise, in each state).

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the cap of the relative step size, and the weight decay's factor.
        beta2_decay (float): the exponent of the second moment's averaging weight ``t**beta2_decay``.
        eps (tuple): ``(eps1, eps2)``: the floor of the variance estimate (None: the dtype's
            machine epsilon) and the floor of the parameter scale.
        d (float): the clipping threshold of the update's RMS.
        weight_decay (float): decoupled weight decay.
        maximize (bool): ascend instead of descend.

    Examples:
        >>> p, g, s = [np.array([1.0, -1.0])], [np.array([0.5, 0.5])], [{}]
        >>> adafactor(p, g, s, lr=0.01, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
        ...           weight_decay=0.0, maximize=False)
        >>> np.round(p[0], 4)
        array([ 0.99, -1.01])
    """
    eps1, eps2 = eps
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            if g.ndim > 1:
                state["row_var"] = np.zeros(g.shape[:-1] + (1,), g.dtype)
                state["col_var"] = np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], g.dtype)
            else:
                state["variance"] = np.zeros_like(g)
        if maximize:
            g = -g
        if eps1 is None:  # as PyTorch: chosen by the first parameter's dtype
            eps1 = float(np.finfo(p.dtype).eps)
        step = state["step"]
        step += 1
        t = float(step)
        one_minus_beta2 = t**beta2_decay
        rho = min(lr, 1 / t**0.5)
        alpha = max(eps2, float(np.linalg.norm(p.ravel())) / p.size**0.5) * rho
        if weight_decay != 0:
            p *= 1 - lr * weight_decay
        if g.ndim > 1:
            row_var, col_var = state["row_var"], state["col_var"]
            _lerp_(row_var, np.mean(g * g, axis=-1, keepdims=True), one_minus_beta2)
            _lerp_(col_var, np.mean(g * g, axis=-2, keepdims=True), one_minus_beta2)
            row_mean = np.maximum(np.mean(row_var, axis=-2, keepdims=True), eps1)
            var_estimate = (row_var @ col_var) / row_mean
        else:
            variance = state["variance"]
            _lerp_(variance, g * g, one_minus_beta2)
            var_estimate = variance.copy()
        # eps1 squared: the square root below brings it back to eps1's magnitude
        update = g / np.sqrt(np.maximum(var_estimate, eps1 * eps1))
        rms = float(np.linalg.norm(update.ravel())) / (update.size**0.5 * d)
        p -= (alpha / max(1.0, rms)) * update.astype(p.dtype, copy=False)


class Adafactor(Optimizer):
    r"""Adafactor: adaptive steps with a factored second moment (a row and a column factor per
    matrix), scaled by the parameter's RMS and clipped by the update's RMS::

        beta2_t = 1 - t^beta2_decay;  rho_t = min(lr, 1/sqrt(t))
        alpha_t = max(eps2, RMS(p)) * rho_t
        p = p - lr * weight_decay * p
        R = beta2_t R + (1 - beta2_t) mean_cols(g^2);  C = beta2_t C + (1 - beta2_t) mean_rows(g^2)
        V = R C / max(mean(R), eps1)        (vectors: V = beta2_t V + (1 - beta2_t) g^2)
        U = g / max(sqrt(V), eps1);  p = p - alpha_t * U / max(1, RMS(U) / d)

    Args:
        params: tensors or param groups to optimize.
        lr (float or Tensor): the cap of the relative step size and the weight decay's factor
            (default 1e-2).
        beta2_decay (float): the decay exponent of the second moment's weight (default -0.8).
        eps (tuple): ``(eps1, eps2)`` (default ``(None, 1e-3)``; None is the dtype's epsilon).
        d (float): the clipping threshold (default 1.0).
        weight_decay (float): decoupled weight decay (default 0).
        foreach: accepted for compatibility with PyTorch; no effect.
        maximize (bool): maximize the objective instead of minimizing it.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.Adafactor(model.parameters())
        >>> model(nl.ones(1, 2)).sum().backward()
        >>> opt.step()
        >>> sorted(opt.state[model.weight])
        ['col_var', 'row_var', 'step']
    """

    _update = staticmethod(adafactor)
    _load_defaults = {"foreach": None}
    # a matrix's row and column factors do not have its shape
    _state_shaped_like_params = False

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        beta2_decay: float = -0.8,
        eps: tuple[float | None, float] = (None, 1e-3),
        d: float = 1.0,
        weight_decay: float = 0.0,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {
            "lr": lr,
            "beta2_decay": beta2_decay,
            "eps": eps,
            "d": d,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
        }
        super().__init__(params, defaults)
