"""Loss functions, each one op. All work in log space (log-sum-exp, softplus) for stability.

``reduction`` is ``"mean"``, ``"sum"`` or ``"none"`` everywhere. Backward formulas are Tensor
expressions of the saved inputs; constants built from targets and weights are wrapped with
``_make``, and quantities that depend on the input (softmax, sigmoid) are recomputed through their
own ops when the backward pass is itself recorded, so second derivatives are exact.
"""
import numpy as np

from ...autograd import grad_mode
from ...autograd.function import Function
from ...autograd.ops import sum_to
from ...autograd.tensor import _make
from .activation import LogSoftmax, Softmax, _log_softmax

_grad_state = grad_mode._state


def _reduce(loss, reduction):
    if reduction == "mean":
        return np.mean(loss)
    if reduction == "sum":
        return np.sum(loss)
    return loss


def _scaled(grad, reduction, count):
    """The output gradient as seen by each element: divided by the count for "mean"."""
    if reduction == "mean":
        return grad * (1.0 / count) if count else grad * float("nan")
    return grad


class MseLoss(Function):
    _array_forward = True
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, target, reduction):
        diff = x - target
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        if not _grad_state[0]:
            diff = x._data - target._data
            scale = grad._data * 2.0
            if ctx._params["reduction"] == "mean":
                scale = scale / diff.size
            g = diff * scale
            edges = ctx.next_functions
            return (_make(_sum_to(g, x._data.shape)) if edges[0][0] is not None else None,
                    _make(_sum_to(-g, target._data.shape)) if edges[1][0] is not None else None)
        diff = x - target
        g = diff * _scaled(grad * 2.0, ctx._params["reduction"], diff.numel())
        edges = ctx.next_functions
        gx = sum_to(g, x.shape) if edges[0][0] is not None else None
        gt = sum_to(-g, target.shape) if edges[1][0] is not None else None
        return gx, gt


class L1Loss(Function):
    _array_forward = True
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, target, reduction):
        return _reduce(np.abs(x - target), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        sign = (x - target).sign()
        g = sign * _scaled(grad, ctx._params["reduction"], sign.numel())
        edges = ctx.next_functions
        gx = sum_to(g, x.shape) if edges[0][0] is not None else None
        gt = sum_to(-g, target.shape) if edges[1][0] is not None else None
        return gx, gt


def _sum_to(a, shape):
    """Sum a broadcast array down to ``shape``."""
    if a.shape == shape:
        return a
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, n in enumerate(shape) if n == 1 and a.shape[i + lead] != 1)
    return a.sum(axis=axes, keepdims=True).reshape(shape) if axes else a.reshape(shape)


def _class_targets(target, ignore_index, n_classes):
    """Targets with ignored entries replaced by class 0, and the mask of entries that count."""
    keep = target != ignore_index
    if keep.all():
        if target.size and (target.min() < 0 or target.max() >= n_classes):
            bad = (target < 0) | (target >= n_classes)
            raise IndexError(f"Target {int(target[bad].reshape(-1)[0])} is out of bounds.")
        return target, keep
    safe = np.where(keep, target, 0)
    bad = keep & ((target < 0) | (target >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(target[bad][0])} is out of bounds.")
    return safe, keep


def _pick(a, index):
    """``a[n, index[n, ...], ...]``: the entries of the target classes along axis 1."""
    if a.ndim == 2:
        return a[np.arange(a.shape[0]), index]
    return np.take_along_axis(a, index[:, None], axis=1)[:, 0]


def _add_at_targets(a, index, values):
    """``a[n, index[n, ...], ...] += values[n, ...]`` in place (one target per entry)."""
    if a.ndim == 2:
        a[np.arange(a.shape[0]), index] += values
    else:
        np.put_along_axis(a, index[:, None], np.take_along_axis(a, index[:, None], axis=1) + values[:, None],
                          axis=1)


def _class_weights(weight, ndim, dtype):
    """A per-class weight vector shaped to broadcast along axis 1 of an (N, C, ...) array."""
    return weight.astype(dtype, copy=False).reshape((1, -1) + (1,) * (ndim - 2))


def _target_weights(weight, safe, keep, dtype):
    """The weight of each entry's target class (zero where the target is ignored)."""
    return keep.astype(dtype) if weight is None else weight.astype(dtype)[safe] * keep


def _reduce_weighted(ctx, losses, w, reduction, dtype):
    """Reduce class-weighted losses; "mean" divides by the summed weights, kept as ``ctx.denom``."""
    if reduction == "mean":
        ctx.denom = w.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(losses.sum() / ctx.denom, dtype=dtype)
    return _reduce(losses, reduction)


class NllLoss(Function):
    """Negative log-likelihood of class ``target`` under log-probabilities ``x`` (N, C, ...)."""

    _array_forward = True
    node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, reduction):
        safe, keep = _class_targets(target, ignore_index, x.shape[1])
        w = _target_weights(weight, safe, keep, x.dtype)
        losses = -_pick(x, safe) * w
        ctx.safe, ctx.w, ctx.x_shape = safe, w, x.shape
        return _reduce_weighted(ctx, losses, w, reduction, x.dtype)

    @staticmethod
    def backward(ctx, grad):
        w = ctx.w
        reduction = ctx._params["reduction"]
        if reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                w = w / ctx.denom
        elif reduction == "none":
            grad = grad.unsqueeze(1)
        coef = np.zeros(ctx.x_shape, dtype=w.dtype)
        _add_at_targets(coef, ctx.safe, -w)
        return grad * _make(coef), None, None


class CrossEntropy(Function):
    """``nll_loss(log_softmax(x, 1), target)`` fused, with label smoothing; class-index targets.

    With smoothing ``s`` over ``C`` classes the loss of an entry is
    ``(1 - s) * w[t] * -logp[t] + s / C * sum_c w[c] * -logp[c]``; the "mean" reduction divides by
    the summed weights of the counted targets, as PyTorch does.
    """

    _array_forward = True
    node_name = "NllLossBackward0"
    saved_inputs = (0,)

    @staticmethod
    def forward(ctx, x, target, weight, ignore_index, reduction, label_smoothing):
        n_classes = x.shape[1]
        safe, keep = _class_targets(target, ignore_index, n_classes)
        logp = _log_softmax(x, 1)
        w_t = _target_weights(weight, safe, keep, x.dtype)
        losses = -_pick(logp, safe) * w_t
        if label_smoothing:
            if weight is None:
                smooth = -logp.sum(axis=1) * keep
            else:
                smooth = -(logp * _class_weights(weight, x.ndim, x.dtype)).sum(axis=1) * keep
            losses = losses * (1 - label_smoothing) + smooth * (label_smoothing / n_classes)
        ctx.logp, ctx.safe, ctx.keep, ctx.w_t = logp, safe, keep, w_t
        return _reduce_weighted(ctx, losses, w_t, reduction, x.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        p = ctx._params
        s = p["label_smoothing"]
        logp, safe = ctx.logp, ctx.safe
        if not s and not _grad_state[0]:
            # the common case on arrays: softmax * w_t - w_t at the target, scaled
            r = ctx.w_t
            if p["reduction"] == "mean":
                with np.errstate(invalid="ignore", divide="ignore"):
                    r = r / ctx.denom
            k = np.exp(logp)
            k *= np.expand_dims(r, 1)
            _add_at_targets(k, safe, -r)
            g = grad._data
            k *= np.expand_dims(g, 1) if p["reduction"] == "none" else g
            return _make(k), None, None
        # d(loss)/d(logp) = -coef; then d/dx = coef.sum(1) * softmax - coef
        w_t = ctx.w_t * (1 - s) if s else ctx.w_t
        coef = np.zeros_like(logp)
        _add_at_targets(coef, safe, w_t)
        if s:
            keep = np.expand_dims(ctx.keep, 1).astype(logp.dtype)
            per_class = 1.0 if p["weight"] is None else _class_weights(p["weight"], logp.ndim, logp.dtype)
            coef += keep * per_class * (s / logp.shape[1])
        if p["reduction"] == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):
                coef /= ctx.denom
        elif p["reduction"] == "none":
            grad = grad.unsqueeze(1)
        soft = Softmax.apply(x, dim=1) if _grad_state[0] else _make(np.exp(logp))
        return (soft * _make(coef.sum(axis=1, keepdims=True)) - _make(coef)) * grad, None, None


class CrossEntropyProb(Function):
    """Cross entropy against class probabilities ``target`` (same shape as ``x``), with smoothing.

    The "mean" reduction divides by the number of entries (N times the spatial size).
    """

    _array_forward = True
    node_name = "CrossEntropyBackward0"
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, target, weight, reduction, label_smoothing):
        logp = _log_softmax(x, 1)
        t = target * (1 - label_smoothing) + label_smoothing / x.shape[1] if label_smoothing else target
        if weight is not None:
            t = t * _class_weights(weight, x.ndim, x.dtype)
        ctx.logp = logp
        return _reduce(-(logp * t).sum(axis=1), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, target = ctx.saved_tensors
        p = ctx._params
        s = p["label_smoothing"]
        n_classes = x.shape[1]
        count = x.numel() // n_classes if x.ndim > 1 else 1
        g = _scaled(grad, p["reduction"], count)
        if p["reduction"] == "none":
            g = g.unsqueeze(1)
        w = None if p["weight"] is None else _make(_class_weights(p["weight"], x.ndim, x._data.dtype))
        edges = ctx.next_functions
        gx = gt = None
        if edges[0][0] is not None:
            t = target * (1 - s) + s / n_classes if s else target
            if w is not None:
                t = t * w
            soft = Softmax.apply(x, dim=1) if _grad_state[0] else _make(np.exp(ctx.logp))
            gx = (soft * t.sum(1, keepdim=True) - t) * g
        if edges[1][0] is not None:
            logp = LogSoftmax.apply(x, dim=1) if _grad_state[0] else _make(ctx.logp)
            gt = logp * (-(1 - s)) * g if w is None else logp * w * (-(1 - s)) * g
        return gx, gt


class BinaryCrossEntropyWithLogits(Function):
    """``-[p * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))]``, computed with softplus.

    ``p`` is ``pos_weight`` (broadcast along the last dimension), 1 when None; ``weight``
    rescales each element.
    """

    _array_forward = True
    saved_inputs = (0, 1)

    @staticmethod
    def forward(ctx, x, target, weight, pos_weight, reduction):
        softplus_neg = np.logaddexp(0, -x)  # log(1 + exp(-x)) = -log(sigmoid(x))
        if pos_weight is None:
            loss = (1 - target) * x + softplus_neg
        else:
            loss = (1 - target) * x + (1 + (pos_weight - 1) * target) * softplus_neg
        if weight is not None:
            loss = loss * weight
        return _reduce(loss.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        p = ctx._params
        pw = None if p["pos_weight"] is None else _make(np.asarray(p["pos_weight"], x._data.dtype))
        w = None if p["weight"] is None else _make(np.asarray(p["weight"], x._data.dtype))
        g = _scaled(grad, p["reduction"], x.numel())
        edges = ctx.next_functions
        gx = gy = None
        if edges[0][0] is not None:
            s = x.sigmoid()
            dx = s - y if pw is None else ((pw - 1) * y + 1) * (s - 1) + (1 - y)
            if w is not None:
                dx = dx * w
            gx = dx * g
        if edges[1][0] is not None:
            dy = -x
            if pw is not None:
                softplus_neg = (-x).relu() + ((-x.abs()).exp() + 1).log()
                dy = dy + (pw - 1) * softplus_neg
            if w is not None:
                dy = dy * w
            gy = dy * g
        return gx, gy
