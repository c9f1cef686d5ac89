"""bfloat16, which numpy lacks: read as float32 (its upper 16 bits)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._typing import Array

__all__ = ["bfloat16_to_float32"]


def bfloat16_to_float32(raw: Array) -> Array:
    """float32 values of the bfloat16 bit patterns in the little-endian uint16 array ``raw``;
    exact, since bfloat16 is float32 with the low 16 mantissa bits dropped."""
    return (raw.astype("<u4") << 16).view("<f4")
