"""``CrossMapLRN2d``: PyTorch's legacy cross-channel local response normalisation layer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ops.cross_map_lrn import CrossMapLRN
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor

__all__ = ["CrossMapLRN2d"]


class CrossMapLRN2d(Module):
    """Local response normalisation across channels of ``(N, C, H, W)`` input, with PyTorch's
    legacy values and gradients (its backward is not the exact derivative of its forward; see
    ``nnlite/nn/ops/cross_map_lrn.py``). ``LocalResponseNorm`` is the exact form.

    Args:
        size (int): the channels in the window.
        alpha (float): the scale of the squares' sum. Default: 1e-4.
        beta (float): the exponent. Default: 0.75.
        k (float): the additive constant. Default: 1.

    Examples:
        >>> lrn = nn.CrossMapLRN2d(3, alpha=0.1)
        >>> lrn(nl.ones(1, 4, 2, 2)).shape
        nnlite.Size([1, 4, 2, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        result: Tensor = CrossMapLRN.apply(
            input, size=self.size, alpha=self.alpha, beta=self.beta, k=self.k
        )
        return result

    def extra_repr(self) -> str:
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
