"""Adam and AdamW with PyTorch's update rule (bias-corrected moments, optional AMSGrad)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ._fused import ADAM_MIN_ELEMENTS, adam_, fusable
from .optimizer import Optimizer, check_options

if TYPE_CHECKING:
    from .optimizer import ParamsT


__all__ = ["Adam", "AdamW", "adam"]


def adam(
    params: list[Any],
    grads: list[Any],
    states: list[Any],
    *,
    lr: float,
    betas: tuple[float, float],
    eps: float,
    weight_decay: float,
    amsgrad: bool,
    maximize: bool,
    decoupled_weight_decay: bool,
) -> None:
    """One Adam step on numpy arrays, in place. ``states[i]`` holds ``step``, ``exp_avg`` (m),
    ``exp_avg_sq`` (v) and, with ``amsgrad``, ``max_exp_avg_sq``, created on the first step.

    Args:
        params (list of numpy.ndarray): the parameters, updated in place.
        grads (list of numpy.ndarray): their gradients.
        states (list of dict): one state dict per parameter, filled on the first step.
        lr (float): the learning rate.
        betas (tuple of two floats): the averages' decay rates.
        eps (float): added to the denominator.
        weight_decay (float): L2 penalty (or decoupled decay).
        amsgrad (bool): use the maximum of the second moments.
        maximize (bool): ascend instead of descend.
        decoupled_weight_decay (bool): decay the weights directly (AdamW).

    Examples:
        >>> p, g, s = [np.array([1., 2.])], [np.array([0.5, -1.])], [{}]
        >>> adam(p, g, s, lr=0.1, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0, amsgrad=False,
        ...      maximize=False, decoupled_weight_decay=False)
        >>> p[0], sorted(s[0])
        (array([0.9, 2.1]), ['exp_avg', 'exp_avg_sq', 'step'])
    """
    beta1, beta2 = betas
    for p, g, state in zip(params, grads, states):
        if len(state) == 0:
            state["step"] = np.zeros((), np.float32)
            state["exp_avg"] = np.zeros_like(p)
            state["exp_avg_sq"] = np.zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = np.zeros_like(p)
        step = state["step"]
        step += 1
        t = float(step)
        moments = state["exp_avg"], state["exp_avg_sq"], state.get("max_exp_avg_sq")
        if p.size >= ADAM_MIN_ELEMENTS and fusable(p, g, *(a for a in moments if a is not None)):
            adam_(
                p,
                g,
                *moments,
                step=t,
                lr=lr,
                betas=betas,
                eps=eps,
                weight_decay=weight_decay,
                amsgrad=amsgrad,
                maximize=maximize,
                decoupled_weight_decay=decoupled_weight_decay,
            )
            continue

        if maximize:
            g = -g
        if weight_decay != 0:
            if decoupled_weight_decay:
                p *= 1 - lr * weight_decay
            else:
                g = g + weight_decay * p

        m, v = state["exp_avg"], state["exp_avg_sq"]
        _lerp_(m, g, 1 - beta1)
        v *= beta2
        v += (1 - beta2) * g * g
        if amsgrad:
            v = np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])

        step_size = lr / (1 - beta1**t)
        denom = np.sqrt(v) / (1 - beta2**t) ** 0.5 + eps
        p -= step_size * m / denom


def _lerp_(start: Any, end: Any, weight: Any) -> None:
    """``start += weight * (end - start)`` in place, in the form PyTorch's ``lerp_`` picks:
    from the far end when ``weight >= 0.5``, with ``1 - weight`` taken in the arrays' precision."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        weight = float(np.asarray(weight, start.dtype))
        start[...] = end - (1 - weight) * (end - start)


class Adam(Optimizer):
    r"""Adam (Kingma and Ba), with PyTorch's options.

    For each parameter with a gradient :math:`g` (parameters whose ``.grad`` is ``None`` are
    skipped and get no state), with :math:`t` the step count::

        g = -g                                  if maximize
        p = p * (1 - lr * weight_decay)         if decoupled_weight_decay (AdamW)
        g = g + weight_decay * p                otherwise, if weight_decay != 0
        m = m + (1 - beta1) * (g - m)
        v = beta2 * v + (1 - beta2) * g * g
        v_max = max(v_max, v)                   if amsgrad (then used in place of v below)
        p = p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    State per parameter: ``step`` (a float32 scalar tensor), ``exp_avg`` (m), ``exp_avg_sq`` (v)
    and, with ``amsgrad``, ``max_exp_avg_sq``.

    Args:
        params: tensors or param groups to optimize.
        lr (float): learning rate (default 1e-3).
        betas (tuple[float, float]): decay rates of the moment estimates (default (0.9, 0.999)).
        eps (float): added to the denominator (default 1e-8).
        weight_decay (float): L2 penalty (default 0).
        amsgrad (bool): use the AMSGrad variant.
        maximize (bool): maximize the objective instead of minimizing it.
        decoupled_weight_decay (bool): decay the weights directly, as AdamW does.
        foreach, capturable, fused: accepted for compatibility with PyTorch; no effect.
        differentiable: must be ``False``.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.Adam(model.parameters(), lr=1e-3)
        >>> F.mse_loss(model(nl.randn(4, 2)), nl.randn(4, 1)).backward()
        >>> opt.step()
        >>> sorted(opt.state[model.weight])
        ['exp_avg', 'exp_avg_sq', 'step']
    """

    _update = staticmethod(adam)
    _load_defaults = {
        "amsgrad": False,
        "maximize": False,
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "decoupled_weight_decay": False,
        "fused": None,
    }

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
        check_options(lr, differentiable, eps=eps, weight_decay=weight_decay)
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        defaults = {
            "lr": lr,
            "betas": tuple(betas),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter): the weights are multiplied by
    ``1 - lr * weight_decay`` at each step instead of adding ``weight_decay * p`` to the gradient.
    Same arguments as :class:`Adam`, with ``weight_decay`` defaulting to 1e-2.

    Args:
        params (iterable): parameters or param groups, as for :class:`Adam`.
        lr (float): the learning rate. Default: 1e-3.
        betas (tuple of two floats): the averages' decay rates. Default: (0.9, 0.999).
        eps (float): added to the denominator. Default: 1e-8.
        weight_decay (float): the decoupled decay. Default: 1e-2.
        amsgrad (bool): use the maximum of the second moments. Default: False.
        maximize (bool): ascend instead of descend. Default: False.
        foreach, capturable, differentiable, fused: accepted for compatibility.

    Examples:
        >>> model = nn.Linear(2, 1)
        >>> opt = nl.optim.AdamW(model.parameters(), lr=1e-3)
        >>> opt.param_groups[0]["weight_decay"]
        0.01
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def _after_load(self) -> None:
        super()._after_load()
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
