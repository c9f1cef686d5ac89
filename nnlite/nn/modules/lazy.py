"""Lazy layers (``LazyLinear``, ``LazyConv1d/2d/3d``, ``LazyBatchNorm1d/2d/3d``), as PyTorch's.

A lazy layer leaves its input size open: its parameters are ``UninitializedParameter`` objects
until the first ``forward``, which reads the size from the input, gives the parameters their
shapes in place (so an optimizer built before holds the very same objects), initialises them as
the eager layer does, and turns the layer into that eager layer (``LazyLinear`` -> ``Linear``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd.dtypes import to_numpy_dtype
from ...autograd.tensor import Tensor
from ..parameter import Parameter
from .batchnorm import BatchNorm1d, BatchNorm2d
from .conv import Conv1d, Conv2d
from .conv_volume import Conv3d
from .linear import Linear
from .volume_norm import BatchNorm3d

__all__ = [
    "UninitializedParameter",
    "LazyLinear",
    "LazyConv1d",
    "LazyConv2d",
    "LazyConv3d",
    "LazyBatchNorm1d",
    "LazyBatchNorm2d",
    "LazyBatchNorm3d",
]


class UninitializedParameter(Parameter):
    """A parameter whose shape is not known yet; ``materialize`` gives it one.

    Args:
        requires_grad (bool): Default: True.
        dtype (nnlite.dtype, optional): the dtype it will have. Default: float32.

    Examples:
        >>> p = nl.nn.UninitializedParameter()
        >>> p.materialize((2, 3))
        >>> type(p).__name__, tuple(p.shape)
        ('Parameter', (2, 3))
    """

    def __init__(self, requires_grad: bool = True, device: Any = None, dtype: Any = None) -> None:
        self._lazy_dtype = np.float32 if dtype is None else to_numpy_dtype(dtype)
        super().__init__(np.empty((0,), dtype=self._lazy_dtype), requires_grad)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the parameter ``shape`` (uninitialised values) and make it a ``Parameter``.

        Args:
            shape (tuple of int): its shape.
            dtype (nnlite.dtype, optional): Default: the dtype given at construction.

        Examples:
            >>> p = nl.nn.UninitializedParameter()
            >>> p.materialize((4,))
            >>> p.shape
            nnlite.Size([4])
        """
        dt = self._lazy_dtype if dtype is None else to_numpy_dtype(dtype)
        self._data = np.empty(tuple(shape), dtype=dt)
        self._vc[0] += 1
        del self._lazy_dtype
        self.__class__ = Parameter  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<UninitializedParameter>"


def _uninitialize(module: Any, names: tuple[str, ...], dtype: Any) -> None:
    """Replace the parameters ``names`` of ``module`` (those not None) by uninitialised ones."""
    for name in names:
        if getattr(module, name, None) is not None:
            setattr(module, name, UninitializedParameter(dtype=dtype))


class _LazyMixin:
    """Infers the parameters at the first ``forward`` and then becomes ``cls_to_become``."""

    cls_to_become: type

    def _start_lazy(self: Any) -> None:
        self._lazy_hook = self.register_forward_pre_hook(_infer_parameters)

    def reset_parameters(self: Any) -> None:
        """Initialise the parameters as the eager layer does, once they have their shapes."""
        if self.has_uninitialized_params() or self.weight is None or self.weight.numel() == 0:
            return  # nothing to draw yet: the first forward initialises
        type(self).cls_to_become.reset_parameters(self)

    def has_uninitialized_params(self: Any) -> bool:
        """Whether some parameter still waits for the first ``forward``.

        Returns:
            bool: True before the first ``forward``.

        Examples:
            >>> nn.LazyLinear(2).has_uninitialized_params()
            True
        """
        return any(isinstance(p, UninitializedParameter) for p in self.parameters())


def _infer_parameters(module: Any, args: tuple[Any, ...]) -> None:
    if not args or not isinstance(args[0], Tensor):
        raise ValueError(f"{type(module).__name__}: the first forward needs an input tensor")
    module.initialize_parameters(args[0])
    module._lazy_hook.remove()
    del module._lazy_hook
    module.__class__ = module.cls_to_become


class LazyLinear(_LazyMixin, Linear):
    """``Linear`` whose ``in_features`` is read from the first input's last dimension.

    Args:
        out_features (int): size of each output sample.
        bias (bool): learn an additive bias. Default: True.
        dtype (nnlite.dtype, optional): the parameters' dtype.

    Examples:
        >>> m = nn.LazyLinear(3)
        >>> m(nl.ones(2, 5)).shape
        nnlite.Size([2, 3])
        >>> m
        Linear(in_features=5, out_features=3, bias=True)
    """

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(0, out_features, bias, device=device, dtype=dtype)
        _uninitialize(self, ("weight", "bias"), dtype)
        self._start_lazy()

    def initialize_parameters(self, input: Tensor) -> None:
        """Shape and initialise the parameters for ``input`` (called by the first forward).

        Args:
            input (Tensor): the first input.

        Examples:
            >>> m = nn.LazyLinear(2)
            >>> m.initialize_parameters(nl.ones(1, 3))
            >>> m.weight.shape
            nnlite.Size([2, 3])
        """
        self.in_features = int(input.shape[-1])
        weight: Any = self.weight
        bias: Any = self.bias
        weight.materialize((self.out_features, self.in_features))
        if bias is not None:
            bias.materialize((self.out_features,))
        self.reset_parameters()


class _LazyConvMixin(_LazyMixin):
    _spatial_dims: int

    def _lazy_conv_init(self: Any, dtype: Any) -> None:
        _uninitialize(self, ("weight", "bias"), dtype)
        self._start_lazy()

    def initialize_parameters(self: Any, input: Tensor) -> None:
        """Shape and initialise the parameters for ``input`` (called by the first forward).

        Args:
            input (Tensor): the first input.

        Examples:
            >>> m = nn.LazyConv2d(2, 1)
            >>> m.initialize_parameters(nl.ones(1, 3, 4, 4))
            >>> m.weight.shape
            nnlite.Size([2, 3, 1, 1])
        """
        batched = input.dim() == self._spatial_dims + 2
        self.in_channels = int(input.shape[1 if batched else 0])
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        kernel = tuple(self.weight_kernel_size)
        self.weight.materialize((self.out_channels, self.in_channels // self.groups) + kernel)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv(eager: Any, spatial_dims: int) -> type:
    """The lazy version of the convolution ``eager`` (``Conv1d``, ``Conv2d``, ``Conv3d``)."""

    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        eager.__init__(
            self,
            0,
            out_channels,
            kernel_size,
            stride,
            padding,
            dilation,
            groups,
            bias,
            padding_mode,
            device=device,
            dtype=dtype,
        )
        self.weight_kernel_size = tuple(self.weight.shape[2:])
        self._lazy_conv_init(dtype)

    name = f"Lazy{eager.__name__}"
    doc = (
        f"``{eager.__name__}`` whose ``in_channels`` is read from the first input.\n\n"
        "Args:\n"
        "    out_channels (int): C_out.\n"
        "    kernel_size (int or tuple): the kernel's size.\n"
        "    **kwargs: stride, padding, dilation, groups, bias, padding_mode, device, dtype, "
        "as ``"
        + eager.__name__
        + "``'s.\n\nExamples:\n"
        + f"    >>> m = nn.{name}(4, 3)\n"
        + f"    >>> m(nl.ones((1, 2) + (5,) * {spatial_dims})).shape[1]\n    4\n"
    )
    return type(
        name,
        (_LazyConvMixin, eager),
        {
            "__init__": __init__,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
            "cls_to_become": eager,
            "_spatial_dims": spatial_dims,
        },
    )


LazyConv1d = _lazy_conv(Conv1d, 1)
LazyConv2d = _lazy_conv(Conv2d, 2)
LazyConv3d = _lazy_conv(Conv3d, 3)


class _LazyNormMixin(_LazyMixin):
    def initialize_parameters(self: Any, input: Tensor) -> None:
        """Shape and initialise parameters and running statistics for ``input`` (called by the first forward).

        Args:
            input (Tensor): the first input.

        Examples:
            >>> m = nn.LazyBatchNorm2d()
            >>> m.initialize_parameters(nl.ones(2, 3, 4, 4))
            >>> m.weight.shape
            nnlite.Size([3])
        """
        self.num_features = int(input.shape[1] if input.dim() > 1 else input.shape[0])
        if self.weight is not None:
            self.weight.materialize((self.num_features,))
            self.bias.materialize((self.num_features,))
        if self.track_running_stats:
            dt = self.running_mean._data.dtype
            self.running_mean._data = np.zeros((self.num_features,), dtype=dt)
            self.running_var._data = np.ones((self.num_features,), dtype=dt)
        self.reset_parameters()


def _lazy_norm(eager: Any, spatial_dims: int) -> type:
    """The lazy version of the batch norm ``eager``."""

    def __init__(
        self: Any,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        eager.__init__(self, 0, eps, momentum, affine, track_running_stats, device, dtype)
        _uninitialize(self, ("weight", "bias"), dtype)
        self._start_lazy()

    name = f"Lazy{eager.__name__}"
    doc = (
        f"``{eager.__name__}`` whose ``num_features`` is read from the first input.\n\n"
        "Args:\n"
        "    eps (float): added to the variance. Default: 1e-5.\n"
        "    **kwargs: momentum, affine, track_running_stats, device, dtype, as ``"
        + eager.__name__
        + "``'s.\n\nExamples:\n"
        + f"    >>> m = nn.{name}()\n"
        + f"    >>> m(nl.ones((2, 3) + (2,) * {spatial_dims})).shape[1]\n    3\n"
    )
    return type(
        name,
        (_LazyNormMixin, eager),
        {
            "__init__": __init__,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
            "cls_to_become": eager,
        },
    )


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, 0)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, 2)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, 3)
