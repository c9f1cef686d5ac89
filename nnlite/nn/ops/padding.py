"""Constant padding; negative amounts crop, so the op's backward is itself with the amounts negated."""
import numpy as np

from ...autograd.function import Function


class ConstantPad(Function):
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right, top, bottom, ...)``, last dim first."""

    _array_forward = True
    node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, pad, value):
        nd = x.ndim
        shape = list(x.shape)
        src, dst = [slice(None)] * nd, [slice(None)] * nd
        for k in range(len(pad) // 2):
            d = nd - 1 - k
            lo, hi = pad[2 * k], pad[2 * k + 1]
            n = x.shape[d]
            new = n + lo + hi
            if new < 0:
                raise RuntimeError(f"The input size {n}, plus negative padding {lo} and {hi} resulted in a negative "
                                   f"output size, which is invalid. Check dimension {d} of your input.")
            shape[d] = new
            src[d] = slice(max(-lo, 0), n - max(-hi, 0))
            dst[d] = slice(max(lo, 0), new - max(hi, 0))
        out = np.full(shape, value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    @staticmethod
    def backward(ctx, grad):
        return ConstantPad.apply(grad, pad=tuple(-p for p in ctx._params["pad"]), value=0)
