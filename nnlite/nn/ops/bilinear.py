"""``bilinear``: ``x1^T A x2 + b`` per output feature, an ``einsum`` (so every order of gradient)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    Args:
        input1 (Tensor): ``(*, in1)``.
        input2 (Tensor): ``(*, in2)``, the same leading dimensions.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``.

    Returns:
        Tensor: ``(*, out)``.

    Examples:
        >>> F.bilinear(nl.ones(2, 3), nl.ones(2, 4), nl.ones(5, 3, 4)).shape
        nnlite.Size([2, 5])
    """
    from ...autograd.ops.einsum import einsum

    if input1.shape[:-1] != input2.shape[:-1]:
        raise RuntimeError(
            f"bilinear(): input batch dimensions do not match: got {list(input1.shape[:-1])} and "
            f"{list(input2.shape[:-1])}"
        )
    if (
        weight.ndim != 3
        or input1.shape[-1] != weight.shape[1]
        or input2.shape[-1] != weight.shape[2]
    ):
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match the "
            f"weight's {list(weight.shape)}"
        )
    lead = tuple(input1.shape[:-1])
    flat1, flat2 = input1.reshape(-1, input1.shape[-1]), input2.reshape(-1, input2.shape[-1])
    out = einsum("bi,oij,bj->bo", flat1, weight, flat2).reshape(*lead, weight.shape[0])
    result: Tensor = out if bias is None else out + bias
    return result
