"""Losses built from existing ops (no backward of their own): binary cross entropy on probabilities,
the soft-margin, hinge, multi-class and multi-label margin losses, Poisson and Gaussian NLL,
smooth L1 and Huber, KL divergence, and the margin losses."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp
from ...autograd.ops.pointwise import Clamp
from ...autograd.ops.where import Where
from .distance import cosine_similarity, pairwise_distance
from .loss import _reduction, refuse_gradient

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    return losses


def _same_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )


class BinaryCrossEntropy(Op):
    """``-(y log x + (1 - y) log(1 - x))`` per element, each log clamped at -100 (PyTorch's rule).

    An op of its own rather than a composite: at ``x = 0`` or ``1`` the composite's gradient would
    be ``0 * inf``; this backward is PyTorch's ``(x - y) / max(x (1 - x), 1e-12)``, finite there.
    """

    saved_inputs = (0, 1)

    def forward(self, x: Array, y: Array) -> Array:
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100.0)
            log_1mx = np.maximum(np.log(1 - x), -100.0)
        loss: Array = (-(y * log_x + (1 - y) * log_1mx)).astype(x.dtype, copy=False)
        return loss

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> tuple[Gradient | None, ...]:
        x, y = self.inputs()
        gx = grad * (x - y) / vjp.call(Clamp, x * (1 - x), min=1e-12) if needs[0] else None
        gy = None
        if needs[1]:
            log_x = vjp.call(Clamp, vjp.log(vjp.call(Clamp, x, min=1e-44)), min=-100.0)
            log_1mx = vjp.call(Clamp, vjp.log(vjp.call(Clamp, 1 - x, min=1e-44)), min=-100.0)
            gy = grad * (log_1mx - log_x)
        return gx, gy


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-(y log x + (1 - y) log(1 - x))`` for probabilities ``x``; each log is clamped at -100, as PyTorch.

    Args:
        input (Tensor): probabilities in [0, 1].
        target (Tensor): targets in [0, 1], of ``input``'s shape.
        weight (Tensor, optional): a weight per element (broadcast).
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.binary_cross_entropy(nl.tensor([0.9, 0.2]), nl.tensor([1., 0.]))
        tensor(0.1643)
    """
    reduction = _reduction(reduction, size_average, reduce)
    _same_size(input, target)
    data = input._data
    if data.size and (data.min() < 0 or data.max() > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    losses = BinaryCrossEntropy.apply(input, target)
    if weight is not None:
        refuse_gradient("binary_cross_entropy", "weight", weight)
        losses = losses * weight
    return _reduce(losses, reduction)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d^2 / beta`` where ``d = |x - y| < beta``, else ``d - 0.5 beta``.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of ``input``'s shape.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        beta (float): where the loss turns from quadratic to linear. Default: 1.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.smooth_l1_loss(nl.tensor([0., 3.]), nl.tensor([0.5, 0.]))
        tensor(1.3125)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = (input - target).abs()
    if beta == 0:
        return _reduce(diff, reduction)
    return _reduce(
        Where.apply(diff._data < beta, 0.5 * diff * diff / beta, diff - 0.5 * beta), reduction
    )


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    """``0.5 d^2`` where ``d = |x - y| < delta``, else ``delta (d - 0.5 delta)``.

    Args:
        input (Tensor): the predictions.
        target (Tensor): the targets, of ``input``'s shape.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        delta (float): where the loss turns from quadratic to linear. Default: 1.
        weight (Tensor, optional): a weight per element.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.huber_loss(nl.tensor([0., 3.]), nl.tensor([0.5, 0.]))
        tensor(1.3125)
    """
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    diff = (input - target).abs()
    losses = Where.apply(diff._data < delta, 0.5 * diff * diff, delta * (diff - 0.5 * delta))
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, _reduction(reduction))


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """``target * (log(target) - input)`` for log-probabilities ``input`` (0 where ``target`` is 0).

    ``reduction="batchmean"`` divides the sum by the batch size (the mathematical KL divergence);
    ``"mean"`` divides by the number of elements and warns, as PyTorch.

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities with ``log_target``).
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"`` or ``"batchmean"``. Default: ``"mean"``.
        log_target (bool): ``target`` is given as log-probabilities. Default: False.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> p = nl.tensor([[0.9, 0.1]])
        >>> F.kl_div(nl.tensor([[0.5, 0.5]]).log(), p, reduction="batchmean")
        tensor(0.3681)
    """
    if reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    if log_target:
        losses = target.exp() * (target - input)
    else:
        positive = target._data > 0
        safe_log = Where.apply(positive, target, 1.0).log()  # log(1) = 0 where the target is 0
        losses = Where.apply(positive, target * (safe_log - input), 0.0 * input)
    if reduction == "batchmean":
        return losses.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(losses, _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(x1, x2)`` for ``y = 1``; ``max(0, cos(x1, x2) - margin)`` for ``y = -1``.

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)`` embeddings.
        input2 (Tensor): embeddings of the same shape.
        target (Tensor): 1 (similar) or -1 (dissimilar) per pair.
        margin (float): for dissimilar pairs. Default: 0.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.cosine_embedding_loss(nl.tensor([[1., 0.]]), nl.tensor([[0., 1.]]), nl.tensor([1.]))
        tensor(1.)
    """
    reduction = _reduction(reduction, size_average, reduce)
    cos = cosine_similarity(input1, input2, dim=-1, eps=1e-12)
    positive = target._data == 1
    losses = Where.apply(positive, 1.0 - cos, (cos - margin).clamp(min=0.0))
    return _reduce(losses, reduction)


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -y (x1 - x2) + margin)``.

    Args:
        input1 (Tensor): scores.
        input2 (Tensor): scores of the same shape.
        target (Tensor): 1 where ``input1`` should rank higher, -1 where ``input2`` should.
        margin (float): the required gap. Default: 0.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.margin_ranking_loss(nl.tensor([1., 2.]), nl.tensor([2., 1.]), nl.tensor([1., 1.]))
        tensor(0.5000)
    """
    reduction = _reduction(reduction, size_average, reduce)
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0.0), reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the ``p``-norm distance; ``swap`` uses
    ``min(d(a, n), d(p, n))`` (the distance swap of Balntas et al.).

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)`` embeddings.
        positive (Tensor): embeddings that should be near the anchors.
        negative (Tensor): embeddings that should be far from them.
        margin (float): the required gap. Default: 1.
        p (float): the norm of the distance. Default: 2.
        eps (float): added to differences for stability. Default: 1e-6.
        swap (bool): use the distance swap. Default: False.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> a, p, n = nl.tensor([[0., 0.]]), nl.tensor([[0., 1.]]), nl.tensor([[3., 0.]])
        >>> F.triplet_margin_loss(a, p, n)
        tensor(0.)
    """
    reduction = _reduction(reduction, size_average, reduce)
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp(min=0.0), reduction)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``log(1 + exp(-y x))`` for targets ``y`` of 1 or -1 (two-class logistic loss).

    Args:
        input (Tensor): the scores.
        target (Tensor): 1 or -1, of ``input``'s shape.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.soft_margin_loss(nl.tensor([0., 2.]), nl.tensor([1., -1.]))
        tensor(1.4100)
    """
    from .activation import logsigmoid

    reduction = _reduction(reduction, size_average, reduce)
    return _reduce(-logsigmoid(input * target), reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``x`` where the target is 1, ``max(0, margin - x)`` where it is -1 (``x`` a distance).

    Args:
        input (Tensor): the distances.
        target (Tensor): 1 or -1, broadcast against ``input``.
        margin (float): the margin of the dissimilar pairs. Default: 1.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.hinge_embedding_loss(nl.tensor([0.3, 0.4]), nl.tensor([1., -1.]))
        tensor(0.4500)
    """
    reduction = _reduction(reduction, size_average, reduce)
    y = target._data if hasattr(target, "_data") else np.asarray(target)
    margin_part = Where.apply(y != 1, (margin - input).clamp(min=0.0), 0.0)
    self_part = Where.apply(y != -1, input, 0.0)
    return _reduce(margin_part + self_part, reduction)


def _class_targets(input: Tensor, target: Tensor, name: str) -> tuple[Tensor, Array, bool]:
    """``(input (N, C), target indices (N,), was_1d)``: the (C,) form made a batch of one."""
    if input.ndim not in (1, 2):
        raise RuntimeError(f"{name}: Expected non-empty vector or matrix, got {input.ndim}D input")
    one = input.ndim == 1
    x = input.unsqueeze(0) if one else input
    y = np.asarray(target._data if hasattr(target, "_data") else target).reshape(x.shape[0], -1)
    return x, y, one


def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss: ``sum over i != y of max(0, margin - x[y] + x[i])^p / C``.

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)`` scores.
        target (Tensor): ``(N,)`` or ``()`` class indices.
        p (int): 1 or 2. Default: 1.
        margin (float): the margin. Default: 1.
        weight (Tensor, optional): a weight per class, applied by the target's class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.multi_margin_loss(nl.tensor([[0.1, 0.2, 0.4, 0.8]]), nl.tensor([3]))
        tensor(0.3250)
    """
    reduction = _reduction(reduction, size_average, reduce)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    x, y, one = _class_targets(input, target, "multi_margin_loss")
    classes = x.shape[1]
    y = y.reshape(-1)
    if y.size and (y.min() < 0 or y.max() >= classes):
        raise IndexError(f"target out of range: classes are 0..{classes - 1}")
    picked = x.gather(1, _index(y[:, None]))
    others = np.arange(classes)[None, :] != y[:, None]
    hinge = (x - picked + margin).clamp(min=0.0)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[_index(y)].unsqueeze(1)
    losses = Where.apply(others, hinge, 0.0).sum(1) / classes
    return _reduce(losses.squeeze(0) if one else losses, reduction)


def _index(array: Array) -> Tensor:
    from ...autograd.creation import tensor

    return tensor(np.asarray(array, dtype=np.int64))


def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss: ``sum over targets j and non-targets i of max(0, 1 - (x[j] - x[i])) / C``.

    ``target`` holds class indices, the list of each sample ending at the first -1.

    Args:
        input (Tensor): ``(N, C)`` or ``(C,)`` scores.
        target (Tensor): int64 indices of ``input``'s shape, padded with -1.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.multilabel_margin_loss(nl.tensor([[0.1, 0.2, 0.4, 0.8]]), nl.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """
    reduction = _reduction(reduction, size_average, reduce)
    x, y, one = _class_targets(input, target, "multilabel_margin_loss")
    if y.shape != tuple(x.shape):
        raise RuntimeError(
            f"inconsistent target size: {tuple(target.shape)} for input of size: "
            f"{tuple(input.shape)}"
        )
    n, classes = x.shape
    is_target = np.zeros((n, classes), dtype=bool)
    for row in range(n):
        for label in y[row]:
            if label < 0:
                break
            if label >= classes:
                raise IndexError(f"target out of range: classes are 0..{classes - 1}")
            is_target[row, label] = True
    pairs = is_target[:, :, None] & ~is_target[:, None, :]  # (j a target, i not)
    hinge = (x.unsqueeze(1) - x.unsqueeze(2) + 1.0).clamp(min=0.0)  # [n, j, i]
    losses = Where.apply(pairs, hinge, 0.0).sum((1, 2)) / classes
    return _reduce(losses.squeeze(0) if one else losses, reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """Binary cross entropy of ``sigmoid(x)`` per class, averaged over the classes.

    Args:
        input (Tensor): ``(N, C)`` scores.
        target (Tensor): ``(N, C)`` of 0 and 1.
        weight (Tensor, optional): a weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.multilabel_soft_margin_loss(nl.tensor([[0., 2.]]), nl.tensor([[1., 0.]]))
        tensor(1.4100)
    """
    from .activation import logsigmoid

    reduction = _reduction(reduction, size_average, reduce)
    losses = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        losses = losses * weight
    losses = losses.sum(dim=input.ndim - 1) / input.shape[-1]
    return _reduce(losses, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log likelihood of ``target`` under a Poisson of rate ``exp(input)`` (or ``input``).

    Args:
        input (Tensor): log-rates (``log_input``) or rates.
        target (Tensor): the counts.
        log_input (bool): ``input`` holds log-rates. Default: True.
        full (bool): add Stirling's term ``y log y - y + 0.5 log(2 pi y)`` where ``y > 1``.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        eps (float): added to rates before the log (``log_input=False``). Default: 1e-8.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.poisson_nll_loss(nl.tensor([0., 1.]), nl.tensor([1., 2.]))
        tensor(0.8591)
    """
    if size_average is not None or reduce is not None:
        reduction = _reduction(reduction, size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        losses = input.exp() - target * input
    else:
        losses = input - target * (input + eps).log()
    if full:
        # built from differentiable ops, so the target gets the Stirling term's gradient (and,
        # as in PyTorch, NaN where it is not positive)
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = target * target.log() - target + 0.5 * (target * (2 * math.pi)).log()
        losses = losses + stirling.masked_fill(target <= 1, 0.0)
    return _reduce(losses, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The negative log likelihood of ``target`` under a normal of mean ``input`` and variance ``var``:
    ``0.5 (log var + (x - y)^2 / var)``, ``var`` clamped at ``eps`` (the clamp passes gradients
    through unchanged, as PyTorch's).

    Args:
        input (Tensor): the predicted means.
        target (Tensor): the observations.
        var (Tensor or float): the predicted variances: ``input``'s shape, one dimension short, or
            with one dimension of size 1.
        full (bool): add ``0.5 log(2 pi)``. Default: False.
        eps (float): the smallest variance used. Default: 1e-6.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.gaussian_nll_loss(nl.tensor([0., 1.]), nl.tensor([1., 1.]), nl.tensor([1., 2.]))
        tensor(0.4233)
    """
    from ...autograd.creation import ones_like

    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ones_like(input) * float(var)
    elif bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    in_shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape != in_shape:
        if in_shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (
            len(in_shape) == len(var_shape)
            and sum(v for i, v in zip(in_shape, var_shape) if i != v) == 1
        ):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var + (var.clamp(min=eps) - var).detach()
    losses = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * np.log(2 * np.pi)
    return _reduce(losses, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Any = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` for any distance ``d`` (default: ``pairwise_distance``).

    Args:
        anchor (Tensor): the anchors.
        positive (Tensor): what should be near them.
        negative (Tensor): what should be far from them.
        distance_function (callable, optional): ``d(x, y)`` giving a distance per pair.
        margin (float): the required gap, positive. Default: 1.
        swap (bool): use ``min(d(a, n), d(p, n))`` as the negative distance. Default: False.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> a, p, n = nl.tensor([[0., 0.]]), nl.tensor([[0., 1.]]), nl.tensor([[1., 0.]])
        >>> F.triplet_margin_with_distance_loss(a, p, n)
        tensor(1.)
    """
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of "
            f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
            f"{negative.ndim}D inputs"
        )
    distance = pairwise_distance if distance_function is None else distance_function
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp(min=0.0), reduction)


def linear_cross_entropy(
    input: Tensor,
    linear_weight: Tensor,
    target: Tensor,
    *,
    linear_bias: Tensor | None = None,
    weight: Tensor | None = None,
    reduction: str = "mean",
    ignore_index: int | None = None,
    label_smoothing: float = 0.0,
    options: Any = None,
) -> Tensor:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)`` (PyTorch's
    reference form; ``options``, which picks PyTorch's chunked kernels, is accepted and ignored).

    Args:
        input (Tensor): ``(N, in_features)``.
        linear_weight (Tensor): ``(C, in_features)``.
        target (Tensor): class indices ``(N,)`` or probabilities ``(N, C)``.
        linear_bias (Tensor, optional): ``(C,)``.
        weight (Tensor, optional): a weight per class.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        ignore_index (int, optional): a target index left out. Default: none.
        label_smoothing (float): as for ``cross_entropy``. Default: 0.

    Returns:
        Tensor: the loss; a scalar unless ``reduction`` is ``"none"``.

    Examples:
        >>> F.linear_cross_entropy(nl.ones(2, 3), nl.zeros(4, 3), nl.tensor([0, 3]))
        tensor(1.3863)
    """
    from .linear import linear
    from .loss import cross_entropy

    logits = linear(input, linear_weight, linear_bias)
    return cross_entropy(
        logits,
        target,
        weight,
        ignore_index=-100 if ignore_index is None else ignore_index,
        reduction=reduction,
        label_smoothing=label_smoothing,
    )
