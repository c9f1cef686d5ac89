"""``CTCLoss``: the connectionist temporal classification loss as a layer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..ops.ctc_loss import ctc_loss
from .loss import _Loss

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["CTCLoss"]


class CTCLoss(_Loss):
    """The loss of all alignments of an unsegmented target sequence with the input sequence.

    Args:
        blank (int): the blank label. Default: 0.
        reduction (str): ``"none"``, ``"mean"`` (each loss divided by its target length, then the
            batch mean) or ``"sum"``. Default: ``"mean"``.
        zero_infinity (bool): zero infinite losses and their gradients. Default: False.

    Examples:
        >>> log_probs = nl.randn(6, 2, 4).log_softmax(2)
        >>> targets = nl.tensor([[1, 2], [3, 3]])
        >>> loss = nn.CTCLoss()(log_probs, targets, [6, 5], [2, 2])
        >>> loss.shape
        nnlite.Size([])
    """

    def __init__(self, blank: int = 0, reduction: str = "mean", zero_infinity: bool = False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(
        self, log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any
    ) -> Tensor:
        return ctc_loss(
            log_probs,
            targets,
            input_lengths,
            target_lengths,
            self.blank,
            self.reduction,
            self.zero_infinity,
        )
