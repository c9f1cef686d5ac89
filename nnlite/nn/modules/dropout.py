"""``Dropout``, ``Dropout1d``, ``Dropout2d``, ``Dropout3d``, ``AlphaDropout``, ``FeatureAlphaDropout``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = [
    "Dropout",
    "Dropout1d",
    "Dropout2d",
    "Dropout3d",
    "AlphaDropout",
    "FeatureAlphaDropout",
]


class Dropout(Module):
    """In training, zero each element with probability ``p`` and scale the rest by ``1/(1-p)``;
    in eval mode, the identity.

    Args:
        p (float): the probability of zeroing an element. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> m = nn.Dropout(p=0.5)
        >>> y = m(nl.ones(1000))
        >>> sorted(set(y.tolist()))  # zeroed, or scaled by 1 / (1 - p)
        [0.0, 2.0]
        >>> m.eval()(nl.ones(3))
        tensor([1., 1., 1.])
    """

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    """Zero whole channels of (N, C, L) input with probability ``p`` (training only).

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.Dropout1d(p=0.5)(nl.ones(2, 3, 4)).shape
        nnlite.Size([2, 3, 4])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    """Zero whole channels of (N, C, H, W) input with probability ``p`` (training only).

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.Dropout2d(p=0.5)(nl.ones(2, 3, 4, 4)).shape
        nnlite.Size([2, 3, 4, 4])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(Dropout):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) input with probability ``p``.

    Args:
        p (float): the probability of zeroing a channel. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.Dropout3d(p=0.5)(nl.ones(2, 3, 2, 2, 2)).shape
        nnlite.Size([2, 3, 2, 2, 2])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(Dropout):
    """Alpha dropout for SELU networks: keeps zero mean and unit variance (training only).

    Args:
        p (float): the probability of dropping an element. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.AlphaDropout(0.2)
        AlphaDropout(p=0.2, inplace=False)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(Dropout):
    """Alpha dropout of whole channels (training only).

    Args:
        p (float): the probability of dropping a channel. Default: 0.5.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.FeatureAlphaDropout(0.2)(nl.ones(2, 3, 4)).shape
        nnlite.Size([2, 3, 4])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)
