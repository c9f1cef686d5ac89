"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their cells, with PyTorch's parameter names
(``weight_ih_l0``, ``weight_hh_l0_reverse``, ...), gate order (LSTM: i, f, g, o; GRU: r, z, n) and
initialisation, so state dicts move between the two.

A layer projects the whole input sequence through ``weight_ih`` in one matrix product, then runs
each direction of each layer as one fused sequence op (``nn/ops/recurrent.py``), packed sequences
included; a cell is the same op over a sequence of one step.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import TYPE_CHECKING, Any, TypeAlias, Union, cast, overload

import numpy as np

from ...autograd.creation import cat, stack, zeros
from ...autograd.tensor import _make
from .. import functional as F
from .. import init
from ..ops.recurrent import GRUSequence, LSTMSequence, RNNSequence
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .linear import factory_dtype
from .module import Module

if TYPE_CHECKING:
    from ..._typing import Array, Device, DTypeLike
    from ...autograd.dtypes import dtype as _dtype
    from ...autograd.tensor import Tensor

#: the four weights of one direction of one layer: ``weight_ih``, ``weight_hh``, ``bias_ih``,
#: ``bias_hh`` (the biases None without ``bias``)
_Weights: TypeAlias = tuple["Tensor", "Tensor", Union["Tensor", None], Union["Tensor", None]]
#: a layer's hidden state: ``h`` (RNN, GRU) or ``(h, c)`` (LSTM)
_Hidden: TypeAlias = Union["Tensor", tuple["Tensor", "Tensor"]]

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


# ------------------------------------------------------------------------------- one direction
def _run_direction(
    mode: str,
    x: Tensor,
    states: tuple[Tensor, ...],
    weights: _Weights,
    reverse: bool = False,
    batch_sizes: tuple[int, ...] | None = None,
) -> tuple[Tensor, tuple[Tensor, ...]]:
    """One direction of one layer over ``x`` (L, B, In) as one fused op (a cell is a sequence of
    one step): returns the outputs (L, B, H) and the final states."""
    w_ih, w_hh, b_ih, b_hh = weights
    bias = b_ih
    if (
        mode != "GRU" and b_ih is not None and b_hh is not None
    ):  # GRU's bias_hh stays inside the reset gate's product
        bias = b_ih + b_hh
    projected = F.linear(x, w_ih, bias)  # one matrix product for the whole sequence
    order = {"reverse": reverse, "batch_sizes": batch_sizes}
    if mode == "LSTM":
        result = LSTMSequence.apply(projected, states[0], states[1], w_hh, **order)
    elif mode == "GRU":
        result = GRUSequence.apply(projected, states[0], w_hh, b_hh, **order)
    else:
        result = RNNSequence.apply(projected, states[0], w_hh, relu=mode == "RNN_RELU", **order)
    length = x.shape[0]
    outputs = result[:length] if mode == "LSTM" else result
    last = outputs[0 if reverse else length - 1] if length else states[0]
    return outputs, ((last, result[length]) if mode == "LSTM" else (last,))


# ------------------------------------------------------------------------------- layers
class RNNBase(Module):
    """The common part of ``RNN``, ``LSTM`` and ``GRU``: parameters, checks and the loop over layers.

    Args:
        mode (str): ``"RNN_TANH"``, ``"RNN_RELU"``, ``"LSTM"`` or ``"GRU"``.
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn the biases ``b_ih`` and ``b_hh``. Default: True.
        batch_first (bool): input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: False.
        dropout (float): dropout between layers (not after the last). Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        proj_size (int): LSTM only: project the hidden state to this size. Default: 0.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> gru = nn.RNNBase("GRU", 4, 8)
        >>> [name for name, _ in gru.named_parameters()]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
    """

    mode: str
    input_size: int
    hidden_size: int
    num_layers: int
    bias: bool
    batch_first: bool
    dropout: float
    bidirectional: bool
    proj_size: int

    def __init__(
        self,
        mode: str,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        if (
            not isinstance(dropout, numbers.Number)
            or not 0 <= dropout <= 1
            or isinstance(dropout, bool)
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                f"expects num_layers greater than 1, but got dropout={dropout} and num_layers={num_layers}",
                UserWarning,
                stacklevel=3,
            )
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError(
                "hidden_size must be an integer greater than zero"
                if isinstance(hidden_size, int)
                else f"hidden_size should be of type int, got: {type(hidden_size).__name__}"
            )
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size:
            raise NotImplementedError("LSTM proj_size is not supported by nnlite")
        self.mode, self.input_size, self.hidden_size, self.num_layers = (
            mode,
            input_size,
            hidden_size,
            num_layers,
        )
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        gate_size = _GATES[mode] * hidden_size
        dt = factory_dtype(dtype)
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else hidden_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                self.register_parameter(
                    "weight_ih" + suffix, Parameter(np.empty((gate_size, layer_input), dt))
                )
                self.register_parameter(
                    "weight_hh" + suffix, Parameter(np.empty((gate_size, hidden_size), dt))
                )
                if bias:
                    self.register_parameter(
                        "bias_ih" + suffix, Parameter(np.empty((gate_size,), dt))
                    )
                    self.register_parameter(
                        "bias_hh" + suffix, Parameter(np.empty((gate_size,), dt))
                    )
        self.reset_parameters()

    def reset_parameters(self: RNNBase | RNNCellBase) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).

        Examples:
            >>> rnn = nn.RNN(2, 4)
            >>> rnn.reset_parameters()
            >>> bool(rnn.weight_hh_l0.abs().max() <= 0.5)
            True
        """
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if not self.bias:
            text += ", bias=False"
        if self.batch_first:
            text += ", batch_first=True"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional:
            text += ", bidirectional=True"
        return text

    def flatten_parameters(self) -> None:
        """Nothing to do: each weight is its own array, and the fused steps read them as they are.
        (PyTorch packs them into one buffer for cuDNN; scripts call this after loading.)

        Examples:
            >>> nn.LSTM(2, 4).flatten_parameters()
        """

    # ------------------------------------------------------------------ forward
    def _weights(self, layer: int, direction: int) -> _Weights:
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        p = self._parameters
        return (
            cast(Parameter, p["weight_ih" + suffix]),  # weights are never None
            cast(Parameter, p["weight_hh" + suffix]),
            p.get("bias_ih" + suffix),
            p.get("bias_hh" + suffix),
        )

    def _initial_state(self, hx: Any, batch: int, dtype: _dtype) -> tuple[Tensor, ...]:
        # ``hx``: None, ``h`` or (LSTM) a pair ``(h, c)``, checked here
        shape = (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)
        count = 2 if self.mode == "LSTM" else 1
        if hx is None:
            return tuple(zeros(shape, dtype=dtype) for _ in range(count))
        states = tuple(hx) if self.mode == "LSTM" else (hx,)
        if self.mode == "LSTM" and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise RuntimeError("lstm expects two hidden states")
        for s in states:
            if tuple(s.shape) != shape:
                raise RuntimeError(f"Expected hidden size {shape}, got {list(s.shape)}")
        return states

    def forward(
        self, input: Tensor | PackedSequence, hx: _Hidden | None = None
    ) -> tuple[Tensor | PackedSequence, _Hidden]:
        """Run the layers over ``input`` from the state ``hx`` (zeros when None).

        Args:
            input (Tensor or PackedSequence): ``(L, N, H_in)`` (``(N, L, H_in)`` with
                ``batch_first``), ``(L, H_in)`` unbatched, or packed sequences.
            hx (Tensor or pair of Tensors, optional): ``h_0`` (``(h_0, c_0)`` for an LSTM), of
                shape ``(D * num_layers, N, H_out)``.

        Returns:
            tuple: ``(output, h_n)`` (``(output, (h_n, c_n))`` for an LSTM).

        Examples:
            >>> output, h_n = nn.GRU(4, 8)(nl.randn(5, 2, 4))
            >>> output.shape
            nnlite.Size([5, 2, 8])
        """
        packed = input if isinstance(input, PackedSequence) else None
        batch_sizes = None
        if isinstance(input, PackedSequence):
            x = _unpack_time_major(input)
            batch_sizes = tuple(int(n) for n in input.batch_sizes._data)
            batched = True
        else:
            batched = input.ndim == 3
            if input.ndim not in (2, 3):
                raise ValueError(
                    f"{self.mode if self.mode in ('LSTM', 'GRU') else 'RNN'}: Expected input to be "
                    f"2D or 3D, got {input.ndim}D input instead"
                )
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose(0, 1)
            if hx is not None and not batched:
                state: Any = hx  # h, or (h, c) for an LSTM
                hx = (
                    tuple(h.unsqueeze(1) for h in state)
                    if self.mode == "LSTM"
                    else state.unsqueeze(1)
                )
        if x.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, got "
                f"{x.shape[-1]}"
            )
        states = self._initial_state(hx, x.shape[1], x.dtype)
        if packed is not None and packed.sorted_indices is not None:
            states = tuple(s[:, packed.sorted_indices._data] for s in states)
        directions = 2 if self.bidirectional else 1
        finals: list[list[Tensor]] = [[] for _ in states]
        for layer in range(self.num_layers):
            outs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, final = _run_direction(
                    self.mode,
                    x,
                    tuple(s[k] for s in states),
                    self._weights(layer, direction),
                    bool(direction),
                    batch_sizes,
                )
                outs.append(out)
                for store, value in zip(finals, final):
                    store.append(value)
            x = outs[0] if directions == 1 else cat(outs, dim=2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        stacked = [stack(f) for f in finals]
        output: Tensor | PackedSequence
        if packed is not None:
            if packed.unsorted_indices is not None:
                stacked = [f[:, packed.unsorted_indices._data] for f in stacked]
            output = PackedSequence(
                _pack_time_major(x, packed.batch_sizes._data),
                packed.batch_sizes,
                packed.sorted_indices,
                packed.unsorted_indices,
            )
        else:
            output = x.transpose(0, 1) if batched and self.batch_first else x
            if not batched:
                output = output.squeeze(1)
                stacked = [f.squeeze(1) for f in stacked]
        hidden = (stacked[0], stacked[1]) if self.mode == "LSTM" else stacked[0]
        return output, hidden


def _unpack_time_major(packed: PackedSequence) -> Tensor:
    """(L, B, *) padded input and each (sorted) sequence's length, from a PackedSequence."""
    batch_sizes = packed.batch_sizes._data
    batch = int(batch_sizes[0])
    rows, start = [], 0
    for n in batch_sizes:
        step = packed.data[start : start + int(n)]
        start += int(n)
        if n < batch:
            filler = _make(
                np.zeros((batch - int(n),) + tuple(step.shape[1:]), dtype=step._data.dtype)
            )
            step = cat([step, filler])
        rows.append(step)
    return stack(rows)


def _pack_time_major(x: Tensor, batch_sizes: Array) -> Tensor:
    return cat([x[t, : int(n)] for t, n in enumerate(batch_sizes)])


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``).

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        nonlinearity (str): ``"tanh"`` or ``"relu"``. Default: ``"tanh"``.
        bias (bool): learn the biases ``b_ih`` and ``b_hh``. Default: True.
        batch_first (bool): input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: False.
        dropout (float): dropout between layers (not after the last). Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> rnn = nl.nn.RNN(10, 20, num_layers=2)
        >>> output, h_n = rnn(nl.randn(5, 3, 10))
        >>> output.shape, h_n.shape
        (nnlite.Size([5, 3, 20]), nnlite.Size([2, 3, 20]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        nonlinearity: str = "tanh",
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        self.nonlinearity = nonlinearity
        super().__init__(
            "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )


class LSTM(RNNBase):
    """Long short-term memory; returns ``output, (h_n, c_n)``.

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn the biases ``b_ih`` and ``b_hh``. Default: True.
        batch_first (bool): input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: False.
        dropout (float): dropout between layers (not after the last). Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        proj_size (int): project the hidden state to this size. Default: 0.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> lstm = nl.nn.LSTM(10, 20, batch_first=True)
        >>> output, (h_n, c_n) = lstm(nl.randn(3, 5, 10))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        proj_size: int = 0,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__(
            "LSTM",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            proj_size,
            device,
            dtype,
        )

    if TYPE_CHECKING:  # an LSTM's state is the pair (h, c); the base's forward runs it

        @overload  # type: ignore[override]  # as PyTorch's: the state is a pair, not h alone
        def forward(
            self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
        ) -> tuple[Tensor, tuple[Tensor, Tensor]]: ...

        @overload
        def forward(
            self, input: PackedSequence, hx: tuple[Tensor, Tensor] | None = None
        ) -> tuple[PackedSequence, tuple[Tensor, Tensor]]: ...

        def forward(self, input: Any, hx: Any = None) -> Any: ...


class GRU(RNNBase):
    """Gated recurrent unit; returns ``output, h_n``.

    Args:
        input_size (int): the features of each input step.
        hidden_size (int): the features of the hidden state.
        num_layers (int): stacked layers. Default: 1.
        bias (bool): learn the biases ``b_ih`` and ``b_hh``. Default: True.
        batch_first (bool): input and output are ``(N, L, H)`` instead of ``(L, N, H)``. Default: False.
        dropout (float): dropout between layers (not after the last). Default: 0.
        bidirectional (bool): run a second direction backwards. Default: False.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> gru = nn.GRU(4, 8, batch_first=True)
        >>> output, h_n = gru(nl.randn(2, 5, 4))
        >>> output.shape, h_n.shape
        (nnlite.Size([2, 5, 8]), nnlite.Size([1, 2, 8]))
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int = 1,
        bias: bool = True,
        batch_first: bool = False,
        dropout: float = 0.0,
        bidirectional: bool = False,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__(
            "GRU",
            input_size,
            hidden_size,
            num_layers,
            bias,
            batch_first,
            dropout,
            bidirectional,
            device=device,
            dtype=dtype,
        )


# ------------------------------------------------------------------------------- cells
class RNNCellBase(Module):
    """One time step: parameters ``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``.

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        bias (bool): learn the biases. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> cell = nn.GRUCell(4, 8)
        >>> [name for name, _ in cell.named_parameters()]
        ['weight_ih', 'weight_hh', 'bias_ih', 'bias_hh']
    """

    _gates = 1
    _mode: str  # the sequence op's mode: a class attribute, or RNNCell's property
    input_size: int
    hidden_size: int
    bias: bool
    weight_ih: Parameter
    weight_hh: Parameter
    bias_ih: Parameter | None
    bias_hh: Parameter | None

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dt = factory_dtype(dtype)
        gate_size = self._gates * hidden_size
        self.weight_ih = Parameter(np.empty((gate_size, input_size), dt))
        self.weight_hh = Parameter(np.empty((gate_size, hidden_size), dt))
        self.register_parameter("bias_ih", Parameter(np.empty((gate_size,), dt)) if bias else None)
        self.register_parameter("bias_hh", Parameter(np.empty((gate_size,), dt)) if bias else None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            text += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def forward(self, input: Tensor, hx: _Hidden | None = None) -> _Hidden:
        """One step from the state ``hx`` (zeros when None).

        Args:
            input (Tensor): ``(N, H_in)`` or ``(H_in,)``.
            hx (Tensor or pair of Tensors, optional): ``h`` (``(h, c)`` for an LSTM cell).

        Returns:
            ``h'`` (``(h', c')`` for an LSTM cell).

        Examples:
            >>> nn.RNNCell(4, 8)(nl.randn(3, 4)).shape
            nnlite.Size([3, 8])
        """
        if input.ndim not in (1, 2):
            raise ValueError(
                f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead"
            )
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        if x.shape[1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {x.shape[1]} expected {self.input_size}"
            )
        count = 2 if self._mode == "LSTM" else 1
        if hx is None:
            states = tuple(zeros(x.shape[0], self.hidden_size, dtype=x.dtype) for _ in range(count))
        else:
            states = (
                tuple(cast("tuple[Tensor, Tensor]", hx)) if count == 2 else (cast("Tensor", hx),)
            )
            if not batched:
                states = tuple(s.unsqueeze(0) for s in states)
        weights = (self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        _, final = _run_direction(self._mode, x.unsqueeze(0), states, weights)
        if not batched:
            final = tuple(f.squeeze(0) for f in final)
        return (final[0], final[1]) if count == 2 else final[0]


class RNNCell(RNNCellBase):
    """One Elman RNN step: returns ``h'``.

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        bias (bool): learn the biases. Default: True.
        nonlinearity (str): ``"tanh"`` or ``"relu"``. Default: ``"tanh"``.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.RNNCell(4, 8)(nl.randn(3, 4)).shape
        nnlite.Size([3, 8])
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        bias: bool = True,
        nonlinearity: str = "tanh",
        device: Device | None = None,
        dtype: DTypeLike | None = None,
    ) -> None:
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    @property
    def _mode(self) -> str:  # type: ignore[override]  # RNNCellBase declares it an attribute
        return "RNN_RELU" if self.nonlinearity == "relu" else "RNN_TANH"


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h', c')``.

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        bias (bool): learn the biases. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> h, c = nn.LSTMCell(4, 8)(nl.randn(3, 4))
        >>> h.shape, c.shape
        (nnlite.Size([3, 8]), nnlite.Size([3, 8]))
    """

    _gates = 4
    _mode = "LSTM"


class GRUCell(RNNCellBase):
    """One GRU step: returns ``h'``.

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        bias (bool): learn the biases. Default: True.
        device (str or nl.device, optional): only ``"cpu"``.
        dtype (nl.dtype, optional): the parameters' type. Default: float32.

    Examples:
        >>> nn.GRUCell(4, 8)(nl.randn(3, 4)).shape
        nnlite.Size([3, 8])
    """

    _gates = 3
    _mode = "GRU"
