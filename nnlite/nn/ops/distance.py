"""Similarities and distances between rows, and ``normalize``: composites of existing ops."""


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``x1 . x2 / max(|x1| |x2|, eps)`` along ``dim`` (inputs broadcast).

    Example:
        >>> F.cosine_similarity(nl.tensor([[1., 0.]]), nl.tensor([[1., 1.]]))
        tensor([0.7071])
    """
    dot = (x1 * x2).sum(dim)
    squared_norms = (x1 * x1).sum(dim) * (x2 * x2).sum(dim)
    return dot / squared_norms.clamp(min=eps * eps).sqrt()


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension."""
    return (x1 - x2 + eps).norm(p, dim=-1, keepdim=keepdim)


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input / max(|input|_p, eps)`` along ``dim``."""
    result = input / input.norm(p, dim=dim, keepdim=True).clamp(min=eps)
    return result if out is None else out.copy_(result)
