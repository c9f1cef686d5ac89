"""Constant padding and ``pad``; negative amounts crop, so the op's backward is itself with the amounts negated."""
import numpy as np

from ...autograd.op import Op
from ...autograd.ops import vjp


class ConstantPad(Op):
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (left, right, top, bottom, ...)``, last dim first."""

    node_name = "ConstantPadNdBackward0"
    value = 0

    def forward(self, x):
        pad = self.pad
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
        out = np.full(shape, self.value, dtype=x.dtype)
        out[tuple(dst)] = x[tuple(src)]
        return out

    def backward(self, grad, needs):
        return vjp.call(ConstantPad, grad, pad=tuple(-p for p in self.pad), value=0)


def pad(input, pad, mode="constant", value=None):
    """Pad the last dimensions: ``pad = (left, right, top, bottom, ...)``; negative values crop.

    Only ``mode="constant"`` is supported.

    Example:
        >>> F.pad(nl.ones(1, 2), (1, 1))
        tensor([[0., 1., 1., 0.]])
    """
    if mode != "constant":
        raise NotImplementedError(f"F.pad: mode '{mode}' is not supported by nnlite (only 'constant')")
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input._data.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input._data.ndim}")
    return ConstantPad.apply(input, pad=pad, value=0 if value is None else value)
