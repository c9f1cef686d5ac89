"""``Flatten``."""
from .. import functional as F
from .module import Module

__all__ = ["Flatten"]


class Flatten(Module):
    """Merge dimensions ``start_dim`` (default 1, keeping the batch) to ``end_dim`` into one."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
