"""``LinearCrossEntropyLoss`` (a ``Linear`` layer fused into its cross-entropy loss) and the
``LinearCrossEntropyOptions`` that pick PyTorch's chunked kernels.

nnlite computes the reference form, the logits then the loss, whatever the options: the options
are checked as PyTorch checks them and kept, so code that builds them runs unchanged.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Any, Literal

from .. import functional as F
from .linear import Linear
from .loss import _WeightedLoss

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["LinearCrossEntropyOptions", "LinearCrossEntropyLoss"]


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """How PyTorch's chunked ``linear_cross_entropy`` splits its work (accepted, checked and kept
    by nnlite, which always computes the reference form).

    Args:
        allow_retain_graph (bool): allow ``retain_graph=True`` on backward. Default: False.
        batch_chunk_size (int, optional): rows per chunk. Default: one chunk.
        chunking_method (str, optional): ``"auto"``, ``"aspect_ratio"`` or
            ``"aspect_ratio:N"``, or None. Default: ``"auto"``.
        acc_policy (str): ``"auto"``, ``"accurate"``, ``"balanced"`` or ``"compact"``.
        acc_dtype (nnlite.dtype, optional): the accumulation dtype.

    Examples:
        >>> nn.LinearCrossEntropyOptions(batch_chunk_size=64, chunking_method=None)
        LinearCrossEntropyOptions(allow_retain_graph=False, batch_chunk_size=64, chunking_method=None, acc_policy='auto', acc_dtype=None)
    """

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        from ...autograd import dtypes

        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        size = self.batch_chunk_size
        if not (size is None or (isinstance(size, int) and size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got {size!r}")
        allowed = (dtypes.float16, dtypes.float32, dtypes.float64)
        if self.acc_dtype is not None and self.acc_dtype not in allowed:
            raise ValueError(
                "acc_dtype must be one of {None, torch.float16, torch.bfloat16, torch.float32, "
                f"torch.float64}}, got {self.acc_dtype!r}. Pass acc_dtype=None to let the op pick "
                "automatically."
            )


class LinearCrossEntropyLoss(_WeightedLoss):
    """Cross entropy of the logits that an inner ``Linear`` layer (``self.linear``) computes.

    Args:
        in_features (int): the input's features.
        num_classes (int): C.
        out_features (tuple of int): ``(d1, ..., dK)`` for a K-dimensional loss. Default: ``()``.
        bias (bool): the inner layer learns a bias. Default: False.
        dtype (nnlite.dtype, optional): the inner layer's dtype.
        reduction (str): ``"none"``, ``"mean"`` or ``"sum"``. Default: ``"mean"``.
        weight (Tensor, optional): a weight per class, ``(C,)``.
        ignore_index (int, optional): a target left out. Default: None (-100 for indices).
        label_smoothing (float): in [0, 1]. Default: 0.
        options (LinearCrossEntropyOptions, optional): PyTorch's chunking options (kept).

    Examples:
        >>> loss = nn.LinearCrossEntropyLoss(4, 3)
        >>> loss(nl.randn(5, 4), nl.tensor([0, 2, 1, 1, 0])).shape
        nnlite.Size([])
    """

    weight: Tensor | None  # the class weights buffer, registered by _WeightedLoss

    def __init__(
        self,
        in_features: int,
        num_classes: int,
        *,
        out_features: tuple[int, ...] = (),
        bias: bool = False,
        device: Any = None,
        dtype: Any = None,
        reduction: str = "mean",
        weight: Tensor | None = None,
        ignore_index: int | None = None,
        label_smoothing: float = 0.0,
        options: LinearCrossEntropyOptions | None = None,
    ) -> None:
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(
                f"expected weight shape to be {(num_classes,)}, got {tuple(weight.shape)}"
            )
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(
                f"expected label_smoothing to be in range [0, 1], got {label_smoothing}"
            )
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        # stored flat, as PyTorch's: (C * prod(out_features), in_features)
        self.linear = Linear(
            in_features,
            math.prod(out_features, start=num_classes),
            bias=bias,
            device=device,
            dtype=dtype,
        )
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        if not self.out_features:
            return F.linear_cross_entropy(
                input,
                self.linear.weight,
                target,
                linear_bias=self.linear.bias,
                weight=self.weight,
                reduction=self.reduction,
                ignore_index=self.ignore_index,
                label_smoothing=self.label_smoothing,
                options=self.options,
            )
        # K-dimensional: the flat logits viewed as (N, C, d1, ..., dK)
        logits = self.linear(input).reshape(input.shape[0], self.num_classes, *self.out_features)
        return F.cross_entropy(
            logits,
            target,
            self.weight,
            ignore_index=-100 if self.ignore_index is None else self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )

    def extra_repr(self) -> str:
        return (
            f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
            f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
            f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
            f"label_smoothing={self.label_smoothing}, options={self.options}"
        )
