"""Loss modules: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``HuberLoss``, ``KLDivLoss``, the margin losses, ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from ..ops.loss import _reduction as reduction_mode
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = [
    "MSELoss",
    "L1Loss",
    "NLLLoss",
    "CrossEntropyLoss",
    "BCEWithLogitsLoss",
    "BCELoss",
    "SmoothL1Loss",
    "HuberLoss",
    "KLDivLoss",
    "CosineEmbeddingLoss",
    "MarginRankingLoss",
    "TripletMarginLoss",
]


class _Loss(Module):
    def __init__(
        self, size_average: bool | None = None, reduce: bool | None = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        if size_average is not None or reduce is not None:
            reduction = reduction_mode(reduction, size_average, reduce)
        self.reduction = reduction


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error between input and target.

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.MSELoss()(nl.tensor([1., 2.]), nl.tensor([0., 4.]))
        tensor(2.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error between input and target.

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.L1Loss()(nl.tensor([1., 2.]), nl.tensor([0., 4.]))
        tensor(1.5000)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class-index targets given log-probabilities.

    Args:
        weight (Tensor, optional): a ``(C,)`` weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        ignore_index (int): a class index that contributes nothing. Default: -100.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.NLLLoss()(nl.tensor([[-0.5, -1.0], [-2.0, -0.1]]), nl.tensor([0, 1]))
        tensor(0.3000)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input,
            target,
            weight=self._buffers["weight"],
            ignore_index=self.ignore_index,
            reduction=self.reduction,
        )


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy between logits and class indices or class probabilities.

    Options as PyTorch: ``weight`` per class, ``ignore_index`` (index targets), ``reduction``
    (``"mean"``, ``"sum"``, ``"none"``) and ``label_smoothing``.

    Args:
        weight (Tensor, optional): a ``(C,)`` weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        ignore_index (int): a class index that contributes nothing. Default: -100.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        label_smoothing (float): in [0, 1]. Default: 0.

    Examples:
        >>> criterion = nl.nn.CrossEntropyLoss(label_smoothing=0.1)
        >>> loss = criterion(nl.randn(4, 10, requires_grad=True), nl.tensor([1, 0, 4, 9]))
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            weight=self._buffers["weight"],
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy on logits, with optional per-element ``weight`` and per-class ``pos_weight``.

    Args:
        weight (Tensor, optional): a weight per element (broadcast).
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        pos_weight (Tensor, optional): the weight of positive targets per class.

    Examples:
        >>> nn.BCEWithLogitsLoss()(nl.tensor([0., 2.]), nl.tensor([0., 1.]))
        tensor(0.4100)
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input,
            target,
            self._buffers["weight"],
            reduction=self.reduction,
            pos_weight=self._buffers["pos_weight"],
        )


class BCELoss(_WeightedLoss):
    """Binary cross entropy between probabilities and targets in [0, 1].

    Args:
        weight (Tensor, optional): a weight per element (broadcast).
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.BCELoss()(nl.tensor([0.9, 0.2]), nl.tensor([1., 0.]))
        tensor(0.1643)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(
            input, target, weight=self._buffers["weight"], reduction=self.reduction
        )


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above it.

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        beta (float): where the loss turns from quadratic to linear. Default: 1.

    Examples:
        >>> nn.SmoothL1Loss()(nl.tensor([0., 3.]), nl.tensor([0.5, 0.]))
        tensor(1.3125)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Squared error below ``delta``, ``delta``-scaled absolute error above it.

    Args:
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        delta (float): where the loss turns from quadratic to linear. Default: 1.

    Examples:
        >>> nn.HuberLoss()(nl.tensor([0., 3.]), nl.tensor([0.5, 0.]))
        tensor(1.3125)
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from log-probabilities ``input`` (``log_target``: target given as logs).

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"`` or ``"batchmean"``. Default: ``"mean"``.
        log_target (bool): the target is given as log-probabilities. Default: False.

    Examples:
        >>> loss = nn.KLDivLoss(reduction="batchmean")
        >>> loss(nl.tensor([[0.5, 0.5]]).log(), nl.tensor([[0.9, 0.1]]))
        tensor(0.3681)
    """

    def __init__(
        self,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class CosineEmbeddingLoss(_Loss):
    """Pulls pairs with ``y = 1`` together in angle, pushes ``y = -1`` pairs beyond ``margin``.

    Args:
        margin (float): for dissimilar pairs (``y = -1``). Default: 0.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> loss = nn.CosineEmbeddingLoss()
        >>> loss(nl.tensor([[1., 0.]]), nl.tensor([[0., 1.]]), nl.tensor([1.]))
        tensor(1.)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.cosine_embedding_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class MarginRankingLoss(_Loss):
    """``max(0, -y (x1 - x2) + margin)``: ``x1`` should rank above ``x2`` where ``y = 1``.

    Args:
        margin (float): the required gap. Default: 0.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.MarginRankingLoss()(nl.tensor([1., 2.]), nl.tensor([2., 1.]), nl.tensor([1., 1.]))
        tensor(0.5000)
    """

    def __init__(
        self,
        margin: float = 0.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)``.

    Args:
        margin (float): the required gap. Default: 1.
        p (float): the norm of the distance. Default: 2.
        eps (float): added to differences for stability. Default: 1e-6.
        swap (bool): use the distance swap. Default: False.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> a, p, n = nl.tensor([[0., 0.]]), nl.tensor([[0., 1.]]), nl.tensor([[3., 0.]])
        >>> nn.TripletMarginLoss()(a, p, n)
        tensor(0.)
    """

    def __init__(
        self,
        margin: float = 1.0,
        p: float = 2.0,
        eps: float = 1e-6,
        swap: bool = False,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_loss(
            anchor,
            positive,
            negative,
            margin=self.margin,
            p=self.p,
            eps=self.eps,
            swap=self.swap,
            reduction=self.reduction,
        )
