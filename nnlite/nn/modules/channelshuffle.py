"""``ChannelShuffle``: interleave the channels of groups (ShuffleNet)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import functional as F
from .module import Module

if TYPE_CHECKING:
    from ...autograd.tensor import Tensor


__all__ = ["ChannelShuffle"]


class ChannelShuffle(Module):
    """Read ``(N, g * c, *)`` as ``(N, g, c, *)`` and transpose the groups with the channels.

    Args:
        groups (int): the number of groups; divides the channels.

    Examples:
        >>> nn.ChannelShuffle(2)
        ChannelShuffle(groups=2)
    """

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
