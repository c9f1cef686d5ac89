"""Activation layers: ``ReLU``, ``LeakyReLU``, ``GELU``, ``SiLU``, ``ELU``, ``PReLU``, ``Softmax``,
``CELU``, ``SELU``, ``GLU``, the shrinks, ``Threshold``, ``RReLU``, ``Softmin``, ..."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...autograd.creation import full as nl_full
from ...autograd.grad_mode import no_grad
from .. import functional as F
from ..parameter import Parameter
from .module import Module
from .transformer import MultiheadAttention  # noqa: F401  (PyTorch's path: nn.modules.activation.MultiheadAttention)

if TYPE_CHECKING:
    from ..._typing import Device, DTypeLike
    from ...autograd.tensor import Tensor


__all__ = [
    "ReLU",
    "LeakyReLU",
    "Sigmoid",
    "Tanh",
    "Softmax",
    "LogSoftmax",
    "GELU",
    "SiLU",
    "Mish",
    "Hardswish",
    "Hardsigmoid",
    "ELU",
    "Softplus",
    "Hardtanh",
    "ReLU6",
    "PReLU",
    "CELU",
    "SELU",
    "GLU",
    "Hardshrink",
    "Softshrink",
    "LogSigmoid",
    "Softsign",
    "Tanhshrink",
    "Threshold",
    "RReLU",
    "Softmin",
    "Softmax2d",
]


class ReLU(Module):
    """``max(x, 0)``; with ``inplace=True`` the input is overwritten.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.ReLU()(x)
        tensor([0., 0., 2.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.relu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` where positive, ``negative_slope * x`` elsewhere; with ``inplace=True`` the input is overwritten.

    Args:
        negative_slope (float): the slope for negative inputs. Default: 0.01.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nl.nn.LeakyReLU(0.2)
        LeakyReLU(negative_slope=0.2)
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class Sigmoid(Module):
    """``1 / (1 + exp(-x))``, elementwise.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Sigmoid()(x)
        tensor([0.2689, 0.5000, 0.8808])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Tanh(Module):
    """The hyperbolic tangent, elementwise.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Tanh()(x)
        tensor([-0.7616,  0.0000,  0.9640])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Softmax(Module):
    """Softmax along ``dim``.

    Args:
        dim (int): the dimension whose entries sum to 1.

    Examples:
        >>> nn.Softmax(dim=1)(nl.tensor([[1., 2.]]))
        tensor([[0.2689, 0.7311]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Module):
    """Log-softmax along ``dim``.

    Args:
        dim (int): the dimension to normalise over.

    Examples:
        >>> nn.LogSoftmax(dim=1)(nl.tensor([[0., 0.]]))
        tensor([[-0.6931, -0.6931]])
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


def _inplace_repr(module: Module, text: str = "") -> str:
    if module.inplace:
        return f"{text}, inplace=True" if text else "inplace=True"
    return text


class GELU(Module):
    """``x * Phi(x)``; ``approximate="tanh"`` for the tanh approximation.

    Args:
        approximate (str): ``"none"`` (exact) or ``"tanh"``. Default: ``"none"``.

    Examples:
        >>> nl.nn.GELU(approximate="tanh")
        GELU(approximate='tanh')
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.SiLU()(x)
        tensor([-0.2689,  0.0000,  1.7616])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.silu(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class Mish(Module):
    """``x * tanh(softplus(x))``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Mish()(x)
        tensor([-0.3034,  0.0000,  1.9440])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.mish(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class Hardswish(Module):
    """``x * relu6(x + 3) / 6``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Hardswish()(x)
        tensor([-0.3333,  0.0000,  1.6667])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardswish(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class Hardsigmoid(Module):
    """``relu6(x + 3) / 6``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Hardsigmoid()(x)
        tensor([0.3333, 0.5000, 0.8333])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardsigmoid(input, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class ELU(Module):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere.

    Args:
        alpha (float): the scale of the negative part. Default: 1.0.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.ELU()(x)
        tensor([-0.6321,  0.0000,  2.0000])
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self, f"alpha={self.alpha}")


class Softplus(Module):
    """``log(1 + exp(beta * x)) / beta``, linear above ``threshold``.

    Args:
        beta (float): the sharpness. Default: 1.
        threshold (float): above ``beta * x`` this, the identity. Default: 20.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Softplus()(x)
        tensor([0.3133, 0.6931, 2.1269])
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    """Clip to ``[min_val, max_val]``.

    Args:
        min_val (float): the lower limit. Default: -1.
        max_val (float): the upper limit. Default: 1.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.Hardtanh()(x)
        tensor([-1.,  0.,  1.])
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError("min_val cannot be greater than max_val")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self, f"min_val={self.min_val}, max_val={self.max_val}")


class ReLU6(Hardtanh):
    """``min(max(x, 0), 6)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nl.nn.ReLU6(inplace=True)
        ReLU6(inplace=True)
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return _inplace_repr(self)


class PReLU(Module):
    """``x`` where positive, ``a * x`` elsewhere, with a learned slope ``a`` (one, or one per channel).

    Args:
        num_parameters (int): 1, or the number of input channels. Default: 1.
        init (float): the slopes' initial value. Default: 0.25.

    Examples:
        >>> x = nl.tensor([-1., 0., 2.])
        >>> nn.PReLU()(x)
        tensor([-0.2500,  0.0000,  2.0000], grad_fn=<WhereBackward0>)
    """

    def __init__(
        self,
        num_parameters: int = 1,
        init: float = 0.25,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(nl_full((num_parameters,), init, dtype))

    def reset_parameters(self) -> None:
        """Set every slope back to ``init``.

        Examples:
            >>> m = nn.PReLU(init=0.1)
            >>> m.reset_parameters()
            >>> m.weight
            Parameter containing:
            tensor([0.1000], requires_grad=True)
        """
        with no_grad():
            self.weight.fill_(self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"


def _inplace_note(inplace: bool) -> str:
    return ", inplace=True" if inplace else ""


class CELU(Module):
    """``x`` where positive, ``alpha * (exp(x / alpha) - 1)`` elsewhere.

    Args:
        alpha (float): the scale of the negative part. Default: 1.0.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.CELU(0.5)
        CELU(alpha=0.5)
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}{_inplace_note(self.inplace)}"


class SELU(Module):
    """The self-normalising ``scale * elu(x, alpha)``.

    Args:
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.SELU()(nl.tensor([0.]))
        tensor([0.])
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.selu(input, self.inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class GLU(Module):
    """The gated linear unit ``a * sigmoid(b)`` over the two halves of ``dim``.

    Args:
        dim (int): the dimension to halve. Default: -1.

    Examples:
        >>> nn.GLU()
        GLU(dim=-1)
    """

    def __init__(self, dim: int = -1) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.glu(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Hardshrink(Module):
    """``x`` where ``|x| > lambd``, else 0.

    Args:
        lambd (float): the threshold. Default: 0.5.

    Examples:
        >>> nn.Hardshrink()
        Hardshrink(0.5)
    """

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = lambd

    def forward(self, input: Tensor) -> Tensor:
        return F.hardshrink(input, self.lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between.

    Args:
        lambd (float): the threshold, at least 0. Default: 0.5.

    Examples:
        >>> nn.Softshrink(0.25)
        Softshrink(0.25)
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softshrink(input, self.lambd)


class LogSigmoid(Module):
    """``log(sigmoid(x))``, computed stably.

    Examples:
        >>> nn.LogSigmoid()(nl.tensor([0.]))
        tensor([-0.6931])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    """``x / (1 + |x|)``.

    Examples:
        >>> nn.Softsign()(nl.tensor([1.]))
        tensor([0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    """``x - tanh(x)``.

    Examples:
        >>> nn.Tanhshrink()(nl.tensor([0.]))
        tensor([0.])
    """

    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value``.

    Args:
        threshold (float): the threshold.
        value (float): what replaces the elements at or below it.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.Threshold(0.1, 20.0)
        Threshold(threshold=0.1, value=20.0)
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        return f"threshold={self.threshold}, value={self.value}{_inplace_note(self.inplace)}"


class RReLU(Module):
    """Leaky ReLU with a random negative slope from ``U(lower, upper)`` in training, the mean
    slope in evaluation.

    Args:
        lower (float): the lowest slope. Default: 1/8.
        upper (float): the highest slope. Default: 1/3.
        inplace (bool): overwrite the input with the result. Default: False.

    Examples:
        >>> nn.RReLU(0.1, 0.3)
        RReLU(lower=0.1, upper=0.3)
    """

    def __init__(
        self, lower: float = 1.0 / 8, upper: float = 1.0 / 3, inplace: bool = False
    ) -> None:
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"lower={self.lower}, upper={self.upper}{_inplace_note(self.inplace)}"


class Softmin(Module):
    """``softmax(-x)`` along ``dim``.

    Args:
        dim (int, optional): the dimension the results sum to 1 along.

    Examples:
        >>> nn.Softmin(dim=1)
        Softmin(dim=1)
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class Softmax2d(Module):
    """Softmax over the channels of every pixel of ``(N, C, H, W)`` or ``(C, H, W)`` input.

    Examples:
        >>> nn.Softmax2d()(nl.zeros(1, 2, 1, 1)).flatten()
        tensor([0.5000, 0.5000])
    """

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D instead")
        return F.softmax(input, -3)
