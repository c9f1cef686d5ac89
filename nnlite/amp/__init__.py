"""``nl.amp`` (PyTorch's ``torch.amp``): the mixed-precision interface, honest about nnlite.

nnlite computes in float32 and float64 only (numpy has no bfloat16 arithmetic), so
``autocast`` runs its region in the inputs' own dtypes: on the CPU it is a documented no-op
(it warns once when asked for a lower precision), and for ``device_type="cuda"`` it warns and
disables itself as PyTorch does without CUDA. ``GradScaler`` behaves as PyTorch's disabled scaler:
float32 gradients do not underflow, so there is nothing to scale.
"""

from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "is_autocast_available"]
