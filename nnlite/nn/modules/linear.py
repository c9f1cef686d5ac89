"""``Linear`` and ``Identity``."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from ...autograd import dtypes as _dtypes
from ...device import check_device
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = ["Linear", "Identity", "Bilinear"]


def factory_dtype(dtype: DTypeLike | None) -> Any:
    """The numpy dtype of a layer's parameters (``dtype=`` argument; float32 by default)."""
    return np.dtype(np.float32) if dtype is None else _dtypes.to_numpy_dtype(dtype)


def input_type_error(layer: Module, input: Tensor) -> Any:
    return TypeError(f"{layer!r}: expected a Tensor as input, got {type(input).__name__}")


class Identity(Module):
    """Returns its input unchanged (arguments are accepted and ignored, as in PyTorch).

    Examples:
        >>> x = nl.randn(2, 3)
        >>> nn.Identity(54, unused=True)(x) is x
        True
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` over the last dimension.

    ``weight`` (out_features, in_features) is initialised with ``kaiming_uniform_(a=sqrt(5))`` and
    ``bias`` with U(-1/sqrt(in_features), 1/sqrt(in_features)), as in PyTorch.

    Args:
        in_features (int): the size of each input's last dimension.
        out_features (int): the size of each output's last dimension.
        bias (bool): learn an additive bias. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> fc = nl.nn.Linear(400, 120)
        >>> fc(nl.randn(4, 400)).shape
        nnlite.Size([4, 120])
    """

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        check_device(device)
        self.in_features = in_features
        self.out_features = out_features
        dt = factory_dtype(dtype)
        self.weight = Parameter(np.empty((out_features, in_features), dtype=dt))
        if bias:
            self.bias = Parameter(np.empty((out_features,), dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw new weights and bias, as at construction (PyTorch's initialisation).

        Examples:
            >>> m = nn.Linear(3, 2)
            >>> before = m.weight.clone()
            >>> m.reset_parameters()
            >>> bool((m.weight == before).all())
            False
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        params = self._parameters
        weight, bias = params["weight"], params["bias"]
        assert weight is not None  # registered by __init__
        try:
            x = input._data
        except AttributeError:
            raise input_type_error(self, input) from None
        if x.ndim == 0 or x.shape[-1] != weight._data.shape[1]:
            raise RuntimeError(
                f"{self!r}: expected input with last dimension {weight._data.shape[1]}, got shape "
                f"{tuple(x.shape)}"
            )
        return F.linear(input, weight, bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class NonDynamicallyQuantizableLinear(Linear):
    """``Linear`` under the name PyTorch gives the attention's output projection
    (``MultiheadAttention.out_proj``): its ``repr`` and the global a pickled model names.
    """


class Bilinear(Module):
    """``y = x1^T A x2 + b`` per output feature; weight and bias drawn from U(-1/sqrt(in1), 1/sqrt(in1)).

    Args:
        in1_features (int): the size of ``x1``'s last dimension.
        in2_features (int): the size of ``x2``'s last dimension.
        out_features (int): the output's last dimension.
        bias (bool): learn a bias. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.Bilinear(2, 3, 4)
        Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)
    """

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        check_device(device)
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        dt = factory_dtype(dtype)
        self.weight = Parameter(np.empty((out_features, in1_features, in2_features), dtype=dt))
        if bias:
            self.bias = Parameter(np.empty((out_features,), dtype=dt))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw new weights and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)).

        Examples:
            >>> layer = nn.Bilinear(2, 2, 1)
            >>> layer.reset_parameters()
            >>> bool(layer.weight.abs().max() <= 2 ** -0.5)
            True
        """
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
