"""The neural-network functions under PyTorch's top-level names (``torch.batch_norm``,
``torch.conv3d``, ``torch.lstm``, ...), with the signatures of PyTorch's native functions.

These forms differ from ``nn.functional``'s: losses take ``reduction`` as an int (0 none, 1 mean,
2 sum), ``embedding`` takes the weight first, ``batch_norm`` orders weight and bias before the
running statistics and ends with ``cudnn_enabled`` (nothing to switch on the CPU), dropout takes
``train``, ``grid_sampler`` takes its modes as ints, and the recurrent functions take flat lists of
weights. Each one calls the ``nn.functional`` op that does the work, so values and gradients are
that op's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .autograd.tensor import Tensor

__all__ = [
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "avg_pool1d", "max_pool1d",
    "max_pool1d_with_indices", "max_pool3d", "conv3d", "conv_transpose1d", "conv_transpose3d",
    "convolution", "conv_tbc", "batch_norm", "instance_norm", "embedding", "embedding_bag",
    "embedding_renorm_",
    "selu", "selu_", "celu", "celu_", "threshold", "threshold_", "rrelu", "rrelu_", "hardshrink",
    "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "feature_dropout", "feature_dropout_", "dropout_", "bilinear",
    "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss", "cosine_embedding_loss",
    "hinge_embedding_loss", "margin_ranking_loss", "triplet_margin_loss", "pdist", "rms_norm",
    "channel_shuffle", "constant_pad_nd", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
    "affine_grid_generator", "norm_except_dim", "lstm_cell", "gru_cell", "rnn_tanh_cell",
    "rnn_relu_cell", "lstm", "gru", "rnn_tanh", "rnn_relu",
]  # fmt: skip


def _F() -> Any:
    from .nn import functional

    return functional


_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction: int) -> str:
    """PyTorch's native reduction enum (0 none, 1 mean, 2 sum) as ``nn.functional``'s string."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _REDUCTIONS[reduction]


def _stride(stride: Any) -> Any:
    """A native pooling ``stride``: empty means the kernel size (``None`` in nn.functional)."""
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        return None
    return stride


# ------------------------------------------------------------------------------- pooling
def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """1-D adaptive average pooling of ``(N, C, L)`` or ``(C, L)`` input.

    Args:
        input (Tensor): the input.
        output_size (int or tuple of one int): the output length.

    Returns:
        Tensor: the pooled input.

    Examples:
        >>> nl.adaptive_avg_pool1d(nl.tensor([[[1., 2., 3., 4.]]]), 2)
        tensor([[[1.5000, 3.5000]]])
    """
    result: Tensor = _F().adaptive_avg_pool1d(input, output_size)
    return result


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """1-D adaptive max pooling: the maxima and their indices (always both, as PyTorch's native form).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        output_size (int or tuple of one int): the output length.

    Returns:
        tuple of Tensors: the maxima and their int64 indices.

    Examples:
        >>> nl.adaptive_max_pool1d(nl.tensor([[[1., 4., 3., 2.]]]), 2)
        (tensor([[[4., 3.]]]), tensor([[[1, 2]]]))
    """
    values, indices = _F().adaptive_max_pool1d(input, output_size, return_indices=True)
    return values, indices


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """1-D average pooling (an empty ``stride`` means the kernel size).

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window.
        stride (int or tuple): the step. Default: the kernel size.
        padding (int or tuple): zeros on both sides. Default: 0.
        ceil_mode (bool): round the output length up. Default: False.
        count_include_pad (bool): average the padding zeros too. Default: True.

    Returns:
        Tensor: the pooled input.

    Examples:
        >>> nl.avg_pool1d(nl.tensor([[[1., 2., 3., 4.]]]), 2)
        tensor([[[1.5000, 3.5000]]])
    """
    result: Tensor = _F().avg_pool1d(
        input, kernel_size, _stride(stride), padding, ceil_mode, count_include_pad
    )
    return result


def max_pool1d_with_indices(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> tuple[Tensor, Tensor]:
    """1-D max pooling: the maxima and their indices.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window.
        stride (int or tuple): the step. Default: the kernel size.
        padding (int or tuple): implicit ``-inf`` on both sides. Default: 0.
        dilation (int or tuple): the spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output length up. Default: False.

    Returns:
        tuple of Tensors: the maxima and their int64 indices.

    Examples:
        >>> nl.max_pool1d_with_indices(nl.tensor([[[1., 4., 3., 2.]]]), 2)
        (tensor([[[4., 3.]]]), tensor([[[1, 2]]]))
    """
    out = _F().max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)
    return out[0], out[1]


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """1-D max pooling.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window.
        stride (int or tuple): the step. Default: the kernel size.
        padding (int or tuple): implicit ``-inf`` on both sides. Default: 0.
        dilation (int or tuple): the spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output length up. Default: False.

    Returns:
        Tensor: the maxima.

    Examples:
        >>> nl.max_pool1d(nl.tensor([[[1., 4., 3., 2.]]]), 2)
        tensor([[[4., 3.]]])
    """
    result: Tensor = _F().max_pool1d(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )
    return result


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = (),
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """3-D max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input.

    Args:
        input (Tensor): the input.
        kernel_size (int or tuple): the window.
        stride (int or tuple): the step. Default: the kernel size.
        padding (int or tuple): implicit ``-inf`` on each side. Default: 0.
        dilation (int or tuple): the spacing of the window's elements. Default: 1.
        ceil_mode (bool): round the output size up. Default: False.

    Returns:
        Tensor: the maxima.

    Examples:
        >>> nl.max_pool3d(nl.ones(1, 1, 2, 2, 2), 2).shape
        nnlite.Size([1, 1, 1, 1, 1])
    """
    result: Tensor = _F().max_pool3d(
        input, kernel_size, _stride(stride), padding, dilation, ceil_mode
    )
    return result


# ------------------------------------------------------------------------------- convolution
def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D convolution (as ``nn.functional.conv3d``).

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or unbatched.
        weight (Tensor): ``(C_out, C_in / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple): the step. Default: 1.
        padding (int, tuple or str): zeros on each side, or ``"valid"``/``"same"``. Default: 0.
        dilation (int or tuple): the spacing of the kernel's elements. Default: 1.
        groups (int): blocked connections from input to output channels. Default: 1.

    Returns:
        Tensor: the convolution.

    Examples:
        >>> nl.conv3d(nl.ones(1, 1, 2, 2, 2), nl.ones(1, 1, 2, 2, 2))
        tensor([[[[[8.]]]]])
    """
    result: Tensor = _F().conv3d(input, weight, bias, stride, padding, dilation, groups)
    return result


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """1-D transposed convolution (as ``nn.functional.conv_transpose1d``).

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_in, C_out / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple): the step. Default: 1.
        padding (int or tuple): removed from both sides of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): blocked connections. Default: 1.
        dilation (int or tuple): the spacing of the kernel's elements. Default: 1.

    Returns:
        Tensor: the transposed convolution.

    Examples:
        >>> nl.conv_transpose1d(nl.ones(1, 1, 2), nl.ones(1, 1, 2))
        tensor([[[1., 2., 1.]]])
    """
    result: Tensor = _F().conv_transpose1d(
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )
    return result


def conv_transpose3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """3-D transposed convolution (as ``nn.functional.conv_transpose3d``).

    Args:
        input (Tensor): ``(N, C_in, D, H, W)`` or unbatched.
        weight (Tensor): ``(C_in, C_out / groups, kD, kH, kW)``.
        bias (Tensor, optional): ``(C_out,)``.
        stride (int or tuple): the step. Default: 1.
        padding (int or tuple): removed from each side of the output. Default: 0.
        output_padding (int or tuple): added to one side of the output. Default: 0.
        groups (int): blocked connections. Default: 1.
        dilation (int or tuple): the spacing of the kernel's elements. Default: 1.

    Returns:
        Tensor: the transposed convolution.

    Examples:
        >>> nl.conv_transpose3d(nl.ones(1, 1, 1, 1, 1), nl.ones(1, 1, 2, 2, 2)).shape
        nnlite.Size([1, 1, 2, 2, 2])
    """
    result: Tensor = _F().conv_transpose3d(
        input, weight, bias, stride, padding, output_padding, groups, dilation
    )
    return result


def convolution(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Sequence[int],
    padding: Sequence[int],
    dilation: Sequence[int],
    transposed: bool,
    output_padding: Sequence[int],
    groups: int,
) -> Tensor:
    """The general convolution: 1-, 2- or 3-D by the input's rank, plain or transposed.

    Args:
        input (Tensor): ``(N, C_in, *)`` with one to three spatial dimensions.
        weight (Tensor): the kernel.
        bias (Tensor or None): ``(C_out,)``.
        stride (list of ints): the step per spatial dimension.
        padding (list of ints): the padding per spatial dimension.
        dilation (list of ints): the kernel spacing per spatial dimension.
        transposed (bool): a transposed convolution.
        output_padding (list of ints): transposed only: added to one side of the output.
        groups (int): blocked connections.

    Returns:
        Tensor: the convolution.

    Examples:
        >>> nl.convolution(nl.ones(1, 1, 3), nl.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1)
        tensor([[[2., 2.]]])
    """
    spatial = input.ndim - 2
    if spatial not in (1, 2, 3) or weight.ndim != input.ndim:
        raise RuntimeError(
            f"Expected {weight.ndim}D (unbatched) or {weight.ndim + 1}D (batched) input to "
            f"convolution, but got input of size: {list(input.shape)}"
        )
    F = _F()
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[spatial - 1]
        result: Tensor = fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
        return result
    fn = (F.conv1d, F.conv2d, F.conv3d)[spatial - 1]
    result = fn(input, weight, bias, stride, padding, dilation, groups)
    return result


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution of time-batch-channel input ``(T, N, C_in)`` (as ``nn.functional.conv_tbc``).

    Args:
        input (Tensor): ``(T, N, C_in)``.
        weight (Tensor): ``(k, C_in, C_out)``.
        bias (Tensor): ``(C_out,)``.
        pad (int): zeros on both ends of the time axis. Default: 0.

    Returns:
        Tensor: ``(T_out, N, C_out)``.

    Examples:
        >>> nl.conv_tbc(nl.ones(3, 1, 1), nl.ones(2, 1, 1), nl.zeros(1)).shape
        nnlite.Size([2, 1, 1])
    """
    result: Tensor = _F().conv_tbc(input, weight, bias, pad)
    return result


# ------------------------------------------------------------------------------- normalisation
def batch_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    training: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """Batch normalisation with PyTorch's native argument order (``cudnn_enabled`` is accepted:
    nothing to switch on the CPU).

    Args:
        input (Tensor): ``(N, C, *)``.
        weight (Tensor or None): the scale per channel.
        bias (Tensor or None): the shift per channel.
        running_mean (Tensor or None): the running mean, updated in training.
        running_var (Tensor or None): the running variance, updated in training.
        training (bool): normalise with the batch statistics (and update the running ones).
        momentum (float): the running statistics' update factor.
        eps (float): added to the variance.
        cudnn_enabled (bool): accepted for PyTorch's signature.

    Returns:
        Tensor: the normalised input.

    Examples:
        >>> nl.batch_norm(nl.tensor([[1.], [3.]]), None, None, None, None, True, 0.1, 0.0, False)
        tensor([[-1.],
                [ 1.]])
    """
    result: Tensor = _F().batch_norm(
        input, running_mean, running_var, weight, bias, training, momentum, eps
    )
    return result


def instance_norm(
    input: Tensor,
    weight: Tensor | None,
    bias: Tensor | None,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    use_input_stats: bool,
    momentum: float,
    eps: float,
    cudnn_enabled: bool,
) -> Tensor:
    """Instance normalisation with PyTorch's native argument order.

    Args:
        input (Tensor): ``(N, C, *)``.
        weight (Tensor or None): the scale per channel.
        bias (Tensor or None): the shift per channel.
        running_mean (Tensor or None): the running mean.
        running_var (Tensor or None): the running variance.
        use_input_stats (bool): normalise with each instance's statistics.
        momentum (float): the running statistics' update factor.
        eps (float): added to the variance.
        cudnn_enabled (bool): accepted for PyTorch's signature.

    Returns:
        Tensor: the normalised input.

    Examples:
        >>> nl.instance_norm(nl.tensor([[[1., 3.]]]), None, None, None, None, True, 0.1, 0.0, False)
        tensor([[[-1.,  1.]]])
    """
    result: Tensor = _F().instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )
    return result


def rms_norm(
    input: Tensor,
    normalized_shape: Sequence[int],
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalisation over the last dimensions (as ``nn.functional.rms_norm``).

    Args:
        input (Tensor): the input.
        normalized_shape (list of ints): the trailing dimensions to normalise over.
        weight (Tensor, optional): the scale, of ``normalized_shape``.
        eps (float, optional): added to the mean square. Default: the dtype's ``eps``.

    Returns:
        Tensor: the normalised input.

    Examples:
        >>> nl.rms_norm(nl.tensor([[3., 4.]]), [2], eps=0.0)
        tensor([[0.8485, 1.1314]])
    """
    result: Tensor = _F().rms_norm(input, normalized_shape, weight, eps)
    return result


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (weight normalisation's norm);
    ``dim=-1`` gives the norm of the whole tensor.

    Args:
        v (Tensor): the tensor.
        pow (float): the norm's order. Default: 2.
        dim (int): the dimension kept. Default: 0.

    Returns:
        Tensor: of ``v``'s rank, size one everywhere but ``dim`` (a scalar for ``dim=-1``).

    Examples:
        >>> nl.norm_except_dim(nl.tensor([[3., 4.], [0., 1.]]))
        tensor([[5.],
                [1.]])
    """
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.ndim if v.ndim else 0
    others = tuple(d for d in range(v.ndim) if d != dim)
    if not others:
        return v.abs() if pow != 0 else (v != 0).to(v.dtype)
    return v.norm(pow, dim=others, keepdim=True)


# ------------------------------------------------------------------------------- embeddings
def embedding(
    weight: Tensor,
    indices: Tensor,
    padding_idx: int = -1,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` picked by ``indices`` (PyTorch's native form: weight first;
    ``padding_idx=-1`` means none).

    Args:
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        indices (Tensor): int64 indices.
        padding_idx (int): the row that gets no gradient; -1 for none. Default: -1.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency in the batch. Default: False.
        sparse (bool): accepted; gradients are dense. Default: False.

    Returns:
        Tensor: ``indices.shape + (embedding_dim,)``.

    Examples:
        >>> nl.embedding(nl.tensor([[0., 1.], [2., 3.]]), nl.tensor([1]))
        tensor([[2., 3.]])
    """
    result: Tensor = _F().embedding(
        indices,
        weight,
        None if padding_idx == -1 else padding_idx,
        scale_grad_by_freq=scale_grad_by_freq,
        sparse=sparse,
    )
    return result


def embedding_bag(
    weight: Tensor,
    indices: Tensor,
    offsets: Tensor,
    scale_grad_by_freq: bool = False,
    mode: int = 0,
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Sums, means or maxima of bags of embeddings, in PyTorch's native form: weight first,
    ``mode`` an int (0 sum, 1 mean, 2 max), and three bookkeeping tensors after the result, as
    PyTorch's CPU kernel fills them: the bag of each index (``offset2bag``, empty for a float32 or
    float16 sum without ``padding_idx``), each bag's size (zeros for a sum) and, for max, the row of each maximum
    (for a mean, the bag sizes again; zeros for a sum).

    Args:
        weight (Tensor): ``(num_embeddings, embedding_dim)``.
        indices (Tensor): 1-D int64 indices of all bags.
        offsets (Tensor): each bag's start in ``indices``.
        scale_grad_by_freq (bool): scale gradients by the inverse frequency. Default: False.
        mode (int): 0 sum, 1 mean, 2 max. Default: 0.
        sparse (bool): accepted; gradients are dense. Default: False.
        per_sample_weights (Tensor, optional): a weight per index (sum only).
        include_last_offset (bool): ``offsets`` ends with the end of the last bag. Default: False.
        padding_idx (int, optional): an index left out of the bags.

    Returns:
        tuple of Tensors: ``(output, offset2bag, bag_size, max_indices)``.

    Examples:
        >>> w = nl.arange(6.).reshape(3, 2)
        >>> nl.embedding_bag(w, nl.tensor([0, 2, 1]), nl.tensor([0, 2]))[0]
        tensor([[4., 6.],
                [2., 3.]])
    """
    import numpy as np

    from .autograd.creation import tensor, zeros

    if mode not in (0, 1, 2):
        raise ValueError(f"embedding_bag(): mode must be 0 (sum), 1 (mean) or 2 (max), got {mode}")
    output = _F().embedding_bag(
        indices,
        weight,
        offsets,
        scale_grad_by_freq=scale_grad_by_freq,
        mode=("sum", "mean", "max")[mode],
        sparse=sparse,
        per_sample_weights=per_sample_weights,
        include_last_offset=include_last_offset,
        padding_idx=padding_idx,
    )
    index = np.asarray(indices._data).reshape(-1)
    starts = np.asarray(offsets._data).reshape(-1)
    bags = len(starts) - 1 if include_last_offset else len(starts)
    bag_of = np.minimum(np.searchsorted(starts, np.arange(len(index)), side="right") - 1, bags - 1)
    if mode == 0:
        # PyTorch's fast kernel (float32 and float16 without padding_idx) leaves it empty
        fast = padding_idx is None and weight._data.dtype in (np.float32, np.float16)
        offset2bag = np.zeros(0, dtype=np.int64) if fast else bag_of
        empty = zeros(len(starts), dtype=indices.dtype)
        return output, tensor(offset2bag.astype(np.int64)), empty, empty.clone()
    kept = index != padding_idx if padding_idx is not None else np.ones(len(index), dtype=bool)
    bag_size = np.bincount(bag_of[kept], minlength=bags).astype(np.int64)
    if mode == 1:
        extra = bag_size
    else:
        rows = np.asarray(weight._data)
        extra = np.zeros((bags, rows.shape[1]), dtype=np.int64)
        for bag in range(bags):
            members = index[(bag_of == bag) & kept]
            if len(members):
                extra[bag] = members[np.argmax(rows[members], axis=0)]
    return (
        output,
        tensor(bag_of.astype(np.int64)),
        tensor(bag_size),
        tensor(np.array(extra, dtype=np.int64)),
    )


def embedding_renorm_(input: Tensor, indices: Tensor, max_norm: float, norm_type: float) -> Tensor:
    """Rescale in place the rows of ``input`` named in ``indices`` whose ``norm_type``-norm exceeds
    ``max_norm`` to norm ``max_norm`` (what ``embedding(max_norm=...)`` does to its weight).

    Args:
        input (Tensor): the embedding matrix, changed in place.
        indices (Tensor): the rows to check.
        max_norm (float): the largest norm allowed.
        norm_type (float): the norm's order.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> w = nl.tensor([[3., 4.], [0., 1.]])
        >>> nl.embedding_renorm_(w, nl.tensor([0, 1]), 1.0, 2.0)
        tensor([[0.6000, 0.8000],
                [0.0000, 1.0000]])
    """
    import numpy as np

    from .autograd.grad_mode import no_grad

    rows = np.unique(np.asarray(indices._data).reshape(-1))
    with no_grad():
        data = input._data
        norms = np.linalg.norm(data[rows], ord=norm_type, axis=1) if rows.size else rows
        for row, norm in zip(rows, norms):
            if norm > max_norm:
                data[row] *= max_norm / (norm + 1e-7)
        input._bump_version()
    return input


# ------------------------------------------------------------------------------- activations
def selu(input: Tensor) -> Tensor:
    """SELU, ``scale * elu(input, alpha)`` with the self-normalising constants.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.selu(nl.tensor([1.]))
        tensor([1.0507])
    """
    result: Tensor = _F().selu(input)
    return result


def selu_(input: Tensor) -> Tensor:
    """In-place ``selu``.

    Args:
        input (Tensor): the input, overwritten.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.selu_(nl.tensor([1.]))
        tensor([1.0507])
    """
    result: Tensor = _F().selu(input, inplace=True)
    return result


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """CELU, ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``.

    Args:
        input (Tensor): the input.
        alpha (float): the negative saturation's scale. Default: 1.0.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.celu(nl.tensor([0., 2.]))
        tensor([0., 2.])
    """
    result: Tensor = _F().celu(input, alpha)
    return result


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place ``celu``.

    Args:
        input (Tensor): the input, overwritten.
        alpha (float): the negative saturation's scale. Default: 1.0.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.celu_(nl.tensor([0., 2.]))
        tensor([0., 2.])
    """
    result: Tensor = _F().celu(input, alpha, inplace=True)
    return result


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """``input`` where it is above ``threshold``, else ``value``.

    Args:
        input (Tensor): the input.
        threshold (float): the threshold.
        value (float): the replacement at or below it.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.threshold(nl.tensor([0., 2.]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    result: Tensor = _F().threshold(input, threshold, value)
    return result


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place ``threshold``.

    Args:
        input (Tensor): the input, overwritten.
        threshold (float): the threshold.
        value (float): the replacement at or below it.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.threshold_(nl.tensor([0., 2.]), 1.0, -1.0)
        tensor([-1.,  2.])
    """
    result: Tensor = _F().threshold(input, threshold, value, inplace=True)
    return result


def rrelu(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """Randomised leaky ReLU: a random negative slope in ``[lower, upper]`` when training, else
    their mean.

    Args:
        input (Tensor): the input.
        lower (float): the smallest slope. Default: 1/8.
        upper (float): the largest slope. Default: 1/3.
        training (bool): draw the slopes. Default: False.
        generator (nl.Generator, optional): accepted for PyTorch's signature; nnlite's generator draws.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.rrelu(nl.tensor([-1., 1.]), 0.5, 0.5)
        tensor([-0.5000,  1.0000])
    """
    result: Tensor = _F().rrelu(input, lower, upper, training)
    return result


def rrelu_(
    input: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    generator: Any = None,
) -> Tensor:
    """In-place ``rrelu``.

    Args:
        input (Tensor): the input, overwritten.
        lower (float): the smallest slope. Default: 1/8.
        upper (float): the largest slope. Default: 1/3.
        training (bool): draw the slopes. Default: False.
        generator (nl.Generator, optional): accepted for PyTorch's signature.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.rrelu_(nl.tensor([-1., 1.]), 0.5, 0.5)
        tensor([-0.5000,  1.0000])
    """
    result: Tensor = _F().rrelu(input, lower, upper, training, inplace=True)
    return result


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``input`` where ``|input| > lambd``, else zero.

    Args:
        input (Tensor): the input.
        lambd (float): the threshold. Default: 0.5.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.hardshrink(nl.tensor([-1., 0.2, 1.]))
        tensor([-1.,  0.,  1.])
    """
    result: Tensor = _F().hardshrink(input, lambd)
    return result


# ------------------------------------------------------------------------------- dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout (as ``nn.functional.alpha_dropout``, ``train`` for ``training``).

    Args:
        input (Tensor): the input.
        p (float): the probability of dropping an element.
        train (bool): apply it; False returns ``input``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.alpha_dropout(nl.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    result: Tensor = _F().alpha_dropout(input, p, train)
    return result


def alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``alpha_dropout``.

    Args:
        input (Tensor): the input, overwritten.
        p (float): the probability of dropping an element.
        train (bool): apply it.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.alpha_dropout_(nl.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    result: Tensor = _F().alpha_dropout(input, p, train, inplace=True)
    return result


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Alpha dropout of whole channels (as ``nn.functional.feature_alpha_dropout``).

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of dropping a channel.
        train (bool): apply it.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.feature_alpha_dropout(nl.ones(1, 2), 0.5, False)
        tensor([[1., 1.]])
    """
    result: Tensor = _F().feature_alpha_dropout(input, p, train)
    return result


def feature_alpha_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_alpha_dropout``.

    Args:
        input (Tensor): ``(N, C, *)``, overwritten.
        p (float): the probability of dropping a channel.
        train (bool): apply it.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.feature_alpha_dropout_(nl.ones(1, 2), 0.5, False)
        tensor([[1., 1.]])
    """
    result: Tensor = _F().feature_alpha_dropout(input, p, train, inplace=True)
    return result


def _feature_dropout(input: Tensor, p: float, train: bool, inplace: bool) -> Tensor:
    from .nn.ops.dropout import _feature_shape, _masked

    _check_p(p)
    if not train or p == 0 or input.numel() == 0:
        return input
    shape = _feature_shape(input._data)
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    result: Tensor = _masked(input, p, shape, inplace, alpha=False)
    return result


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """Dropout of whole channels of ``(N, C, *)`` input: each channel of each sample is zeroed
    with probability ``p``, the rest scaled by ``1 / (1 - p)``.

    Args:
        input (Tensor): ``(N, C, *)``.
        p (float): the probability of zeroing a channel.
        train (bool): apply it; False returns ``input``.

    Returns:
        Tensor: the result.

    Examples:
        >>> nl.feature_dropout(nl.ones(1, 2, 2), 1.0, True)
        tensor([[[0., 0.],
                 [0., 0.]]])
    """
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place ``feature_dropout``.

    Args:
        input (Tensor): ``(N, C, *)``, overwritten.
        p (float): the probability of zeroing a channel.
        train (bool): apply it.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.feature_dropout_(nl.ones(1, 2), 0.5, False)
        tensor([[1., 1.]])
    """
    return _feature_dropout(input, p, train, True)


def dropout_(input: Tensor, p: float, train: bool) -> Tensor:
    """In-place dropout (``train`` for ``training``).

    Args:
        input (Tensor): the input, overwritten.
        p (float): the probability of zeroing an element.
        train (bool): apply it.

    Returns:
        Tensor: ``input``.

    Examples:
        >>> nl.dropout_(nl.ones(2), 0.5, False)
        tensor([1., 1.])
    """
    result: Tensor = _F().dropout(input, p, train, inplace=True)
    return result


# ------------------------------------------------------------------------------- layers and losses
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``x1^T A x2 + b`` for each output feature (as ``nn.functional.bilinear``).

    Args:
        input1 (Tensor): ``(*, in1)``.
        input2 (Tensor): ``(*, in2)``.
        weight (Tensor): ``(out, in1, in2)``.
        bias (Tensor, optional): ``(out,)``.

    Returns:
        Tensor: ``(*, out)``.

    Examples:
        >>> nl.bilinear(nl.ones(1, 2), nl.ones(1, 2), nl.ones(1, 2, 2))
        tensor([[4.]])
    """
    result: Tensor = _F().bilinear(input1, input2, weight, bias)
    return result


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    pos_weight: Tensor | None = None,
    reduction: int = 0,
) -> Tensor:
    """Binary cross entropy of logits (native form: ``reduction`` 0 none, 1 mean, 2 sum).

    Args:
        input (Tensor): the logits.
        target (Tensor): the targets in [0, 1].
        weight (Tensor, optional): a weight per element (broadcast).
        pos_weight (Tensor, optional): the positive examples' weight per class.
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.binary_cross_entropy_with_logits(nl.tensor([0.]), nl.tensor([1.]))
        tensor([0.6931])
    """
    result: Tensor = _F().binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )
    return result


def kl_div(
    input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False
) -> Tensor:
    """The Kullback-Leibler divergence of log-probabilities ``input`` from ``target`` (native
    form: ``reduction`` 0 none, 1 mean over elements, 2 sum).

    Args:
        input (Tensor): log-probabilities.
        target (Tensor): probabilities (log-probabilities with ``log_target``).
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).
        log_target (bool): ``target`` holds log-probabilities. Default: False.

    Returns:
        Tensor: the divergence.

    Examples:
        >>> nl.kl_div(nl.tensor([0.]), nl.tensor([1.]))
        tensor([0.])
    """
    name = _reduction(reduction)  # "mean" here is the native one: no warning about "batchmean"
    out = _F().kl_div(
        input, target, reduction="none" if name == "mean" else name, log_target=log_target
    )
    result: Tensor = out.mean() if name == "mean" else out
    return result


def poisson_nll_loss(
    input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float, reduction: int
) -> Tensor:
    """The negative log-likelihood of ``target`` under a Poisson distribution of rate ``input``.

    Args:
        input (Tensor): the rate (its log with ``log_input``).
        target (Tensor): the counts.
        log_input (bool): ``input`` is the log rate.
        full (bool): add Stirling's term.
        eps (float): added inside the log when not ``log_input``.
        reduction (int): 0 none, 1 mean, 2 sum.

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.poisson_nll_loss(nl.tensor([0.]), nl.tensor([1.]), True, False, 1e-8, 1)
        tensor(1.)
    """
    result: Tensor = _F().poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )
    return result


def cosine_embedding_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """Cosine embedding loss (native form: ``reduction`` as an int).

    Args:
        input1 (Tensor): ``(N, D)`` or ``(D,)``.
        input2 (Tensor): like ``input1``.
        target (Tensor): 1 (similar) or -1 (dissimilar) per pair.
        margin (float): the dissimilar pairs' margin. Default: 0.
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.cosine_embedding_loss(nl.tensor([[1., 0.]]), nl.tensor([[1., 0.]]), nl.tensor([1.]))
        tensor([0.])
    """
    result: Tensor = _F().cosine_embedding_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )
    return result


def hinge_embedding_loss(
    input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0
) -> Tensor:
    """Hinge embedding loss (native form: ``reduction`` as an int).

    Args:
        input (Tensor): the distances.
        target (Tensor): 1 or -1 per element.
        margin (float): the margin of the -1 elements. Default: 1.
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.hinge_embedding_loss(nl.tensor([0.5]), nl.tensor([-1.]))
        tensor([0.5000])
    """
    result: Tensor = _F().hinge_embedding_loss(
        input, target, margin, reduction=_reduction(reduction)
    )
    return result


def margin_ranking_loss(
    input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, reduction: int = 0
) -> Tensor:
    """Margin ranking loss, ``max(0, -target * (input1 - input2) + margin)``.

    Args:
        input1 (Tensor): the first scores.
        input2 (Tensor): the second scores.
        target (Tensor): 1 where ``input1`` should rank higher, -1 where lower.
        margin (float): the margin. Default: 0.
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).

    Returns:
        Tensor: the loss.

    Examples:
        >>> nl.margin_ranking_loss(nl.tensor([1.]), nl.tensor([2.]), nl.tensor([1.]))
        tensor([1.])
    """
    result: Tensor = _F().margin_ranking_loss(
        input1, input2, target, margin, reduction=_reduction(reduction)
    )
    return result


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2.0,
    eps: float = 1e-6,
    swap: bool = False,
    reduction: int = 0,
) -> Tensor:
    """Triplet margin loss (native form: ``reduction`` as an int).

    Args:
        anchor (Tensor): ``(N, D)`` or ``(D,)``.
        positive (Tensor): like ``anchor``.
        negative (Tensor): like ``anchor``.
        margin (float): the margin. Default: 1.
        p (float): the distance's norm. Default: 2.
        eps (float): added to the differences. Default: 1e-6.
        swap (bool): use the positive-negative distance when smaller. Default: False.
        reduction (int): 0 none, 1 mean, 2 sum. Default: 0 (PyTorch's top-level
            form does not reduce unless asked).

    Returns:
        Tensor: the loss.

    Examples:
        >>> a = nl.tensor([[0., 0.]])
        >>> nl.triplet_margin_loss(a, a, nl.tensor([[3., 4.]]))
        tensor([0.])
    """
    result: Tensor = _F().triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )
    return result


def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The ``p``-norm distances between every pair of rows of ``(N, M)`` input (upper triangle).

    Args:
        input (Tensor): ``(N, M)``.
        p (float): the norm. Default: 2.

    Returns:
        Tensor: ``(N * (N - 1) / 2,)``.

    Examples:
        >>> nl.pdist(nl.tensor([[0., 0.], [3., 4.]]))
        tensor([5.])
    """
    result: Tensor = _F().pdist(input, p)
    return result


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of ``(N, C, *)`` input from ``groups`` groups.

    Args:
        input (Tensor): ``(N, C, *)``.
        groups (int): the number of groups; divides ``C``.

    Returns:
        Tensor: the shuffled input.

    Examples:
        >>> nl.channel_shuffle(nl.arange(4.).reshape(1, 4, 1), 2).flatten()
        tensor([0., 2., 1., 3.])
    """
    result: Tensor = _F().channel_shuffle(input, groups)
    return result


def constant_pad_nd(input: Tensor, pad: Sequence[int], value: float = 0) -> Tensor:
    """Pad the last dimensions with ``value`` (``pad`` as ``nn.functional.pad``'s: last dimension
    first, before then after; negative entries crop).

    Args:
        input (Tensor): the input.
        pad (list of ints): ``(left, right, top, bottom, ...)``.
        value (float): the fill. Default: 0.

    Returns:
        Tensor: the padded input.

    Examples:
        >>> nl.constant_pad_nd(nl.ones(2), [1, 0], 5.)
        tensor([5., 1., 1.])
    """
    result: Tensor = _F().pad(input, list(pad), "constant", value)
    return result


_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    if interpolation_mode not in _INTERPOLATION or padding_mode not in _PADDING:
        raise RuntimeError(
            f"grid_sampler(): unknown interpolation_mode {interpolation_mode} or padding_mode "
            f"{padding_mode} (0, 1 or 2 each)"
        )
    if input.ndim == 5:
        from .grid_sample_volume import grid_sample_volume

        if interpolation_mode == 2:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        return grid_sample_volume(
            input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners
        )
    result: Tensor = _F().grid_sample(
        input, grid, _INTERPOLATION[interpolation_mode], _PADDING[padding_mode], align_corners
    )
    return result


def grid_sampler(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """Sample ``input`` at ``grid``'s points (``grid_sample`` with its modes as ints:
    interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border, 2 reflection).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        grid (Tensor): ``(N, Ho, Wo, 2)`` or ``(N, Do, Ho, Wo, 3)`` in [-1, 1].
        interpolation_mode (int): 0, 1 or 2.
        padding_mode (int): 0, 1 or 2.
        align_corners (bool): -1 and 1 are the corner pixels' centres.

    Returns:
        Tensor: the samples.

    Examples:
        >>> nl.grid_sampler(nl.ones(1, 1, 2, 2), nl.zeros(1, 1, 1, 2), 0, 0, False)
        tensor([[[[1.]]]])
    """
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """``grid_sampler`` of 4-D input.

    Args:
        input (Tensor): ``(N, C, H, W)``.
        grid (Tensor): ``(N, Ho, Wo, 2)``.
        interpolation_mode (int): 0 bilinear, 1 nearest, 2 bicubic.
        padding_mode (int): 0 zeros, 1 border, 2 reflection.
        align_corners (bool): -1 and 1 are the corner pixels' centres.

    Returns:
        Tensor: ``(N, C, Ho, Wo)``.

    Examples:
        >>> nl.grid_sampler_2d(nl.ones(1, 1, 2, 2), nl.zeros(1, 1, 1, 2), 0, 0, False)
        tensor([[[[1.]]]])
    """
    if input.ndim != 4:
        raise RuntimeError(
            f"grid_sampler_2d(): expected 4D input, but got input with sizes {list(input.shape)}"
        )
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(
    input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """``grid_sampler`` of 5-D input.

    Args:
        input (Tensor): ``(N, C, D, H, W)``.
        grid (Tensor): ``(N, Do, Ho, Wo, 3)``, points ``(x, y, z)`` in [-1, 1].
        interpolation_mode (int): 0 trilinear, 1 nearest.
        padding_mode (int): 0 zeros, 1 border, 2 reflection.
        align_corners (bool): -1 and 1 are the corner voxels' centres.

    Returns:
        Tensor: ``(N, C, Do, Ho, Wo)``.

    Examples:
        >>> nl.grid_sampler_3d(nl.ones(1, 1, 2, 2, 2), nl.zeros(1, 1, 1, 1, 3), 0, 0, False)
        tensor([[[[[1.]]]]])
    """
    if input.ndim != 5:
        raise RuntimeError(
            f"grid_sampler_3d(): expected 5D input, but got input with sizes {list(input.shape)}"
        )
    return _grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta: Tensor, size: Sequence[int], align_corners: bool) -> Tensor:
    """The sampling grid of the affine maps ``theta`` (as ``nn.functional.affine_grid``).

    Args:
        theta (Tensor): ``(N, 2, 3)`` or ``(N, 3, 4)``.
        size (list of ints): the output size ``(N, C, H, W)`` or ``(N, C, D, H, W)``.
        align_corners (bool): -1 and 1 are the corner pixels' centres.

    Returns:
        Tensor: ``(N, H, W, 2)`` or ``(N, D, H, W, 3)``.

    Examples:
        >>> nl.affine_grid_generator(nl.tensor([[[1., 0., 0.], [0., 1., 0.]]]), [1, 1, 1, 1], False)
        tensor([[[[0., 0.]]]])
    """
    result: Tensor = _F().affine_grid(theta, list(size), align_corners)
    return result


# ------------------------------------------------------------------------------- recurrent
def _cell(mode: str, input: Tensor, states: tuple[Tensor, ...], weights: tuple[Any, ...]) -> Any:
    from .nn.modules.rnn import _run_direction

    batched = input.ndim == 2
    x = input if batched else input.unsqueeze(0)
    if not batched:
        states = tuple(s.unsqueeze(0) for s in states)
    _, final = _run_direction(mode, x.unsqueeze(0), states, weights)
    return tuple(f if batched else f.squeeze(0) for f in final)


def lstm_cell(
    input: Tensor,
    hx: Sequence[Tensor],
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> tuple[Tensor, Tensor]:
    """One LSTM step (gates in PyTorch's order i, f, g, o).

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (list of two Tensors): ``[h, c]``, each ``(N, H)``.
        w_ih (Tensor): ``(4H, H_in)``.
        w_hh (Tensor): ``(4H, H)``.
        b_ih (Tensor, optional): ``(4H,)``.
        b_hh (Tensor, optional): ``(4H,)``.

    Returns:
        tuple of Tensors: ``(h', c')``.

    Examples:
        >>> h, c = nl.lstm_cell(nl.ones(1, 2), [nl.zeros(1, 3)] * 2, nl.zeros(12, 2), nl.zeros(12, 3))
        >>> c
        tensor([[0., 0., 0.]])
    """
    h, c = _cell("LSTM", input, (hx[0], hx[1]), (w_ih, w_hh, b_ih, b_hh))
    return h, c


def gru_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """One GRU step (gates in PyTorch's order r, z, n).

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (Tensor): ``(N, H)``.
        w_ih (Tensor): ``(3H, H_in)``.
        w_hh (Tensor): ``(3H, H)``.
        b_ih (Tensor, optional): ``(3H,)``.
        b_hh (Tensor, optional): ``(3H,)``.

    Returns:
        Tensor: ``h'``.

    Examples:
        >>> nl.gru_cell(nl.ones(1, 2), nl.ones(1, 3), nl.zeros(9, 2), nl.zeros(9, 3))
        tensor([[0.5000, 0.5000, 0.5000]])
    """
    result: Tensor = _cell("GRU", input, (hx,), (w_ih, w_hh, b_ih, b_hh))[0]
    return result


def rnn_tanh_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """One Elman RNN step with tanh: ``tanh(input w_ih^T + b_ih + hx w_hh^T + b_hh)``.

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (Tensor): ``(N, H)``.
        w_ih (Tensor): ``(H, H_in)``.
        w_hh (Tensor): ``(H, H)``.
        b_ih (Tensor, optional): ``(H,)``.
        b_hh (Tensor, optional): ``(H,)``.

    Returns:
        Tensor: ``h'``.

    Examples:
        >>> nl.rnn_tanh_cell(nl.ones(1, 1), nl.zeros(1, 1), nl.zeros(1, 1), nl.zeros(1, 1))
        tensor([[0.]])
    """
    result: Tensor = _cell("RNN_TANH", input, (hx,), (w_ih, w_hh, b_ih, b_hh))[0]
    return result


def rnn_relu_cell(
    input: Tensor,
    hx: Tensor,
    w_ih: Tensor,
    w_hh: Tensor,
    b_ih: Tensor | None = None,
    b_hh: Tensor | None = None,
) -> Tensor:
    """One Elman RNN step with relu: ``relu(input w_ih^T + b_ih + hx w_hh^T + b_hh)``.

    Args:
        input (Tensor): ``(N, H_in)``.
        hx (Tensor): ``(N, H)``.
        w_ih (Tensor): ``(H, H_in)``.
        w_hh (Tensor): ``(H, H)``.
        b_ih (Tensor, optional): ``(H,)``.
        b_hh (Tensor, optional): ``(H,)``.

    Returns:
        Tensor: ``h'``.

    Examples:
        >>> nl.rnn_relu_cell(nl.ones(1, 1), nl.zeros(1, 1), nl.ones(1, 1), nl.zeros(1, 1))
        tensor([[1.]])
    """
    result: Tensor = _cell("RNN_RELU", input, (hx,), (w_ih, w_hh, b_ih, b_hh))[0]
    return result


def _recurrent(mode: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Tensor, ...]:
    """The layers of ``torch.lstm`` / ``gru`` / ``rnn_*`` in either native form: ``(input, hx,
    params, has_biases, num_layers, dropout, train, bidirectional, batch_first)`` or the packed
    ``(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``."""
    from .autograd.creation import cat, stack
    from .autograd.tensor import Tensor
    from .nn.modules.rnn import _pack_time_major, _run_direction, _unpack_time_major
    from .nn.utils.rnn import PackedSequence

    # the packed form has a Tensor of batch sizes where the other form has hx (LSTM: a list) or
    # params (the others: a list)
    position = 1 if mode == "LSTM" else 2
    packed = "batch_sizes" in kwargs or (
        len(args) > position and isinstance(args[position], Tensor)
    )
    common = ["hx", "params", "has_biases", "num_layers", "dropout", "train", "bidirectional"]
    names = ["data", "batch_sizes", *common] if packed else ["input", *common, "batch_first"]
    if len(args) > len(names):
        raise TypeError(f"{mode.lower()}() takes {len(names)} arguments but {len(args)} were given")
    bound = dict(zip(names, args))
    for key, value in kwargs.items():
        if key not in names or key in bound:
            raise TypeError(f"{mode.lower()}() got an unexpected or repeated argument '{key}'")
        bound[key] = value
    missing = [n for n in names if n not in bound]
    if missing:
        raise TypeError(f"{mode.lower()}() missing required argument '{missing[0]}'")
    params = list(bound["params"])
    has_biases, num_layers = bool(bound["has_biases"]), int(bound["num_layers"])
    dropout, train, bidirectional = (
        float(bound["dropout"]),
        bool(bound["train"]),
        bool(bound["bidirectional"]),
    )
    directions = 2 if bidirectional else 1
    per = 4 if has_biases else 2
    if len(params) != per * num_layers * directions:
        raise RuntimeError(
            f"{mode.lower()}(): expected {per * num_layers * directions} parameters "
            f"({per} per layer and direction), got {len(params)}"
        )
    states = tuple(bound["hx"]) if mode == "LSTM" else (bound["hx"],)
    batch_sizes = None
    if packed:
        sizes = bound["batch_sizes"]
        x = _unpack_time_major(PackedSequence(bound["data"], sizes))
        batch_sizes = tuple(int(n) for n in sizes._data)
        batch_first = False
    else:
        x = bound["input"]
        batch_first = bool(bound["batch_first"])
        if batch_first:
            x = x.transpose(0, 1)
    finals: list[list[Tensor]] = [[] for _ in states]
    for layer in range(num_layers):
        outs = []
        for direction in range(directions):
            k = layer * directions + direction
            group = params[k * per : (k + 1) * per]
            weights = (
                (group[0], group[1], group[2], group[3])
                if has_biases
                else (group[0], group[1], None, None)
            )
            out, final = _run_direction(
                mode, x, tuple(s[k] for s in states), weights, bool(direction), batch_sizes
            )
            outs.append(out)
            for store, value in zip(finals, final):
                store.append(value)
        x = outs[0] if directions == 1 else cat(outs, dim=2)
        if dropout and train and layer < num_layers - 1:
            x = _F().dropout(x, dropout, True)
    output = (
        _pack_time_major(x, bound["batch_sizes"]._data)
        if packed
        else (x.transpose(0, 1) if batch_first else x)
    )
    return (output, *(stack(f) for f in finals))


def lstm(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor, Tensor]:
    """A multi-layer LSTM over a sequence with flat weights, as ``torch.lstm`` (``nn.LSTM``'s
    computation). Two forms: ``lstm(input, hx, params, has_biases, num_layers, dropout, train,
    bidirectional, batch_first)`` and, for packed data, ``lstm(data, batch_sizes, hx, params,
    has_biases, num_layers, dropout, train, bidirectional)``.

    Args:
        *args: ``input`` ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``), ``hx`` the list
            ``[h0, c0]`` of ``(D * num_layers, N, H)``, ``params`` the weights per layer and direction
            (``w_ih, w_hh, b_ih, b_hh``, the biases only with ``has_biases``), ``has_biases``,
            ``num_layers``, ``dropout`` (between layers), ``train``, ``bidirectional``,
            ``batch_first``.
        **kwargs: the same by name.

    Returns:
        tuple of Tensors: ``(output, h_n, c_n)``.

    Examples:
        >>> w = [nl.zeros(8, 3), nl.zeros(8, 2)]
        >>> out, h, c = nl.lstm(nl.ones(4, 1, 3), [nl.zeros(1, 1, 2)] * 2, w, False, 1, 0.0, False, False, False)
        >>> out.shape, h.shape
        (nnlite.Size([4, 1, 2]), nnlite.Size([1, 1, 2]))
    """
    out, h, c = _recurrent("LSTM", args, kwargs)
    return out, h, c


def gru(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """A multi-layer GRU over a sequence with flat weights, as ``torch.gru``: ``gru(input, hx,
    params, has_biases, num_layers, dropout, train, bidirectional, batch_first)`` or the packed
    ``gru(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``.

    Args:
        *args: as ``lstm``'s, with ``hx`` one Tensor ``(D * num_layers, N, H)``.
        **kwargs: the same by name.

    Returns:
        tuple of Tensors: ``(output, h_n)``.

    Examples:
        >>> w = [nl.zeros(6, 3), nl.zeros(6, 2)]
        >>> out, h = nl.gru(nl.ones(4, 1, 3), nl.zeros(1, 1, 2), w, False, 1, 0.0, False, False, False)
        >>> out.shape
        nnlite.Size([4, 1, 2])
    """
    out, h = _recurrent("GRU", args, kwargs)
    return out, h


def rnn_tanh(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """A multi-layer Elman RNN with tanh over a sequence with flat weights, as ``torch.rnn_tanh``
    (the forms of ``gru``).

    Args:
        *args: as ``gru``'s.
        **kwargs: the same by name.

    Returns:
        tuple of Tensors: ``(output, h_n)``.

    Examples:
        >>> w = [nl.zeros(2, 3), nl.zeros(2, 2)]
        >>> out, h = nl.rnn_tanh(nl.ones(4, 1, 3), nl.zeros(1, 1, 2), w, False, 1, 0.0, False, False, False)
        >>> h
        tensor([[[0., 0.]]])
    """
    out, h = _recurrent("RNN_TANH", args, kwargs)
    return out, h


def rnn_relu(*args: Any, **kwargs: Any) -> tuple[Tensor, Tensor]:
    """A multi-layer Elman RNN with relu over a sequence with flat weights, as ``torch.rnn_relu``
    (the forms of ``gru``).

    Args:
        *args: as ``gru``'s.
        **kwargs: the same by name.

    Returns:
        tuple of Tensors: ``(output, h_n)``.

    Examples:
        >>> w = [nl.zeros(2, 3), nl.zeros(2, 2)]
        >>> out, h = nl.rnn_relu(nl.ones(4, 1, 3), nl.zeros(1, 1, 2), w, False, 1, 0.0, False, False, False)
        >>> h
        tensor([[[0., 0.]]])
    """
    out, h = _recurrent("RNN_RELU", args, kwargs)
    return out, h
