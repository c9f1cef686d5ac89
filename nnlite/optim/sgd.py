"""Stochastic gradient descent, optionally with momentum, dampening, Nesterov momentum and
weight decay; PyTorch's update rule."""
import numpy as np

from ..autograd.creation import from_numpy
from ..autograd.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["SGD"]

_mul, _add, _sub, _neg = np.multiply, np.add, np.subtract, np.negative


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

    Example:
        >>> opt = nl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
        >>> opt.zero_grad(); loss_fn(model(x), y).backward(); opt.step()
    """

    _load_defaults = {"nesterov": False, "maximize": False, "foreach": None, "differentiable": False,
                      "fused": False}

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if differentiable:
            raise ValueError("nnlite optimizers do not support differentiable=True")
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

    def step(self, closure=None):
        """Perform one optimization step; returns the closure's loss if a closure is given."""
        loss = self._eval_closure(closure) if closure is not None else None
        state = self.state
        temp = self._temp
        for group in self.param_groups:
            lr = group["lr"]
            if isinstance(lr, Tensor):
                lr = lr.item()
            momentum = group["momentum"]
            dampening = group["dampening"]
            weight_decay = group["weight_decay"]
            nesterov = group["nesterov"]
            maximize = group["maximize"]
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                g = grad._data
                d = p._data
                # g is the effective gradient; it may only be written once it is a scratch array.
                if weight_decay != 0:
                    t = temp(d.shape, d.dtype, 1)
                    _mul(d, weight_decay, out=t)
                    if maximize:
                        _sub(t, g, out=t)
                    else:
                        _add(g, t, out=t)
                    g = t
                elif maximize:
                    t = temp(d.shape, d.dtype, 1)
                    _neg(g, out=t)
                    g = t

                if momentum != 0:
                    pstate = state[p]
                    buf_t = pstate.get("momentum_buffer")
                    if buf_t is None:
                        buf = g.copy()
                        pstate["momentum_buffer"] = from_numpy(buf)
                    else:
                        buf = buf_t._data
                        _mul(buf, momentum, out=buf)
                        if dampening == 0:
                            _add(buf, g, out=buf)
                        else:
                            t0 = temp(d.shape, d.dtype, 0)
                            _mul(g, 1 - dampening, out=t0)
                            _add(buf, t0, out=buf)
                    if nesterov:
                        t = temp(d.shape, d.dtype, 1)
                        t0 = temp(d.shape, d.dtype, 0)
                        _mul(buf, momentum, out=t0)
                        _add(g, t0, out=t)
                        g = t
                    else:
                        g = buf

                t0 = temp(d.shape, d.dtype, 0)
                _mul(g, lr, out=t0)
                _sub(d, t0, out=d)
                p._bump_version()
        return loss
