"""``AdaptiveLogSoftmaxWithLoss``: the efficient softmax of Grave et al. (2016) for large
vocabularies, as PyTorch's: frequent classes in a head, the rest in clusters whose smaller
projections are only computed for the rows that need them."""

from __future__ import annotations

from collections import namedtuple
from typing import TYPE_CHECKING, Any

from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of targets over ``n_classes`` split at ``cutoffs`` into a head (the
    first ``cutoffs[0]`` classes plus one entry per cluster) and tail clusters.

    Args:
        in_features (int): the input's features.
        n_classes (int): the number of classes.
        cutoffs (sequence of int): increasing class indices in ``[1, n_classes - 1]`` where the
            clusters start.
        div_value (float): each cluster's projection is ``div_value`` times narrower than the
            previous one's. Default: 4.0.
        head_bias (bool): the head learns a bias. Default: False.
        dtype (nnlite.dtype, optional): the parameters' dtype.

    Returns (``forward``):
        ``(output, loss)``: the target's log-probability per row and the mean negative of it.

    Examples:
        >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6], div_value=2.0)
        >>> out, loss = asm(nl.randn(4, 8), nl.tensor([0, 4, 7, 9]))
        >>> out.shape, loss.shape
        (nnlite.Size([4]), nnlite.Size([]))
    """

    def __init__(
        self,
        in_features: int,
        n_classes: int,
        cutoffs: Any,
        div_value: float = 4.0,
        head_bias: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (
            cutoffs != sorted(cutoffs)
            or min(cutoffs) <= 0
            or max(cutoffs) > (n_classes - 1)
            or len(set(cutoffs)) != len(cutoffs)
            or any(int(c) != c for c in cutoffs)
        ):
            raise ValueError(
                "cutoffs should be a sequence of unique, positive integers sorted in an "
                "increasing order, where each value is between 1 and n_classes-1"
            )
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        factory = {"device": device, "dtype": dtype}
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            width = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(
                Sequential(
                    Linear(in_features, hidden, bias=False, **factory),
                    Linear(hidden, width, bias=False, **factory),
                )
            )

    def reset_parameters(self) -> None:
        """Draw every projection's weights again, as the layers' own initialisation.

        Examples:
            >>> nn.AdaptiveLogSoftmaxWithLoss(4, 6, [2]).reset_parameters()
        """
        self.head.reset_parameters()
        for to_hidden, to_out in self.tail:
            to_hidden.reset_parameters()
            to_out.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        from ...autograd.creation import zeros

        if target_.dim() == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError(
                    "Input and target should have the same size in the batch dimension."
                )
            if input_.dim() != 2:
                raise RuntimeError(
                    "1D target tensor expects 2D input tensors, but found inputs with size",
                    input_.shape,
                )
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(
                    "0D target tensor expects 1D input tensors, but found inputs with size",
                    input_.shape,
                )
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        batch = target.shape[0]
        output = zeros(batch, dtype=input.dtype)
        # the head entry each row reads: its own class, or its cluster's entry
        head_entry = target.clone()
        used = 0
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            low, high = bounds[i], bounds[i + 1]
            mask = (target >= low) & (target < high)
            rows = mask.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            used += rows.numel()
            if i == 0:
                continue
            relative = target[mask] - low
            cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            local = cluster.gather(1, relative.unsqueeze(1)).squeeze(1)
            output = output.index_copy(0, rows, local)
            head_entry[mask] = self.shortlist_size + i - 1
        if used != batch:
            raise RuntimeError(
                f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                f"[{target.min().item()}, {target.max().item()}] were found. "
            )
        head = F.log_softmax(self.head(input), dim=1)
        output = output + head.gather(1, head_entry.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        from ...autograd.creation import cat

        head = F.log_softmax(head_output, dim=1)
        parts = [head[:, : self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster + head[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input: Tensor) -> Tensor:
        """The log-probability of every class, ``(N, n_classes)`` (or ``(n_classes,)``).

        Args:
            input (Tensor): ``(N, in_features)`` or ``(in_features,)``.

        Returns:
            Tensor: the log-probabilities.

        Examples:
            >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6])
            >>> asm.log_prob(nl.randn(2, 8)).exp().sum(1)
            tensor([1.0000, 1.0000], grad_fn=<SumBackward1>)
        """
        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (``log_prob(input).argmax(1)``, computing the
        clusters only when a row's best head entry is a cluster).

        Args:
            input (Tensor): ``(N, in_features)`` or ``(in_features,)``.

        Returns:
            Tensor: the classes, int64.

        Examples:
            >>> asm = nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[3, 6])
            >>> asm.predict(nl.randn(4, 8)).shape
            nnlite.Size([4])
        """
        from ...autograd.creation import where

        batched = input.dim() > 1
        x = input if batched else input.unsqueeze(0)
        head_output = self.head(x)
        best = head_output.argmax(1)
        outside = best >= self.shortlist_size
        if bool(outside.any()):
            scores: Any = self._full_log_prob(x, head_output)
            full = scores.argmax(1)
            best = where(outside, full, best)
        return best if batched else best.squeeze(0)
