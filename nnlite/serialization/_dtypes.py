"""bfloat16, which numpy lacks: read as float32 (its upper 16 bits)."""

__all__ = ["bfloat16_to_float32"]


def bfloat16_to_float32(raw):
    """float32 values of the bfloat16 bit patterns in the little-endian uint16 array ``raw``;
    exact, since bfloat16 is float32 with the low 16 mantissa bits dropped."""
    return (raw.astype("<u4") << 16).view("<f4")
