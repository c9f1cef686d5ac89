"""Shape ops (views where numpy gives views), joining, and indexing with its scatter backward."""
import numpy as np

from ..function import Function
from ..tensor import _make


class _ShapeOp(Function):
    _array_forward = True


class Reshape(_ShapeOp):
    node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        try:
            return a.reshape(shape)
        except ValueError:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size "
                               f"{a.size}") from None

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.shape)


class Permute(_ShapeOp):
    @staticmethod
    def forward(ctx, a, dims):
        if sorted(dims) != list(range(a.ndim)):
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match "
                               f"the length of the desired ordering of dimensions i.e. input.dim() = {a.ndim} "
                               f"is not equal to len(dims) = {len(dims)}" if len(dims) != a.ndim
                               else f"permute(): duplicate or out-of-range dims in {tuple(dims)}")
        return a.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx._params["dims"])))


class Expand(_ShapeOp):
    @staticmethod
    def forward(ctx, a, shape):
        ctx.shape = a.shape
        try:
            return np.broadcast_to(a, shape)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the existing size "
                               f"({a.shape[-1] if a.ndim else 1}) at non-singleton dimension {len(shape) - 1}.  "
                               f"Target sizes: [{', '.join(map(str, shape))}].  Tensor sizes: "
                               f"[{', '.join(map(str, a.shape))}]") from None

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.shape)


class Cat(_ShapeOp):
    """``cat(tensors, dim)``: inputs are the positional arguments."""

    @staticmethod
    def forward(ctx, *arrays, dim=0):
        ctx.sizes = [a.shape[dim] for a in arrays]
        try:
            return np.concatenate(arrays, axis=dim)
        except ValueError as e:
            raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}: "
                               f"{[tuple(a.shape) for a in arrays]}") from e

    @staticmethod
    def backward(ctx, grad):
        dim = ctx._params.get("dim", 0)
        out, start = [], 0
        for size in ctx.sizes:
            out.append(grad.narrow(dim, start, size))
            start += size
        return tuple(out)


class Stack(_ShapeOp):
    @staticmethod
    def forward(ctx, *arrays, dim=0):
        shapes = {a.shape for a in arrays}
        if len(shapes) > 1:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {[tuple(a.shape) for a in arrays]}")
        return np.stack(arrays, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        dim = ctx._params.get("dim", 0)
        return tuple(grad.select(dim, i) for i in range(grad.shape[dim]))


class GetItem(_ShapeOp):
    """``a[index]``; backward scatters into zeros, accumulating repeated advanced indices."""

    node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, a, index):
        ctx.shape = a.shape
        try:
            return a[index]
        except IndexError as e:
            raise IndexError(str(e).replace("axis", "dimension")) from None

    @staticmethod
    def backward(ctx, grad):
        return IndexAddZeros.apply(grad, shape=ctx.shape, index=ctx._params["index"])


class IndexAddZeros(_ShapeOp):
    """Zeros of ``shape`` with ``grad`` added at ``index``; the adjoint of indexing."""

    @staticmethod
    def forward(ctx, grad, shape, index):
        out = np.zeros(shape, dtype=grad.dtype)
        if isinstance(index, tuple) and len(index) == 3 and index[0] == "along":
            _, dim, idx = index
            np.add.at(out, _along_axis_index(idx, dim), grad)  # add: repeated indices accumulate
        elif _is_basic(index):
            out[index] = grad
        else:
            np.add.at(out, index, grad)
        return out

    @staticmethod
    def backward(ctx, grad):
        index = ctx._params["index"]
        if isinstance(index, tuple) and len(index) == 3 and index[0] == "along":
            _, dim, idx = index
            return GatherAlong.apply(grad, dim=dim, index=idx)
        return grad[index]


class GatherAlong(_ShapeOp):
    @staticmethod
    def forward(ctx, a, dim, index):
        ctx.shape = a.shape
        return np.take_along_axis(a, index, axis=dim)

    @staticmethod
    def backward(ctx, grad):
        p = ctx._params
        return IndexAddZeros.apply(grad, shape=ctx.shape, index=("along", p["dim"], p["index"]))


class IndexPut(_ShapeOp):
    """``a[index] = value`` recorded in place: the result *is* ``a``'s array, updated."""

    @staticmethod
    def forward(ctx, a, value, index):
        ctx.value_shape = np.shape(value)
        assign(a, index, value)
        return a

    @staticmethod
    def backward(ctx, grad):
        from .arithmetic import sum_to
        index = ctx._params["index"]
        ga = gv = None
        if ctx.next_functions[0][0] is not None:
            ga = grad * _zeros_at(grad, index)
        if ctx.next_functions[1][0] is not None:
            gv = grad[index]
            gv = gv.reshape(ctx.value_shape) if gv.ndim < len(ctx.value_shape) else sum_to(gv, ctx.value_shape)
        return ga, gv


def assign(a, index, value):
    """``a[index] = value`` with PyTorch's leniency: leading size-1 dims of ``value`` may be dropped."""
    try:
        a[index] = value
    except ValueError:
        target = a[index].shape
        value = np.asarray(value)
        extra = value.ndim - len(target)
        if extra > 0 and all(s == 1 for s in value.shape[:extra]):
            a[index] = value.reshape(value.shape[extra:])
        else:
            raise RuntimeError(f"shape mismatch: value tensor of shape [{', '.join(map(str, value.shape))}] cannot "
                               f"be broadcast to indexing result of shape [{', '.join(map(str, target))}]") from None


def _along_axis_index(idx, dim):
    """The fancy index that ``take_along_axis(a, idx, dim)`` reads, usable with ``np.add.at``."""
    grids = np.indices(idx.shape, sparse=True)
    return tuple(idx if d == dim else grids[d] for d in range(idx.ndim))


def _zeros_at(like, index):
    keep = np.ones(like.shape, dtype=like._data.dtype)
    keep[index] = 0
    return _make(keep)


def _is_basic(index):
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer)) for i in items)
