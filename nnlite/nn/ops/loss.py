"""Loss functions, each one op, and their entry functions (argument checks with PyTorch's messages).

All work in log space (log-sum-exp, softplus) for stability. ``reduction`` is ``"mean"``,
``"sum"`` or ``"none"`` everywhere. Constants built from targets and weights enter the formulas
through ``vjp.const``; quantities that depend on the input (softmax, log-probabilities) through
``vjp.value``, so that a recorded backward differentiates them and second derivatives are exact.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.fp_errors import silenced
from ...autograd.grad_mode import is_grad_enabled
from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.ops.activation import LogSoftmax, Relu, Sigmoid, Softmax, log_softmax_array
from ._messages import dims, type_name

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor

_Grads = tuple["Gradient | None", ...]


def _reduce(loss: Array, reduction: str) -> Array | np.generic:
    if reduction == "mean":
        mean: np.generic = loss.mean()
        return mean
    if reduction == "sum":
        total: np.generic = loss.sum()
        return total
    return loss


def _scaled(grad: Gradient, reduction: str, count: int) -> Gradient:
    """The output gradient as seen by each element: divided by the count for "mean"."""
    if reduction == "mean":
        return grad * (1.0 / count) if count else grad * float("nan")
    return grad


def _unsqueeze1(g: Gradient) -> Gradient:
    """A per-entry gradient (reduction "none") shaped to broadcast along the class axis."""
    return g.reshape(g.shape[:1] + (1,) + g.shape[1:])


class MseLoss(Op):
    saved_inputs = (0, 1)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        diff = x - target
        return _reduce(diff * diff, self.reduction)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        x, target = self.inputs()
        diff = x - target
        g = diff * _scaled(grad * 2.0, self.reduction, math.prod(diff.shape))
        return (
            vjp.sum_to(g, x.shape) if needs[0] else None,
            vjp.sum_to(-g, target.shape) if needs[1] else None,
        )


class L1Loss(Op):
    saved_inputs = (0, 1)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        return _reduce(np.abs(x - target), self.reduction)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        x, target = self.inputs()
        sign = vjp.sign(x - target)
        g = sign * _scaled(grad, self.reduction, math.prod(sign.shape))
        return (
            vjp.sum_to(g, x.shape) if needs[0] else None,
            vjp.sum_to(-g, target.shape) if needs[1] else None,
        )


def _class_targets(target: Array, ignore_index: int, n_classes: int) -> tuple[Array, Array | None]:
    """Targets with ignored entries replaced by class 0, and the mask of entries that count
    (``None`` when every entry counts: the common case, told apart by two reductions)."""
    if target.size:
        lo, hi = target.min(), target.max()
        if 0 <= lo and hi < n_classes and not lo <= ignore_index <= hi:
            return target, None
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


def _pick(a: Array, index: Array) -> Array:
    """``a[n, index[n, ...], ...]``: the entries of the target classes along axis 1."""
    picked: Array
    if a.ndim == 2:
        picked = a[np.arange(a.shape[0]), index]
    else:
        picked = np.take_along_axis(a, index[:, None], axis=1)[:, 0]
    return picked


def _add_at_targets(a: Array, index: Array, values: Array) -> None:
    """``a[n, index[n, ...], ...] += values[n, ...]`` in place (one target per entry)."""
    if a.ndim == 2:
        a[np.arange(a.shape[0]), index] += values
    else:
        np.put_along_axis(
            a,
            index[:, None],
            np.take_along_axis(a, index[:, None], axis=1) + values[:, None],
            axis=1,
        )


def _class_weights(weight: Array, ndim: int, dtype: np.dtype[Any]) -> Array:
    """A per-class weight vector shaped to broadcast along axis 1 of an (N, C, ...) array."""
    return weight.astype(dtype, copy=False).reshape((1, -1) + (1,) * (ndim - 2))


def _target_weights(
    weight: Array | None, safe: Array, keep: Array | None, dtype: np.dtype[Any]
) -> Array:
    """The weight of each entry's target class (zero where the target is ignored)."""
    if keep is None:
        return np.ones(safe.shape, dtype) if weight is None else weight.astype(dtype)[safe]
    return keep.astype(dtype) if weight is None else weight.astype(dtype)[safe] * keep


@silenced  # a zero divisor (every target ignored) gives nan quietly, as in PyTorch
def _divide(a: Any, b: Any) -> Any:
    return a / b


def _mean_share(values: Array, denom: Any, keep: Array | None) -> Array:
    """``values / denom`` for the "mean" reduction's backward. With every target ignored the
    divisor is 0: the ignored entries still get a zero gradient (not 0 / 0), as in PyTorch."""
    share = _divide(values, denom)
    if denom == 0 and keep is not None:
        share = np.where(keep if keep.ndim == share.ndim else np.expand_dims(keep, 1), share, 0)
    return share


def _reduce_weighted(
    op: NllLoss | CrossEntropy, losses: Array, w: Array, reduction: str, dtype: np.dtype[Any]
) -> Array | np.generic:
    """Reduce class-weighted losses; "mean" divides by the summed weights, kept as ``op.denom``."""
    if reduction == "mean":
        op.denom = w.sum()
        return np.asarray(_divide(losses.sum(), op.denom), dtype=dtype)
    return _reduce(losses, reduction)


class NllLoss(Op):
    """Negative log-likelihood of class ``target`` under log-probabilities ``x`` (N, C, ...)."""

    node_name = "NllLossBackward0"
    denom: np.generic  # the summed weights of the "mean" reduction (``_reduce_weighted``)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        safe, keep = _class_targets(target, self.ignore_index, x.shape[1])
        w = _target_weights(self.weight, safe, keep, x.dtype)
        losses = -_pick(x, safe) * w
        self.safe, self.keep, self.w, self.x_shape = safe, keep, w, x.shape
        return _reduce_weighted(self, losses, w, self.reduction, x.dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        w = self.w
        if self.reduction == "mean":
            w = _mean_share(w, self.denom, self.keep)
        elif self.reduction == "none":
            grad = _unsqueeze1(grad)
        coef = np.zeros(self.x_shape, dtype=w.dtype)
        _add_at_targets(coef, self.safe, -w)
        return grad * vjp.const(coef, grad), None


class CrossEntropy(Op):
    """``nll_loss(log_softmax(x, 1), target)`` fused, with label smoothing; class-index targets.

    With smoothing ``s`` over ``C`` classes the loss of an entry is
    ``(1 - s) * w[t] * -logp[t] + s / C * sum_c w[c] * -logp[c]``; the "mean" reduction divides by
    the summed weights of the counted targets, as PyTorch does.
    """

    node_name = "NllLossBackward0"
    saved_inputs = (0,)
    denom: np.generic  # the summed weights of the "mean" reduction (``_reduce_weighted``)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        s = self.label_smoothing
        n_classes = x.shape[1]
        safe, keep = _class_targets(target, self.ignore_index, n_classes)
        w_t = _target_weights(self.weight, safe, keep, x.dtype)
        if s:
            logp = log_softmax_array(x, 1)
            losses = -_pick(logp, safe) * w_t
            if self.weight is None:
                smooth = -logp.sum(axis=1)
            else:
                smooth = -(logp * _class_weights(self.weight, x.ndim, x.dtype)).sum(axis=1)
            if keep is not None:
                smooth = smooth * keep
            losses = losses * (1 - s) + smooth * (s / n_classes)
        else:
            # log p[t] = shifted[t] - log(sum(exp(shifted))); exp(shifted) and its sum are kept,
            # so that the first-order backward's softmax is one product
            shifted = x - x.max(axis=1, keepdims=True)
            picked = _pick(shifted, safe)
            self.exp_shifted = np.exp(shifted, out=shifted)
            self.sum_exp = shifted.sum(axis=1, keepdims=True)
            losses = (np.log(self.sum_exp[:, 0]) - picked) * w_t
            logp = None  # recomputed from x by the backward paths that need it
        self.logp, self.safe, self.keep, self.w_t = logp, safe, keep, w_t
        return _reduce_weighted(self, losses, w_t, self.reduction, x.dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        (x,) = self.inputs()
        s = self.label_smoothing
        logp = self.logp if self.logp is not None else log_softmax_array(vjp.data(x), 1)
        # d(loss)/d(logp) = -coef; then d/dx = coef.sum(1) * softmax - coef
        coef = np.zeros_like(logp)
        _add_at_targets(coef, self.safe, self.w_t * (1 - s) if s else self.w_t)
        if s:
            keep = 1.0 if self.keep is None else np.expand_dims(self.keep, 1).astype(logp.dtype)
            per_class = (
                1.0 if self.weight is None else _class_weights(self.weight, logp.ndim, logp.dtype)
            )
            coef += keep * per_class * (s / logp.shape[1])
        if self.reduction == "mean":
            coef = _mean_share(coef, self.denom, self.keep)
        elif self.reduction == "none":
            grad = _unsqueeze1(grad)
        soft = vjp.value(np.exp(logp), lambda: Softmax.apply(x, dim=1), grad)
        return (
            soft * vjp.const(coef.sum(axis=1, keepdims=True), grad) - vjp.const(coef, grad)
        ) * grad, None

    def backward_arrays(self, grad: Array, needs: Sequence[bool]) -> _Grads:
        """First order without smoothing: ``grad * w[t] / denom * (softmax - onehot(t))``, computed
        in two passes over the (N, C, ...) array instead of building the one-hot coefficients."""
        if self.label_smoothing:
            return self.backward(grad, needs)
        row = self.w_t
        if self.reduction == "mean":
            row = _mean_share(row, self.denom, self.keep)
        row = np.asarray(row * grad, dtype=self.exp_shifted.dtype)
        out = self.exp_shifted * (row[:, None] / self.sum_exp)
        _add_at_targets(out, self.safe, -row)
        return out, None


class CrossEntropyProb(Op):
    """Cross entropy against class probabilities ``target`` (same shape as ``x``), with smoothing.

    The "mean" reduction divides by the number of entries (N times the spatial size).
    """

    node_name = "CrossEntropyBackward0"
    saved_inputs = (0, 1)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        s = self.label_smoothing
        logp = log_softmax_array(x, 1)
        t = target * (1 - s) + s / x.shape[1] if s else target
        if self.weight is not None:
            t = t * _class_weights(self.weight, x.ndim, x.dtype)
        self.logp = logp
        return _reduce(-(logp * t).sum(axis=1), self.reduction)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        x, target = self.inputs()
        s = self.label_smoothing
        n_classes = x.shape[1]
        count = math.prod(x.shape) // n_classes if len(x.shape) > 1 else 1
        g = _scaled(grad, self.reduction, count)
        if self.reduction == "none":
            g = _unsqueeze1(g)
        w = (
            None
            if self.weight is None
            else vjp.const(_class_weights(self.weight, len(x.shape), self.logp.dtype), g)
        )
        gx = gt = None
        if needs[0]:
            t = target * (1 - s) + s / n_classes if s else target
            if w is not None:
                t = t * w
            soft = vjp.value(np.exp(self.logp), lambda: Softmax.apply(x, dim=1), g)
            gx = (soft * vjp.sum(t, 1, keepdims=True) - t) * g
        if needs[1]:
            logp = vjp.value(self.logp, lambda: LogSoftmax.apply(x, dim=1), g)
            gt = logp * (-(1 - s)) * g if w is None else logp * w * (-(1 - s)) * g
        return gx, gt


class BinaryCrossEntropyWithLogits(Op):
    """``-[p * y * log(sigmoid(x)) + (1 - y) * log(1 - sigmoid(x))]``, computed with softplus.

    ``p`` is ``pos_weight`` (broadcast along the last dimension), 1 when None; ``weight``
    rescales each element.
    """

    saved_inputs = (0, 1)

    def forward(self, x: Array, target: Array) -> Array | np.generic:
        softplus_neg = np.logaddexp(0, -x)  # log(1 + exp(-x)) = -log(sigmoid(x))
        if self.pos_weight is None:
            loss = (1 - target) * x + softplus_neg
        else:
            loss = (1 - target) * x + (1 + (self.pos_weight - 1) * target) * softplus_neg
        if self.weight is not None:
            loss = loss * self.weight
        return _reduce(loss.astype(x.dtype, copy=False), self.reduction)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> _Grads:
        x, y = self.inputs()
        pw = None if self.pos_weight is None else vjp.const(self.pos_weight, x)
        w = None if self.weight is None else vjp.const(self.weight, x)
        g = _scaled(grad, self.reduction, math.prod(x.shape))
        gx = gy = None
        if needs[0]:
            s = vjp.call(Sigmoid, x)
            dx = s - y if pw is None else ((pw - 1) * y + 1) * (s - 1) + (1 - y)
            if w is not None:
                dx = dx * w
            gx = dx * g
        if needs[1]:
            dy = -x
            if pw is not None:
                softplus_neg = vjp.call(Relu, -x) + vjp.log(vjp.exp(-abs(x)) + 1)
                dy = dy + (pw - 1) * softplus_neg
            if w is not None:
                dy = dy * w
            gy = dy * g
        return gx, gy


# ---------------------------------------------------------------------------------------- entries
_REDUCTIONS = ("mean", "sum", "none")


def _reduction(reduction: str, size_average: bool | None = None, reduce: bool | None = None) -> str:
    if size_average is not None or reduce is not None:  # PyTorch's legacy arguments
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def refuse_gradient(function: str, name: str, t: Tensor) -> None:
    """PyTorch's error for an argument it has no derivative for (a loss's ``weight``), rather
    than silently giving it no gradient."""
    if t.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"The function '{function}' is not differentiable with respect to argument '{name}'. "
            "This input cannot have requires_grad True."
        )


def _warn_broadcast(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have "
            "the same size.",
            UserWarning,
            stacklevel=3,
        )
        try:
            np.broadcast_shapes(input._data.shape, target._data.shape)
        except ValueError:
            a, b = input._data.shape, target._data.shape
            for i in range(1, min(len(a), len(b)) + 1):
                if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
                    raise RuntimeError(
                        f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) "
                        f"at non-singleton dimension {max(len(a), len(b)) - i}"
                    ) from None
            raise


def _weighted_loss(
    errors: Callable[[], Tensor], input: Tensor, weight: Tensor, reduction: str
) -> Tensor:
    """PyTorch's weighted ``l1_loss``/``mse_loss``: each element's error times its weight, summed
    (``"sum"``), divided by the weights' sum (``"mean"``), or kept (``"none"``)."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(
            f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'."
        )
    weighted = errors() * weight
    if reduction == "none":
        return weighted
    return weighted.sum() if reduction == "sum" else weighted.sum() / weight.sum()


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean squared error ``(input - target) ** 2``, reduced.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of ``input``'s shape.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        weight (Tensor, optional): a weight per element, of ``input``'s shape; ``"mean"`` then
            divides the weighted sum by the sum of the weights.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.mse_loss(nl.tensor([1., 2.]), nl.tensor([0., 4.]))
        tensor(2.5000)
    """
    reduction = _reduction(reduction, size_average, reduce)
    _warn_broadcast(input, target)
    if weight is not None:
        return _weighted_loss(lambda: (input - target) ** 2, input, weight, reduction)
    out: Tensor = MseLoss.apply(input, target, reduction=reduction)
    return out


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """Mean absolute error ``|input - target|``, reduced.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of ``input``'s shape.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        weight (Tensor, optional): a weight per element, of ``input``'s shape; ``"mean"`` then
            divides the weighted sum by the sum of the weights.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.l1_loss(nl.tensor([1., 2.]), nl.tensor([0., 4.]))
        tensor(1.5000)
    """
    reduction = _reduction(reduction, size_average, reduce)
    _warn_broadcast(input, target)
    if weight is not None:
        return _weighted_loss(lambda: (input - target).abs(), input, weight, reduction)
    out: Tensor = L1Loss.apply(input, target, reduction=reduction)
    return out


def _class_target_checks(input: Tensor, target: Tensor, weight: Tensor | None, fn: str) -> None:
    t = target._data
    x = input._data
    if t.dtype.kind not in "iu" or t.dtype == np.int32 or t.dtype.itemsize not in (1, 8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {type_name(t)}")
    if x.ndim == 1:
        if t.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if t.ndim == 1 and t.shape[0] != 1:  # one sample: its class, alone or in a 1-vector
            raise ValueError(
                f"For 1D input, 1D target must have size 1, but got target size: {t.shape[0]}"
            )
    elif x.ndim == 2:
        if t.ndim != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if t.shape[0] != x.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({x.shape[0]}) to match target batch_size ({t.shape[0]})."
            )
    elif x.ndim > 2:
        expected = (x.shape[0],) + x.shape[2:]
        if t.shape != expected:
            if t.shape[:1] != x.shape[:1]:
                raise ValueError(
                    f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                    f"({t.shape[0] if t.ndim else 1})."
                )
            raise RuntimeError(f"Expected target size {dims(expected)}, got {dims(t.shape)}")
    else:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    n_classes = x.shape[0] if x.ndim == 1 else x.shape[1]
    if weight is not None and weight._data.shape != (n_classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but "
            f"got weight tensor of shape: {dims(weight._data.shape)}"
        )


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Negative log-likelihood of class-index ``target`` given log-probabilities ``input`` (N, C, ...).

    Args:
        input (Tensor): log-probabilities ``(N, C, *)`` or ``(C,)``.
        target (Tensor): class indices ``(N, *)``.
        weight (Tensor, optional): a ``(C,)`` weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        ignore_index (int): a class index that contributes nothing. Default: -100.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.nll_loss(nl.tensor([[-0.5, -1.0], [-2.0, -0.1]]), nl.tensor([0, 1]))
        tensor(0.3000)
    """
    reduction = _reduction(reduction, size_average, reduce)
    _class_target_checks(input, target, weight, "nll_loss")
    w = None if weight is None else weight._data
    if input._data.ndim == 1:
        out: Tensor = NllLoss.apply(
            input.unsqueeze(0),
            target._data.reshape(1),
            weight=w,
            ignore_index=ignore_index,
            reduction=reduction,
        )
        return out.squeeze(0) if reduction == "none" else out
    result: Tensor = NllLoss.apply(
        input, target._data, weight=w, ignore_index=ignore_index, reduction=reduction
    )
    return result


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """Cross entropy between logits ``input`` (N, C, ...) and class indices or class probabilities.

    Class-index targets (int64) may use ``ignore_index``; probability targets have ``input``'s
    shape. ``label_smoothing`` mixes the target with the uniform distribution.

    Args:
        input (Tensor): logits, ``(N, C, *)`` or ``(C,)``.
        target (Tensor): class indices ``(N, *)``, or probabilities of ``input``'s shape.
        weight (Tensor, optional): a ``(C,)`` weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        ignore_index (int): a class index that contributes nothing. Default: -100.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        label_smoothing (float): in [0, 1]. Default: 0.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.cross_entropy(nl.zeros(2, 4), nl.tensor([0, 3]))
        tensor(1.3863)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    x, t = input._data, target._data
    w = None if weight is None else weight._data
    unbatched = x.ndim == 1
    if t.dtype.kind == "f" and t.shape == x.shape:
        n_classes = x.shape[0] if unbatched else x.shape[1]
        if w is not None and w.shape != (n_classes,):
            raise RuntimeError(
                f"cross_entropy: weight tensor should be defined either for all {n_classes} "
                f"classes or no classes but got weight tensor of shape: {dims(w.shape)}"
            )
        if unbatched:
            out: Tensor = CrossEntropyProb.apply(
                input.unsqueeze(0),
                target.unsqueeze(0),
                weight=w,
                reduction=reduction,
                label_smoothing=float(label_smoothing),
            )
            return out.squeeze(0) if reduction == "none" else out
        result: Tensor = CrossEntropyProb.apply(
            input, target, weight=w, reduction=reduction, label_smoothing=float(label_smoothing)
        )
        return result
    if t.dtype.kind == "f" and x.ndim > 1 and t.ndim == x.ndim:
        raise RuntimeError(
            "0D or 1D target tensor expected, multi-target not supported"
            if x.ndim == 2
            else f"Expected target size {dims((x.shape[0],) + x.shape[2:])}, got {dims(t.shape)}"
        )
    _class_target_checks(input, target, weight, "cross_entropy")
    if unbatched:
        out = CrossEntropy.apply(
            input.unsqueeze(0),
            t.reshape(1),
            weight=w,
            ignore_index=ignore_index,
            reduction=reduction,
            label_smoothing=float(label_smoothing),
        )
        return out.squeeze(0) if reduction == "none" else out
    output: Tensor = CrossEntropy.apply(
        input,
        t,
        weight=w,
        ignore_index=ignore_index,
        reduction=reduction,
        label_smoothing=float(label_smoothing),
    )
    return output


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """Binary cross entropy of ``sigmoid(input)`` against ``target``, computed stably from logits.

    ``pos_weight`` weighs the positive term per class (broadcast along the last dimension).

    Args:
        input (Tensor): logits.
        target (Tensor): targets in [0, 1], of ``input``'s shape.
        weight (Tensor, optional): a weight per element (broadcast).
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        pos_weight (Tensor, optional): the weight of positive targets per class.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.binary_cross_entropy_with_logits(nl.tensor([0., 2.]), nl.tensor([0., 1.]))
        tensor(0.4100)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if target.shape != input.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    x = input._data
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            refuse_gradient("binary_cross_entropy_with_logits", name, t)
            try:
                np.broadcast_shapes(t._data.shape, x.shape)
            except ValueError:
                a, b = t._data.shape, x.shape
                i = next(i for i in range(1, min(len(a), len(b)) + 1) if a[-i] not in (1, b[-i]))
                raise RuntimeError(
                    f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                    f"non-singleton dimension {len(b) - i}"
                ) from None
    if target._data.dtype != x.dtype:
        target = target.to(x.dtype)
    out: Tensor = BinaryCrossEntropyWithLogits.apply(
        input,
        target,
        weight=None if weight is None else weight._data.astype(x.dtype, copy=False),
        pos_weight=None if pos_weight is None else pos_weight._data.astype(x.dtype, copy=False),
        reduction=reduction,
    )
    return out
