"""More lazy layers, as PyTorch's: ``LazyConvTranspose1d/2d/3d`` (``in_channels`` from the first
input), ``LazyInstanceNorm1d/2d/3d`` (``num_features`` from the first input) and the
``UninitializedBuffer`` that holds a lazy layer's running statistics until then. They follow
``lazy.py``: the first ``forward`` shapes the parameters in place, initialises them as the eager
layer does and turns the layer into that eager layer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd.dtypes import to_numpy_dtype
from ...autograd.tensor import Tensor
from ..parameter import Buffer
from .conv import ConvTranspose2d
from .conv_volume import ConvTranspose1d, ConvTranspose3d
from .lazy import _LazyMixin, _uninitialize
from .normalization import InstanceNorm1d, InstanceNorm2d
from .volume_norm import InstanceNorm3d

__all__ = [
    "UninitializedBuffer",
    "LazyConvTranspose1d",
    "LazyConvTranspose2d",
    "LazyConvTranspose3d",
    "LazyInstanceNorm1d",
    "LazyInstanceNorm2d",
    "LazyInstanceNorm3d",
]


class UninitializedBuffer(Buffer):
    """A buffer whose shape is not known yet; ``materialize`` gives it one.

    Args:
        requires_grad (bool): Default: False.
        dtype (nnlite.dtype, optional): the dtype it will have. Default: float32.
        persistent (bool): include it in ``state_dict()`` once registered. Default: True.

    Examples:
        >>> b = nl.nn.UninitializedBuffer()
        >>> b
        <UninitializedBuffer>
        >>> b.materialize((2, 3))
        >>> type(b).__name__, tuple(b.shape)
        ('Buffer', (2, 3))
    """

    def __init__(
        self,
        requires_grad: bool = False,
        device: Any = None,
        dtype: Any = None,
        persistent: bool = True,
    ) -> None:
        self._lazy_dtype = np.float32 if dtype is None else to_numpy_dtype(dtype)
        super().__init__(np.empty((0,), dtype=self._lazy_dtype), persistent=persistent)
        self._requires_grad = bool(requires_grad)

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Give the buffer ``shape`` (uninitialised values) and make it a ``Buffer``.

        Args:
            shape (tuple of int): its shape.
            dtype (nnlite.dtype, optional): Default: the dtype given at construction.

        Examples:
            >>> b = nl.nn.UninitializedBuffer()
            >>> b.materialize((4,))
            >>> b.shape
            nnlite.Size([4])
        """
        dt = self._lazy_dtype if dtype is None else to_numpy_dtype(dtype)
        self._data = np.empty(tuple(shape), dtype=dt)
        self._vc[0] += 1
        del self._lazy_dtype
        # a plain Tensor in PyTorch; here a Buffer, the plain tensor class a module can hold
        self.__class__ = Buffer  # type: ignore[assignment]

    def __repr__(self) -> str:
        return "<UninitializedBuffer>"


class _LazyConvTransposeMixin(_LazyMixin):
    _spatial_dims: int

    def initialize_parameters(self: Any, input: Tensor) -> None:
        """Shape and initialise the parameters for ``input`` (called by the first forward).

        Args:
            input (Tensor): the first input.

        Examples:
            >>> m = nn.LazyConvTranspose2d(2, 3)
            >>> m.initialize_parameters(nl.ones(1, 4, 5, 5))
            >>> m.weight.shape
            nnlite.Size([4, 2, 3, 3])
        """
        batched = input.dim() == self._spatial_dims + 2
        self.in_channels = int(input.shape[1 if batched else 0])
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        shape = (self.in_channels, self.out_channels // self.groups) + tuple(self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()


def _lazy_conv_transpose(eager: Any, spatial_dims: int) -> type:
    """The lazy version of the transposed convolution ``eager``."""

    def __init__(
        self: Any,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        # in_channels = groups keeps the eager checks of groups happy until the first forward
        eager.__init__(
            self,
            groups,
            out_channels,
            kernel_size,
            stride,
            padding,
            output_padding,
            groups,
            bias,
            dilation,
            padding_mode,
            device=device,
            dtype=dtype,
        )
        self.in_channels = 0
        _uninitialize(self, ("weight", "bias"), dtype)
        self._start_lazy()

    name = f"Lazy{eager.__name__}"
    doc = (
        f"``{eager.__name__}`` whose ``in_channels`` is read from the first input.\n\n"
        "Args:\n"
        "    out_channels (int): C_out.\n"
        "    kernel_size (int or tuple): the kernel's size.\n"
        "    **kwargs: stride, padding, output_padding, groups, bias, dilation, padding_mode, "
        "device, dtype, as ``" + eager.__name__ + "``'s.\n\nExamples:\n"
        f"    >>> m = nn.{name}(4, 3)\n"
        f"    >>> m(nl.ones((1, 2) + (5,) * {spatial_dims})).shape[1]\n    4\n"
    )
    return type(
        name,
        (_LazyConvTransposeMixin, eager),
        {
            "__init__": __init__,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
            "cls_to_become": eager,
            "_spatial_dims": spatial_dims,
        },
    )


LazyConvTranspose1d = _lazy_conv_transpose(ConvTranspose1d, 1)
LazyConvTranspose2d = _lazy_conv_transpose(ConvTranspose2d, 2)
LazyConvTranspose3d = _lazy_conv_transpose(ConvTranspose3d, 3)


class _LazyInstanceNormMixin(_LazyMixin):
    _spatial_dims: int

    def initialize_parameters(self: Any, input: Tensor) -> None:
        """Shape and initialise parameters and running statistics for ``input`` (called by the
        first forward).

        Args:
            input (Tensor): the first input.

        Examples:
            >>> m = nn.LazyInstanceNorm2d()
            >>> m.initialize_parameters(nl.ones(2, 3, 4, 4))
            >>> m.weight.shape, m.running_mean.shape
            (nnlite.Size([3]), nnlite.Size([3]))
        """
        if not self.has_uninitialized_params() and self.running_mean is None:
            return  # nothing to shape: PyTorch leaves num_features at 0 then
        batched = input.dim() == self._spatial_dims + 2
        self.num_features = int(input.shape[1 if batched else 0])
        shape = (self.num_features,)
        for name in ("weight", "bias", "running_mean", "running_var"):
            value = getattr(self, name)
            if value is not None:
                value.materialize(shape)
        type(self).cls_to_become.reset_parameters(self)


def _lazy_instance_norm(eager: Any, spatial_dims: int) -> type:
    """The lazy version of the instance norm ``eager``."""

    def __init__(
        self: Any,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        eager.__init__(
            self, 0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias
        )
        _uninitialize(self, ("weight", "bias"), dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(dtype=dtype)
            self.running_var = UninitializedBuffer(dtype=dtype)
        self._start_lazy()

    name = f"Lazy{eager.__name__}"
    doc = (
        f"``{eager.__name__}`` whose ``num_features`` is read from the first input; affine and "
        "with running statistics by default, as PyTorch's lazy instance norms.\n\n"
        "Args:\n"
        "    eps (float): added to the variance. Default: 1e-5.\n"
        "    **kwargs: momentum, affine, track_running_stats, device, dtype, bias, as ``"
        + eager.__name__
        + "``'s.\n\nExamples:\n"
        + f"    >>> m = nn.{name}()\n"
        + f"    >>> m(nl.randn((2, 3) + (4,) * {spatial_dims})).shape[1]\n    3\n"
    )
    return type(
        name,
        (_LazyInstanceNormMixin, eager),
        {
            "__init__": __init__,
            "__doc__": doc,
            "__module__": __name__,
            "__qualname__": name,
            "cls_to_become": eager,
            "_spatial_dims": spatial_dims,
        },
    )


LazyInstanceNorm1d = _lazy_instance_norm(InstanceNorm1d, 1)
LazyInstanceNorm2d = _lazy_instance_norm(InstanceNorm2d, 2)
LazyInstanceNorm3d = _lazy_instance_norm(InstanceNorm3d, 3)
