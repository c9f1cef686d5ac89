"""Weight initialisation, as ``torch.nn.init``: in-place, without recording, from nnlite's generator.

``nl.manual_seed(s)`` makes every initialiser (and so every freshly built model) reproducible.
"""

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, ParamSpec, TypeVar

import numpy as np

from ..autograd.grad_mode import no_grad
from ..autograd.random import default_generator

if TYPE_CHECKING:
    from ..autograd.tensor import Tensor

_P = ParamSpec("_P")
_R = TypeVar("_R")

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "ones_",
    "zeros_",
    "eye_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "trunc_normal_",
    "orthogonal_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]

_LINEAR = (
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "conv_transpose3d",
)


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for a nonlinearity (``"relu"``: sqrt(2), ``"tanh"``: 5/3, ...).

    Args:
        nonlinearity (str): ``"linear"``, ``"conv2d"``, ``"sigmoid"``, ``"tanh"``, ``"relu"``, ``"leaky_relu"``, ``"selu"``, ...
        param (float, optional): the negative slope of ``"leaky_relu"``. Default: 0.01.

    Returns:
        float: the gain.

    Examples:
        >>> nn.init.calculate_gain("tanh")
        1.6666666666666667
        >>> round(nn.init.calculate_gain("relu"), 4)
        1.4142
    """
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor: "Tensor", values: object) -> "Tensor":
    """Write ``values`` into ``tensor`` in place, outside the graph; returns the tensor."""
    with no_grad():
        a = tensor._data
        a[...] = values
        tensor._bump_version()
    return tensor


def uniform_(
    tensor: "Tensor", a: float = 0.0, b: float = 1.0, generator: np.random.Generator | None = None
) -> "Tensor":
    """Fill with draws from U(a, b).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        a (float): the lower bound. Default: 0.
        b (float): the upper bound. Default: 1.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.uniform_(nl.empty(100), -0.1, 0.1)
        >>> bool((w.abs() <= 0.1).all())
        True
    """
    rng = generator or default_generator
    return _fill(tensor, rng.uniform(a, b, tensor._data.shape))


def normal_(
    tensor: "Tensor",
    mean: float = 0.0,
    std: float = 1.0,
    generator: np.random.Generator | None = None,
) -> "Tensor":
    """Fill with draws from N(mean, std**2).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        mean (float): Default: 0.
        std (float): Default: 1.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.normal_(nl.empty(3, 4), std=0.02).shape
        nnlite.Size([3, 4])
    """
    rng = generator or default_generator
    return _fill(tensor, rng.normal(mean, std, tensor._data.shape))


def trunc_normal_(
    tensor: "Tensor",
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: np.random.Generator | None = None,
) -> "Tensor":
    """Fill with draws from N(mean, std**2) restricted to [a, b] (draws outside are redrawn).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        mean (float): Default: 0.
        std (float): Default: 1.
        a (float): the lower cut. Default: -2.
        b (float): the upper cut. Default: 2.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.trunc_normal_(nl.empty(1000), std=1., a=-1., b=1.)
        >>> bool((w.abs() <= 1.).all())
        True
    """
    rng = generator or default_generator
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The distribution of values "
            "may be incorrect.",
            stacklevel=2,
        )
    values = rng.normal(mean, std, tensor._data.shape)
    for _ in range(1000):
        outside = (values < a) | (values > b)
        n = int(outside.sum())
        if not n:
            break
        values[outside] = rng.normal(mean, std, n)
    else:  # [a, b] far in a tail: settle the few left uniformly inside it
        values[outside] = rng.uniform(a, b, n)
    return _fill(tensor, values)


def constant_(tensor: "Tensor", val: float) -> "Tensor":
    """Fill ``tensor`` with ``val``.

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        val (number): the value.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.constant_(nl.empty(2), 0.5)
        tensor([0.5000, 0.5000])
    """
    return _fill(tensor, val)


def ones_(tensor: "Tensor") -> "Tensor":
    """Fill ``tensor`` with ones.

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.ones_(nl.empty(2))
        tensor([1., 1.])
    """
    return _fill(tensor, 1)


def zeros_(tensor: "Tensor") -> "Tensor":
    """Fill ``tensor`` with zeros.

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.zeros_(nl.empty(2))
        tensor([0., 0.])
    """
    return _fill(tensor, 0)


def eye_(tensor: "Tensor") -> "Tensor":
    """Fill a 2-D ``tensor`` with the identity matrix (ones on the diagonal).

    Args:
        tensor (Tensor): a 2-D tensor to fill, in place.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.eye_(nl.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor._data.shape))


def _calculate_fan_in_and_fan_out(tensor: "Tensor") -> tuple[int, int]:
    shape = tensor._data.shape
    if len(shape) < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _calculate_correct_fan(tensor: "Tensor", mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(
    tensor: "Tensor", gain: float = 1.0, generator: np.random.Generator | None = None
) -> "Tensor":
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        gain (float): the scale (``calculate_gain``). Default: 1.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.xavier_uniform_(nl.empty(3, 5))
        >>> bool((w.abs() <= (6 / 8) ** 0.5).all())
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(
    tensor: "Tensor", gain: float = 1.0, generator: np.random.Generator | None = None
) -> "Tensor":
    """N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        gain (float): the scale (``calculate_gain``). Default: 1.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.xavier_normal_(nl.empty(3, 5)).shape
        nnlite.Size([3, 5])
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: "Tensor",
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: np.random.Generator | None = None,
) -> "Tensor":
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (He). Layers use ``a=sqrt(5)``.

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        a (float): the negative slope of the leaky ReLU that follows (with ``"leaky_relu"``). Default: 0.
        mode (str): ``"fan_in"`` keeps the forward variance, ``"fan_out"`` the backward one. Default: ``"fan_in"``.
        nonlinearity (str): the nonlinearity that follows. Default: ``"leaky_relu"``.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.kaiming_uniform_(nl.empty(4, 6), nonlinearity="relu")
        >>> bool((w.abs() <= (2 ** 0.5) * (3 / 6) ** 0.5).all())
        True
    """
    if 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    bound = math.sqrt(3.0) * calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: "Tensor",
    a: float = 0,
    mode: str = "fan_in",
    nonlinearity: str = "leaky_relu",
    generator: np.random.Generator | None = None,
) -> "Tensor":
    """N(0, std**2) with ``std = gain / sqrt(fan)`` (He).

    Args:
        tensor (Tensor): the tensor to fill, in place (without recording a graph).
        a (float): the negative slope of the leaky ReLU that follows (with ``"leaky_relu"``). Default: 0.
        mode (str): ``"fan_in"`` keeps the forward variance, ``"fan_out"`` the backward one. Default: ``"fan_in"``.
        nonlinearity (str): the nonlinearity that follows. Default: ``"leaky_relu"``.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> nn.init.kaiming_normal_(nl.empty(16, 3, 3, 3), mode="fan_out").shape
        nnlite.Size([16, 3, 3, 3])
    """
    if 0 in tensor._data.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    return normal_(tensor, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(fan), generator)


# PyTorch's deprecated names without the trailing underscore are not provided.


def orthogonal_(
    tensor: "Tensor", gain: float = 1, generator: np.random.Generator | None = None
) -> "Tensor":
    """Fill with a (semi-)orthogonal matrix times ``gain``: the Q of the QR decomposition of a
    standard normal draw, signs fixed by R's diagonal; dimensions after the first are flattened.

    Args:
        tensor (Tensor): a tensor of at least 2 dimensions to fill, in place.
        gain (float): the scale. Default: 1.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nl.nn.init.orthogonal_(nl.empty(3, 5))
        >>> np.allclose((w @ w.T).numpy(), np.eye(3), atol=1e-5)  # orthonormal rows
        True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor._data.shape[0]
    cols = tensor._data.size // rows
    rng = generator or default_generator
    flattened = rng.normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flattened = flattened.T
    q, r = np.linalg.qr(flattened)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, (q * gain).reshape(tensor._data.shape))


def dirac_(tensor: "Tensor", groups: int = 1) -> "Tensor":
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: the convolution then passes
    its first input channels through unchanged (per group).

    Args:
        tensor (Tensor): ``(out, in, *kernel)``.
        groups (int): the convolution's groups; divides ``out``. Default: 1.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.dirac_(nl.empty(2, 2, 3))
        >>> w[0, 0].tolist(), w[0, 1].tolist()
        ([0.0, 1.0, 0.0], [0.0, 0.0, 0.0])
    """
    dims = tensor._data.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor._data.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    values = np.zeros(sizes, dtype=tensor._data.dtype)
    centre = tuple(s // 2 for s in sizes[2:])
    for g in range(groups):
        for d in range(min(per_group, sizes[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def sparse_(
    tensor: "Tensor",
    sparsity: float,
    std: float = 0.01,
    generator: np.random.Generator | None = None,
) -> "Tensor":
    """Fill a 2-D tensor from N(0, std**2), then zero ``ceil(sparsity * rows)`` random entries
    of each column (Martens, 2010).

    Args:
        tensor (Tensor): a 2-D tensor.
        sparsity (float): the fraction of each column set to zero.
        std (float): the standard deviation of the non-zero values. Default: 0.01.
        generator (numpy.random.Generator, optional): draw from this generator instead of nnlite's.

    Returns:
        Tensor: ``tensor``.

    Examples:
        >>> w = nn.init.sparse_(nl.empty(10, 3), sparsity=0.3)
        >>> (w == 0).sum(dim=0).tolist()
        [3, 3, 3]
    """
    if tensor._data.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rng = generator or default_generator
    rows, cols = tensor._data.shape
    zeros = math.ceil(sparsity * rows)
    values = rng.normal(0.0, std, (rows, cols))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros], col] = 0
    return _fill(tensor, values)


def _deprecated(method: Callable[_P, _R]) -> Callable[_P, _R]:
    """PyTorch's old name of ``method`` (without the trailing underscore), with its warning."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
            FutureWarning,
            stacklevel=2,
        )
        return method(*args, **kwargs)

    shape = "2, 2, 3" if old_name == "dirac" else "2, 3"
    extra = {"constant": ", 0.5", "sparse": ", 0.5"}.get(old_name, "")
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    deprecated_init.__doc__ = f"""Deprecated: ``{new_name}``, with PyTorch's FutureWarning.

    Args:
        *args, **kwargs: as for ``{new_name}``.

    Returns:
        Tensor: the filled tensor.

    Examples:
        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nn.init.{old_name}(nl.empty({shape}){extra}).shape
        nnlite.Size([{shape}])
    """
    return deprecated_init


uniform = _deprecated(uniform_)
normal = _deprecated(normal_)
constant = _deprecated(constant_)
eye = _deprecated(eye_)
dirac = _deprecated(dirac_)
xavier_uniform = _deprecated(xavier_uniform_)
xavier_normal = _deprecated(xavier_normal_)
kaiming_uniform = _deprecated(kaiming_uniform_)
kaiming_normal = _deprecated(kaiming_normal_)
orthogonal = _deprecated(orthogonal_)
sparse = _deprecated(sparse_)
