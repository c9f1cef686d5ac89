"""The connectionist temporal classification loss (Graves et al., 2006), as PyTorch's ``ctc_loss``.

The forward runs the alpha recursion in log space over the targets extended with blanks
(``blank, l1, blank, l2, ..., blank``), for the whole batch at once, one time step at a time; the
loss of a sample is ``-log`` of the probability of all its alignments. The gradient is PyTorch's:
``exp(log_probs) - posterior`` per time step and class, from the alpha and beta recursions, zero
past a sample's input length. Like PyTorch's, it is the gradient for ``log_probs`` that come from
``log_softmax`` (the ``exp(log_probs)`` term cancels in ``log_softmax``'s backward), and it has no
derivative of its own: a second backward raises PyTorch's error.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..._typing import Array, Gradient
    from ...autograd.tensor import Tensor

__all__ = ["ctc_loss"]

_CHECKING = "(while checking arguments for ctc_loss_allocate_outputs)"
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _lengths(value: Any) -> np.ndarray:
    data = value._data if vjp.is_tensor(value) else np.asarray(value)
    return np.asarray(data, dtype=np.int64).reshape(-1)


def _log_add(*terms: np.ndarray) -> np.ndarray:
    """log(sum(exp(terms))) elementwise, -inf where every term is -inf."""
    top = np.maximum.reduce(terms)
    safe = np.where(np.isneginf(top), 0.0, top)
    with np.errstate(divide="ignore"):
        total: np.ndarray = safe + np.log(sum(np.exp(t - safe) for t in terms))
    return total


def _shift(a: np.ndarray, by: int) -> np.ndarray:
    """``a`` moved ``by`` places along the last axis (right when positive), -inf filled."""
    out = np.full_like(a, -np.inf)
    if by > 0:
        out[..., by:] = a[..., :-by]
    else:
        out[..., :by] = a[..., -by:]
    return out


class _CtcGradient(Op):
    """``grad_out[n] * base[t, n, c]``: the saved gradient scaled by the incoming one. PyTorch has
    no derivative for it, and neither has nnlite."""

    node_name = "CtcLossBackwardBackward0"

    def forward(self, grad: Array, log_probs: Array) -> Array:
        # log_probs only links the gradient to the graph
        out: Array = self.base * grad.astype(self.base.dtype)[None, :, None]
        return out

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        raise RuntimeError("derivative for aten::_ctc_loss_backward is not implemented")


class CtcLoss(Op):
    """Per-sample negative log-likelihoods ``(N,)`` of ``log_probs`` ``(T, N, C)``; the targets,
    lengths, ``blank`` and ``zero_infinity`` are parameters."""

    node_name = "CtcLossBackward0"
    saved_inputs = (0,)

    def forward(self, log_probs: Array) -> Array:
        lp = log_probs.astype(np.float64)
        steps, batch, _ = lp.shape
        targets, lengths, inputs = self.targets, self.target_lengths, self.input_lengths
        width = 2 * (targets.shape[1] if targets.size else 0) + 1
        extended = np.full((batch, width), self.blank, dtype=np.int64)
        extended[:, 1::2] = targets
        valid = np.arange(width)[None, :] < (2 * lengths + 1)[:, None]
        skip = np.zeros((batch, width), dtype=bool)
        skip[:, 2:] = (extended[:, 2:] != self.blank) & (extended[:, 2:] != extended[:, :-2])
        emit = np.take_along_axis(lp, np.broadcast_to(extended, (steps, batch, width)), axis=2)
        emit = np.where(valid, emit, -np.inf)
        alpha = np.full((steps, batch, width), -np.inf)
        if steps:
            alpha[0, :, 0] = emit[0, :, 0]
            alpha[0, :, 1:2] = np.where(lengths[:, None] > 0, emit[0, :, 1:2], -np.inf)
        for t in range(1, steps):
            a = alpha[t - 1]
            alpha[t] = _log_add(a, _shift(a, 1), np.where(skip, _shift(a, 2), -np.inf)) + emit[t]
        last = np.maximum(inputs - 1, 0)
        rows = np.arange(batch)
        end = alpha[last, rows]  # (N, width)
        final = end[rows, 2 * lengths]
        before = np.where(lengths > 0, end[rows, np.maximum(2 * lengths - 1, 0)], -np.inf)
        nll = -_log_add(final, before)
        nll = np.where(inputs == 0, np.where(lengths == 0, 0.0, np.inf), nll)
        infinite = np.isinf(nll)
        if self.zero_infinity:
            nll = np.where(infinite, 0.0, nll)
        self.base = self._gradient(lp, emit, alpha, extended, skip, nll, infinite)
        return nll.astype(log_probs.dtype)

    def _gradient(
        self,
        lp: Array,
        emit: Array,
        alpha: Array,
        extended: Array,
        skip: Array,
        nll: Array,
        infinite: Array,
    ) -> Array:
        """``exp(lp) - posterior`` (T, N, C), zero past each input length, as PyTorch's."""
        steps, batch, width = emit.shape
        inputs, lengths = self.input_lengths, self.target_lengths
        rows = np.arange(batch)
        beta = np.full_like(alpha, -np.inf)
        skip_next = _shift(skip.astype(np.float64), -2) > 0  # may s jump to s + 2
        for t in range(steps - 1, -1, -1):
            start = inputs - 1 == t  # the last step of these samples
            after = np.full((batch, width), -np.inf)  # the two states a path may end in
            after[rows, np.maximum(2 * lengths - 1, 0)] = np.where(lengths > 0, 0.0, -np.inf)
            after[rows, 2 * lengths] = 0.0
            if t + 1 < steps:
                b = beta[t + 1]
                moved = _log_add(b, _shift(b, -1), np.where(skip_next, _shift(b, -2), -np.inf))
            else:
                moved = np.full((batch, width), -np.inf)
            beta[t] = np.where(start[:, None], after, moved) + emit[t]
            beta[t] = np.where((t < inputs)[:, None], beta[t], -np.inf)
        with np.errstate(invalid="ignore", over="ignore"):
            posterior = np.exp(alpha + beta + nll[None, :, None] - emit)
        posterior = np.where(np.isfinite(emit), posterior, 0.0)
        grad = np.exp(lp)
        scattered = np.zeros_like(grad)
        t_idx, n_idx = np.meshgrid(np.arange(steps), rows, indexing="ij")
        np.add.at(
            scattered,
            (t_idx[..., None], n_idx[..., None], np.broadcast_to(extended, (steps, batch, width))),
            posterior,
        )
        grad -= scattered
        grad[np.arange(steps)[:, None] >= inputs[None, :]] = 0.0
        if self.zero_infinity:
            grad[:, infinite, :] = 0.0
        return grad.astype(self.dtype)

    def backward(self, grad: Gradient, needs: Sequence[bool]) -> Gradient:
        gx: Gradient = vjp.call(_CtcGradient, grad, self.inputs()[0], base=self.base)
        return gx


def _check(log_probs: Tensor, targets: Any, input_lengths: Array, target_lengths: Array) -> Array:
    """PyTorch's argument checks; the targets as a padded ``(N, S)`` int64 array."""
    steps, batch = log_probs.shape[0], log_probs.shape[1]
    if input_lengths.shape[0] != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if target_lengths.shape[0] != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    data = targets._data if vjp.is_tensor(targets) else np.asarray(targets)
    longest = int(target_lengths.max()) if batch else 0
    if data.ndim == 1:
        total = int(target_lengths.sum())
        if data.shape[0] != total:
            raise RuntimeError(
                f"Expected tensor to have size {total} at dimension 0, but got size "
                f"{data.shape[0]} for argument #2 'targets' {_CHECKING}"
            )
        padded = np.zeros((batch, longest), dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(target_lengths)])
        for n in range(batch):
            padded[n, : target_lengths[n]] = data[offsets[n] : offsets[n + 1]]
    else:
        if data.shape[0] != batch:
            raise RuntimeError(
                f"Expected tensor to have size {batch} at dimension 0, but got size "
                f"{data.shape[0]} for argument #2 'targets' {_CHECKING}"
            )
        if data.shape[1] < longest:
            raise RuntimeError(
                f"Expected tensor to have size at least {longest} at dimension 1, but got size "
                f"{data.shape[1]} for argument #2 'targets' {_CHECKING}"
            )
        padded = data[:, :longest].astype(np.int64)
    for n in range(batch):
        if input_lengths[n] > steps:
            raise RuntimeError(
                f"Expected input_lengths to have value at most {steps}, but got value "
                f"{input_lengths[n]} {_CHECKING}"
            )
    return padded


def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str | int = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """The connectionist temporal classification loss.

    Args:
        log_probs (Tensor): ``(T, N, C)`` or unbatched ``(T, C)`` log-probabilities (the output of
            ``log_softmax``).
        targets (Tensor): ``(N, S)`` padded class indices, or the targets of all samples
            concatenated ``(sum(target_lengths),)``; never ``blank``.
        input_lengths (Tensor or tuple of int): ``(N,)``, the time steps of each sample, at most T.
        target_lengths (Tensor or tuple of int): ``(N,)``, the length of each target.
        blank (int): the blank label. Default: 0.
        reduction (str): ``"none"`` (a loss per sample), ``"mean"`` (each loss divided by its
            target length, then the batch mean) or ``"sum"``. Default: ``"mean"``.
        zero_infinity (bool): zero the infinite losses (inputs too short for their target) and
            their gradients. Default: False.

    Returns:
        Tensor: the loss; ``(N,)`` with ``"none"``.

    Examples:
        >>> log_probs = nl.zeros(3, 1, 2)  # every step: log 1 for each of 2 classes
        >>> F.ctc_loss(log_probs, nl.tensor([[1]]), [3], [1], reduction="sum")
        tensor(-1.7918)
    """
    if isinstance(reduction, int):
        reduction = _REDUCTIONS[reduction]
    batched = log_probs.dim() == 3
    lp = log_probs if batched else log_probs.unsqueeze(1)
    if not batched:
        targets = targets.unsqueeze(0) if vjp.is_tensor(targets) else [targets]
    inputs, lengths = _lengths(input_lengths), _lengths(target_lengths)
    padded = _check(lp, targets, inputs, lengths)
    losses: Tensor = CtcLoss.apply(
        lp,
        targets=padded,
        target_lengths=lengths,
        input_lengths=inputs,
        blank=int(blank),
        zero_infinity=bool(zero_infinity),
        dtype=lp._data.dtype,
    )
    if reduction == "none":
        return losses if batched else losses.squeeze(0)
    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        out: Tensor = (losses / np.maximum(lengths, 1).astype(losses._data.dtype)).mean()
        return out
    raise ValueError(f"{reduction} is not a valid value for reduction")


def torch_ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: int = 0,
    zero_infinity: bool = False,
) -> Tensor:
    """``torch.ctc_loss``: ``F.ctc_loss`` with the reduction as PyTorch's integer code
    (0 none, 1 mean, 2 sum; without it, a loss per sample, as ``torch.ctc_loss`` gives).

    Args:
        log_probs (Tensor): ``(T, N, C)`` log-probabilities.
        targets (Tensor): padded ``(N, S)`` or concatenated targets.
        input_lengths (Tensor or tuple of int): ``(N,)``.
        target_lengths (Tensor or tuple of int): ``(N,)``.
        blank (int): the blank label. Default: 0.
        reduction (int): 0, 1 or 2. Default: 0.
        zero_infinity (bool): zero infinite losses. Default: False.

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.ctc_loss(nl.zeros(3, 1, 2), nl.tensor([[1]]), [3], [1])
        tensor([-1.7918])
    """
    return ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity
    )
