"""Loss modules: ``MSELoss``, ``CrossEntropyLoss``, ``BCELoss``, ``HuberLoss``, ``KLDivLoss``, the margin losses, ..."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

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
    "SoftMarginLoss",
    "HingeEmbeddingLoss",
    "MultiMarginLoss",
    "MultiLabelMarginLoss",
    "MultiLabelSoftMarginLoss",
    "PoissonNLLLoss",
    "GaussianNLLLoss",
    "TripletMarginWithDistanceLoss",
    "NLLLoss2d",
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


class SoftMarginLoss(_Loss):
    """``log(1 + exp(-y x))`` for targets of 1 or -1, averaged.

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.SoftMarginLoss()(nl.tensor([0., 2.]), nl.tensor([1., -1.]))
        tensor(1.4100)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    """``x`` where the target is 1, ``max(0, margin - x)`` where it is -1.

    Args:
        margin (float): the margin of the dissimilar pairs. Default: 1.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.HingeEmbeddingLoss()(nl.tensor([0.3, 0.4]), nl.tensor([1., -1.]))
        tensor(0.4500)
    """

    def __init__(
        self,
        margin: float = 1.0,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """The multi-class hinge loss ``sum over i != y of max(0, margin - x[y] + x[i])^p / C``.

    Args:
        p (int): 1 or 2. Default: 1.
        margin (float): the margin. Default: 1.
        weight (Tensor, optional): a weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.MultiMarginLoss()(nl.tensor([[0.1, 0.2, 0.4, 0.8]]), nl.tensor([3]))
        tensor(0.3250)
    """

    def __init__(
        self,
        p: int = 1,
        margin: float = 1.0,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(
                f"MultiMarginLoss: expected weight to be None or 1D tensor, got {weight.ndim}D instead"
            )
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multi_margin_loss(
            input,
            target,
            p=self.p,
            margin=self.margin,
            weight=self._buffers["weight"],
            reduction=self.reduction,
        )


class MultiLabelMarginLoss(_Loss):
    """The multi-label hinge loss over target class lists padded with -1.

    Args:
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> loss = nn.MultiLabelMarginLoss()
        >>> loss(nl.tensor([[0.1, 0.2, 0.4, 0.8]]), nl.tensor([[3, 0, -1, 1]]))
        tensor(0.8500)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Binary cross entropy of ``sigmoid(x)`` per class, averaged over the classes.

    Args:
        weight (Tensor, optional): a weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.MultiLabelSoftMarginLoss()(nl.tensor([[0., 2.]]), nl.tensor([[1., 0.]]))
        tensor(1.4100)
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.multilabel_soft_margin_loss(
            input, target, weight=self._buffers["weight"], reduction=self.reduction
        )


class PoissonNLLLoss(_Loss):
    """The negative log likelihood of counts under a Poisson of rate ``exp(input)`` (or ``input``).

    Args:
        log_input (bool): ``input`` holds log-rates. Default: True.
        full (bool): add Stirling's term. Default: False.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        eps (float): added to rates before the log. Default: 1e-8.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.PoissonNLLLoss()(nl.tensor([0., 1.]), nl.tensor([1., 2.]))
        tensor(0.8591)
    """

    def __init__(
        self,
        log_input: bool = True,
        full: bool = False,
        size_average: bool | None = None,
        eps: float = 1e-8,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        return F.poisson_nll_loss(
            log_input,
            target,
            log_input=self.log_input,
            full=self.full,
            eps=self.eps,
            reduction=self.reduction,
        )


class GaussianNLLLoss(_Loss):
    """The negative log likelihood of targets under normals of predicted means and variances.

    Args:
        full (bool): add ``0.5 log(2 pi)``. Default: False.
        eps (float): the smallest variance used. Default: 1e-6.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> loss = nn.GaussianNLLLoss()
        >>> loss(nl.tensor([0., 1.]), nl.tensor([1., 1.]), nl.tensor([1., 2.]))
        tensor(0.4233)
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:
        return F.gaussian_nll_loss(
            input, target, var, full=self.full, eps=self.eps, reduction=self.reduction
        )


class TripletMarginWithDistanceLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` for any distance ``d`` (default: ``PairwiseDistance``).

    Args:
        distance_function (callable, optional): ``d(x, y)`` per pair.
        margin (float): the required gap, positive. Default: 1.
        swap (bool): use the distance swap. Default: False.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> nn.TripletMarginWithDistanceLoss()
        TripletMarginWithDistanceLoss(
          (distance_function): PairwiseDistance()
        )
    """

    def __init__(
        self,
        *,
        distance_function: Any = None,
        margin: float = 1.0,
        swap: bool = False,
        reduction: str = "mean",
    ) -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(
                f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, got {margin} "
                "instead"
            )
        from .distance import PairwiseDistance

        self.distance_function = (
            distance_function if distance_function is not None else PairwiseDistance()
        )
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        return F.triplet_margin_with_distance_loss(
            anchor,
            positive,
            negative,
            distance_function=self.distance_function,
            margin=self.margin,
            swap=self.swap,
            reduction=self.reduction,
        )


class NLLLoss2d(NLLLoss):
    """Deprecated name of ``NLLLoss`` (for (N, C, H, W) scores), with PyTorch's warning.

    Args:
        weight (Tensor, optional): a weight per class.
        size_average, reduce: deprecated forms of ``reduction``, honoured as PyTorch does.
        ignore_index (int): a target value left out. Default: -100.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nn.NLLLoss2d()
        NLLLoss2d()
    """

    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: bool | None = None,
        ignore_index: int = -100,
        reduce: bool | None = None,
        reduction: str = "mean",
    ) -> None:
        warnings.warn(
            "`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a drop-in "
            "replacement and see https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more "
            "details.",
            FutureWarning,
            stacklevel=2,
        )
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
