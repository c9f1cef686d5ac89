"""Adam and AdamW with PyTorch's update rule (bias-corrected moments, optional AMSGrad)."""
import numpy as np

from ..autograd.creation import from_numpy
from ..autograd.tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Adam", "AdamW"]

_mul, _add, _sub, _div = np.multiply, np.add, np.subtract, np.divide
_neg, _sqrt, _maximum = np.negative, np.sqrt, np.maximum


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
    """

    _load_defaults = {"amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
                      "differentiable": False, "decoupled_weight_decay": False, "fused": None}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (isinstance(betas[0], float) and isinstance(betas[1], float)):
            raise ValueError("betas must be either both floats or both Tensors")
        if differentiable:
            raise ValueError("nnlite optimizers do not support differentiable=True")
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

    def _after_load(self):
        super()._after_load()
        for group in self.param_groups:
            for p in group["params"]:
                pstate = self.state.get(p)
                if pstate and not isinstance(pstate.get("step"), Tensor):
                    pstate["step"] = from_numpy(np.array(float(pstate["step"]), np.float32))

    def step(self, closure=None):
        """Perform one optimization step; returns the closure's loss if a closure is given."""
        loss = self._eval_closure(closure) if closure is not None else None
        state = self.state
        temp = self._temp
        for group in self.param_groups:
            lr = group["lr"]
            if isinstance(lr, Tensor):
                lr = lr.item()
            beta1, beta2 = group["betas"]
            eps = group["eps"]
            weight_decay = group["weight_decay"]
            amsgrad = group["amsgrad"]
            maximize = group["maximize"]
            decoupled = group["decoupled_weight_decay"]
            w1 = 1 - beta1
            w2 = 1 - beta2
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                g = grad._data
                d = p._data
                shape, dtype = d.shape, d.dtype
                pstate = state[p]
                if len(pstate) == 0:
                    pstate["step"] = from_numpy(np.zeros((), np.float32))
                    pstate["exp_avg"] = from_numpy(np.zeros(shape, dtype))
                    pstate["exp_avg_sq"] = from_numpy(np.zeros(shape, dtype))
                    if amsgrad:
                        pstate["max_exp_avg_sq"] = from_numpy(np.zeros(shape, dtype))
                step_arr = pstate["step"]._data
                step_arr += 1
                step = float(step_arr)

                if maximize:
                    t = temp(shape, dtype, 1)
                    _neg(g, out=t)
                    g = t
                if weight_decay != 0:
                    if decoupled:
                        _mul(d, 1 - lr * weight_decay, out=d)
                    else:
                        t = temp(shape, dtype, 1)
                        t0 = temp(shape, dtype, 0)
                        _mul(d, weight_decay, out=t0)
                        _add(g, t0, out=t)
                        g = t

                m = pstate["exp_avg"]._data
                v = pstate["exp_avg_sq"]._data
                t0 = temp(shape, dtype, 0)
                # m.lerp_(g, 1 - beta1), in the form PyTorch picks for the weight
                _sub(g, m, out=t0)
                if w1 < 0.5:
                    _mul(t0, w1, out=t0)
                    _add(m, t0, out=m)
                else:
                    # 1 - weight, with the weight rounded to the computation precision first
                    w1_rest = 1.0 - (w1 if dtype == np.float64 else float(np.float32(w1)))
                    _mul(t0, w1_rest, out=t0)
                    _sub(g, t0, out=m)
                _mul(v, beta2, out=v)
                _mul(g, w2, out=t0)
                _mul(t0, g, out=t0)
                _add(v, t0, out=v)

                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5

                if amsgrad:
                    vmax = pstate["max_exp_avg_sq"]._data
                    _maximum(vmax, v, out=vmax)
                    v = vmax
                denom = temp(shape, dtype, 2)
                _sqrt(v, out=denom)
                _div(denom, bias_correction2_sqrt, out=denom)
                _add(denom, eps, out=denom)
                _mul(m, -step_size, out=t0)
                _div(t0, denom, out=t0)
                _add(d, t0, out=d)
                p._bump_version()
        return loss


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter): the weights are multiplied by
    ``1 - lr * weight_decay`` at each step instead of adding ``weight_decay * p`` to the gradient.
    Same arguments as :class:`Adam`, with ``weight_decay`` defaulting to 1e-2."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def _after_load(self):
        super()._after_load()
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True
