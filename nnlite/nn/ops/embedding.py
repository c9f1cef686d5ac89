"""``embedding``: rows of a weight matrix picked by index (gradients accumulate on repeated rows)."""
import numpy as np

from ...autograd.grad_mode import no_grad
from ...autograd.ops.where import Where


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """The rows ``weight[input]``; the ``padding_idx`` row gets no gradient, and with ``max_norm``
    the looked-up rows are first renormalised in place to norm at most ``max_norm`` (as PyTorch).

    Example:
        >>> weight = nl.eye(3)
        >>> F.embedding(nl.tensor([2, 0]), weight)
        tensor([[0., 0., 1.],
                [1., 0., 0.]])
    """
    indices = input._data
    if indices.dtype.kind not in "iu":
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.dtype} instead (while checking arguments for embedding)")
    rows = weight.shape[0]
    if indices.size and (indices.min() < -rows or indices.max() >= rows):
        raise IndexError("index out of range in self")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse gradients are not supported by nnlite")
    if max_norm is not None:
        with no_grad():
            used = np.unique(indices % rows)
            norms = np.linalg.norm(weight._data[used], ord=norm_type, axis=1)
            scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
            weight._data[used] *= scale[:, None].astype(weight._data.dtype)
            weight._bump_version()
    out = weight[indices]
    if padding_idx is not None:
        padding = padding_idx % rows
        keep_gradient = (indices % rows != padding)[..., None]
        if not keep_gradient.all():
            out = Where.apply(keep_gradient, out, out.detach())
    return out
